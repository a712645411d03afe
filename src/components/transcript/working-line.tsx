/**
 * "Working… 12 s": the line under the transcript while the agent works and
 * nothing waits for the user, with a live count of the seconds (a slow
 * local prompt is not a frozen sidebar). While the model has been asked
 * and its answer has not begun, it says "Reading the prompt… 12 s": a
 * remote or local server reads the whole prompt before its first token, as
 * the in-browser model does (whose own line says so with its token count).
 */
import React, { useEffect, useState, useSyncExternalStore } from 'react';
import type { IReadable } from '../../agent/value-store';
import { useTrans } from '../common/trans';

/** Seconds shown from this many on (a quick step shows no count). */
const SHOW_FROM_S = 2;

const NOT_WAITING: IReadable<number | null> = {
  subscribe: () => () => undefined,
  getSnapshot: () => null
};

/** Props of `WorkingLine`. */
export interface IWorkingLineProps {
  /** Since when the model has been asked without an answer yet (null: it is not waiting). */
  modelWait?: IReadable<number | null>;
}

/** The working line with its timer. */
export function WorkingLine(props: IWorkingLineProps): JSX.Element {
  const trans = useTrans();
  const wait = props.modelWait ?? NOT_WAITING;
  const since = useSyncExternalStore(
    wait.subscribe,
    wait.getSnapshot,
    wait.getSnapshot
  );
  // The count starts again when the model's answer begins.
  const [working, setWorking] = useState(() => Date.now());
  const [now, setNow] = useState(working);
  useEffect(() => {
    if (since === null) {
      setWorking(Date.now());
      setNow(Date.now());
    }
  }, [since]);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.floor((now - (since ?? working)) / 1000));
  const counted = seconds >= SHOW_FROM_S;
  return (
    // Not read out every second: the transcript is a live region.
    <div className="jp-AgentSidebar-working" aria-live="off">
      {since !== null
        ? counted
          ? trans.__('Reading the prompt… %1 s', seconds)
          : trans.__('Reading the prompt…')
        : counted
          ? trans.__('Working… %1 s', seconds)
          : trans.__('Working…')}
    </div>
  );
}
