/**
 * Which notebook the chat belongs to: the line under the header that names
 * it (with the kernel still busy after a reload, and Interrupt), and what
 * the sidebar shows on another notebook while a run works in this one
 * ("Working in A.ipynb — Go there · Stop").
 */
import React, { useState } from 'react';
import { useTrans, withElements } from '../common/trans';

/** The file name of a path ("data/a.ipynb" → "a.ipynb"). */
export function baseName(path: string): string {
  return path.split('/').pop() ?? path;
}

/** The chat's notebook, and its kernel still running the agent's cell after a reload. */
export function NotebookLine(props: {
  path: string;
  /** The kernel still runs a cell of the run the reload interrupted. */
  kernelBusy: boolean;
  onInterrupt: () => void;
}): JSX.Element | null {
  const trans = useTrans();
  const [interrupting, setInterrupting] = useState(false);
  if (!props.path) {
    return null;
  }
  return (
    <>
      <div className="jp-AgentSidebar-notebookLine" title={props.path}>
        {withElements(
          trans,
          'Chat of %1',
          <span className="jp-AgentSidebar-notebookName">
            {baseName(props.path)}
          </span>
        )}
      </div>
      {props.kernelBusy && (
        <div
          className="jp-AgentSidebar-note jp-mod-warning jp-AgentSidebar-kernelBusy"
          role="status"
        >
          {trans.__(
            'The kernel of %1 is still busy with the agent’s cell from before the page was reloaded.',
            baseName(props.path)
          )}{' '}
          <button
            className="jp-AgentSidebar-link"
            disabled={interrupting}
            onClick={() => {
              setInterrupting(true);
              props.onInterrupt();
            }}
          >
            {interrupting ? trans.__('Interrupting…') : trans.__('Interrupt')}
          </button>
        </div>
      )}
    </>
  );
}

/** In place of the chat, on another notebook while a run works in `path`. */
export function WorkingElsewhere(props: {
  path: string;
  /** The run waits for the user's approval there. */
  waiting: boolean;
  onGo: () => void;
  onStop: () => void;
}): JSX.Element {
  const trans = useTrans();
  const go = (
    <button className="jp-AgentSidebar-link" onClick={props.onGo}>
      {trans.__('Go there')}
    </button>
  );
  const stop = (
    <button className="jp-AgentSidebar-link" onClick={props.onStop}>
      {trans.__('Stop')}
    </button>
  );
  const name = baseName(props.path);
  return (
    <div className="jp-AgentSidebar-transcript">
      <div className="jp-AgentSidebar-elsewhere" role="status">
        {props.waiting
          ? withElements(
              trans,
              'Working in %1 (waiting for your approval) — %2 · %3',
              name,
              go,
              stop
            )
          : withElements(trans, 'Working in %1 — %2 · %3', name, go, stop)}
      </div>
    </div>
  );
}
