/**
 * One tool call: what the agent did, its state, and a preview of the result.
 */
import React, { useState } from 'react';
import type { TranscriptItem } from '../agent/session';

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

/** Props of `ToolCallCard`. */
export interface IToolCallCardProps {
  item: ToolItem;
  onShowCell?: (cellId: string) => void;
}

const TITLES: Record<string, string> = {
  read_notebook: 'Read the notebook',
  insert_cell: 'Inserted a cell',
  run_cell: 'Ran a cell'
};

const STATES: Record<ToolItem['status'], string> = {
  running: 'running…',
  done: 'done',
  error: 'error'
};

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
  onShowCell
}: IToolCallCardProps): JSX.Element {
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
          {TITLES[item.name] ?? item.name}
        </span>
        <span className="jp-AgentSidebar-toolState">
          {STATES[item.status]}
          {item.durationMs !== undefined
            ? ` · ${(item.durationMs / 1000).toFixed(1)} s`
            : ''}
        </span>
      </button>
      {code !== null && <pre className="jp-AgentSidebar-toolCode">{code}</pre>}
      {open && !code && item.arguments && item.arguments !== '{}' && (
        <pre className="jp-AgentSidebar-toolCode">{item.arguments}</pre>
      )}
      {preview && (open || item.name === 'run_cell') && (
        <pre className="jp-AgentSidebar-toolOutput">{preview}</pre>
      )}
      {item.cellId && onShowCell && (
        <button
          className="jp-AgentSidebar-link"
          onClick={() => onShowCell(item.cellId!)}
        >
          Show cell
        </button>
      )}
    </div>
  );
}
