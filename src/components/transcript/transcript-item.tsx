/**
 * One entry of the transcript: the user's prompt, an answer (markdown with
 * Copy / Insert as cell on its code blocks, and a "not computed in the
 * notebook" mark when it states numbers nothing computed), a tool card, or
 * a notice ("Built, not verified: …" among them).
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { useEffect, useRef, useState } from 'react';
import type { TranscriptItem } from '../../agent/session';
import type { IRunningCell } from '../../agent/types';
import { decorateCodeBlocks } from './code-block-actions';
import { MarkdownView } from '../markdown/markdown-view';
import type { ISidebarActions } from '../config/sidebar-config';
import { ShowCellButton } from './show-cell-button';
import { ToolCallCard } from './tool-call-card';
import { useTrans } from '../common/trans';

/** Props of `TranscriptItemView`. */
export interface ITranscriptItemProps {
  item: TranscriptItem;
  rendermime: IRenderMimeRegistry;
  actions: Pick<
    ISidebarActions,
    'insertCode' | 'showCell' | 'interruptKernel' | 'undoFile' | 'canUndoFile'
  >;
  /** This tool call waits for the user's approval. */
  awaiting?: boolean;
}

/** Notices that give a generation's verdict start like this. */
const NOT_VERIFIED = 'Built, not verified';

/** One transcript entry. */
export function TranscriptItemView(props: ITranscriptItemProps): JSX.Element {
  const { item } = props;
  switch (item.kind) {
    case 'user':
      return <div className="jp-AgentSidebar-user">{item.text}</div>;
    case 'assistant':
      // An answer whose only content was code the text protocol ran: its card shows it.
      if (!item.text.trim()) {
        return <></>;
      }
      return (
        <AssistantMessage
          text={item.text}
          notComputed={item.notComputed}
          guess={item.guess}
          rendermime={props.rendermime}
          onInsertCode={props.actions.insertCode}
        />
      );
    case 'tool':
      return (
        <ToolCallCard
          item={item}
          awaiting={props.awaiting}
          onShowCell={props.actions.showCell}
          onUndoFile={
            item.file &&
            !item.file.undone &&
            props.actions.canUndoFile?.(item.id) &&
            props.actions.undoFile
              ? props.actions.undoFile
              : undefined
          }
        />
      );
    case 'notice':
      if (item.runningCells?.length) {
        return (
          <LeftRunningNotice
            text={item.text}
            cells={item.runningCells}
            actions={props.actions}
          />
        );
      }
      if (item.summary !== undefined) {
        return <SummaryNotice text={item.text} summary={item.summary} />;
      }
      return (
        <div
          className={
            item.text.startsWith(NOT_VERIFIED)
              ? 'jp-AgentSidebar-note jp-mod-warning'
              : 'jp-AgentSidebar-note'
          }
          role={item.text.startsWith(NOT_VERIFIED) ? 'status' : undefined}
        >
          {item.text}
        </div>
      );
  }
}

/**
 * "Earlier steps summarised": the line opens to the summary the model now
 * reads instead of them (model-written: shown as plain text).
 */
function SummaryNotice(props: { text: string; summary: string }): JSX.Element {
  return (
    <details
      className="jp-AgentSidebar-note jp-AgentSidebar-summaryNote"
      role="status"
    >
      <summary>{props.text}</summary>
      <div className="jp-AgentSidebar-summaryText">{props.summary}</div>
    </details>
  );
}

/** The run's last line when cells it ran still run: Show cell, Interrupt. */
function LeftRunningNotice(props: {
  text: string;
  cells: ReadonlyArray<IRunningCell>;
  actions: Pick<ISidebarActions, 'showCell' | 'interruptKernel'>;
}): JSX.Element {
  const trans = useTrans();
  const [interrupted, setInterrupted] = useState(false);
  return (
    <div className="jp-AgentSidebar-note jp-mod-warning" role="status">
      {props.text}{' '}
      {props.cells.map(cell => (
        <ShowCellButton
          key={cell.id}
          cellId={cell.id}
          onShowCell={props.actions.showCell}
          label={
            props.cells.length > 1
              ? trans.__('Show %1', cell.label)
              : trans.__('Show cell')
          }
        />
      ))}{' '}
      <button
        className="jp-AgentSidebar-link"
        disabled={interrupted}
        onClick={() => {
          setInterrupted(true);
          props.actions.interruptKernel();
        }}
      >
        {interrupted ? trans.__('Interrupted') : trans.__('Interrupt')}
      </button>
    </div>
  );
}

/**
 * An answer: markdown, with Copy / Insert as cell on its code blocks. A
 * guess (sent back to be computed) is folded away under its label: the
 * answer below it, computed, is the one that reads as the answer.
 */
function AssistantMessage(props: {
  text: string;
  notComputed?: string[];
  guess?: boolean;
  rendermime: IRenderMimeRegistry;
  onInsertCode: (code: string) => void;
}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const insert = useRef(props.onInsertCode);
  insert.current = props.onInsertCode;
  const trans = useTrans();
  // Again when the answer becomes a guess: it is then folded into another
  // element, with a host of its own.
  useEffect(
    () =>
      host.current
        ? decorateCodeBlocks(host.current, {
            onInsert: code => insert.current(code),
            trans
          })
        : undefined,
    [trans, props.guess]
  );
  const markdown = (
    <div ref={host}>
      <MarkdownView text={props.text} rendermime={props.rendermime} />
    </div>
  );
  if (props.guess) {
    return (
      <details className="jp-AgentSidebar-assistant jp-AgentSidebar-guess">
        <summary>
          {trans.__('A first answer, not computed in the notebook')}
        </summary>
        {markdown}
      </details>
    );
  }
  return (
    <div className="jp-AgentSidebar-assistant">
      {markdown}
      {props.notComputed?.length ? (
        <div
          className="jp-AgentSidebar-notComputed"
          role="note"
          title={trans.__(
            'Nothing computed these values: no output shows them, the code that ran failed, or only code that typed them in printed them: %1',
            props.notComputed.join(', ')
          )}
        >
          {trans.__(
            '⚠ not computed in the notebook: %1',
            props.notComputed.join(', ')
          )}
        </div>
      ) : null}
    </div>
  );
}
