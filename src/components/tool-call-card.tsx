/**
 * One tool call: what the agent did, its state, and a preview of the result.
 */
import React, { useState } from 'react';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { TranscriptItem } from '../agent/session';
import { ToolImages } from './tool-images';
import { useTrans } from './trans';

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

/** Props of `ToolCallCard`. */
export interface IToolCallCardProps {
  item: ToolItem;
  onShowCell?: (cellId: string) => void;
  /** Undo the file this call wrote (write_file); absent: no Undo offered. */
  onUndoFile?: (callId: string) => void;
}

/** The card's title: what the tool did, in words, or the tool's name. */
function title(
  name: string,
  args: Record<string, unknown>,
  trans: TranslationBundle
): string {
  switch (name) {
    case 'read_notebook':
      return trans.__('Read the notebook');
    case 'insert_cell':
      return args.run === true
        ? trans.__('Inserted and ran a cell')
        : trans.__('Inserted a cell');
    case 'write_file':
      return trans.__('Write %1', String(args.path ?? ''));
    case 'run_cell':
      return trans.__('Ran a cell');
    default:
      return name;
  }
}

/** The card's state: "done · 1.2 s", "still running (30 s)", "interrupted (page reloaded)"… */
function state(item: ToolItem, trans: TranslationBundle): string {
  const seconds =
    item.durationMs !== undefined
      ? ` · ${trans.__('%1 s', (item.durationMs / 1000).toFixed(1))}`
      : '';
  switch (item.status) {
    case 'running':
      return trans.__('running…');
    case 'interrupted':
      return trans.__('interrupted (page reloaded)');
    case 'error':
      return trans.__('error') + seconds;
    case 'done':
      // A soft timeout returned: the code goes on in the kernel.
      return item.stillRunning
        ? trans.__(
            'still running (%1 s)',
            Math.round((item.durationMs ?? 0) / 1000)
          )
        : trans.__('done') + seconds;
  }
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A collapsible card for one tool call. */
export function ToolCallCard({
  item,
  onShowCell,
  onUndoFile
}: IToolCallCardProps): JSX.Element {
  const trans = useTrans();
  const [open, setOpen] = useState(item.status === 'error');
  const args = parseArguments(item.arguments);
  const code = typeof args.source === 'string' ? args.source : null;
  const preview = item.output
    ? item.output.slice(0, 1200) + (item.output.length > 1200 ? '…' : '')
    : '';
  return (
    <div
      className={`jp-AgentSidebar-tool jp-AgentSidebar-tool-${item.status}`}
      data-tool={item.name}
      data-status={item.status}
    >
      <button
        className="jp-AgentSidebar-toolHeader"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="jp-AgentSidebar-toolTitle">
          {title(item.name, args, trans)}
        </span>
        <span className="jp-AgentSidebar-toolState">{state(item, trans)}</span>
      </button>
      {code !== null && <pre className="jp-AgentSidebar-toolCode">{code}</pre>}
      {open && !code && item.arguments && item.arguments !== '{}' && (
        <pre className="jp-AgentSidebar-toolCode">{item.arguments}</pre>
      )}
      {(item.images?.length ?? 0) + (item.moreImages ?? 0) > 0 && (
        <ToolImages images={item.images ?? []} more={item.moreImages ?? 0} />
      )}
      {preview && (open || item.name === 'run_cell' || args.run === true) && (
        <pre className="jp-AgentSidebar-toolOutput">{preview}</pre>
      )}
      {item.cellId && onShowCell && (
        <button
          className="jp-AgentSidebar-link"
          onClick={() => onShowCell(item.cellId!)}
        >
          {trans.__('Show cell')}
        </button>
      )}
      {item.file?.undone && (
        <span className="jp-AgentSidebar-toolState">
          {item.file.created ? trans.__('removed') : trans.__('restored')}
        </span>
      )}
      {onUndoFile && (
        <button
          className="jp-AgentSidebar-link jp-AgentSidebar-fileUndo"
          title={
            item.file?.created
              ? trans.__('Remove the file the agent created')
              : trans.__('Put back the file as it was before')
          }
          onClick={() => onUndoFile(item.id)}
        >
          {trans.__('Undo')}
        </button>
      )}
    </div>
  );
}
