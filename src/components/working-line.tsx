/**
 * "Working… 12 s": the line under the transcript while the agent works and
 * nothing waits for the user, with a live count of the seconds since it
 * appeared (a slow local prompt is not a frozen sidebar).
 */
import React, { useEffect, useState } from 'react';
import { useTrans } from './trans';

/** Seconds shown from this many on (a quick step shows no count). */
const SHOW_FROM_S = 2;

/** The working line with its timer. */
export function WorkingLine(): JSX.Element {
  const trans = useTrans();
  const [started] = useState(() => Date.now());
  const [now, setNow] = useState(started);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const seconds = Math.floor((now - started) / 1000);
  return (
    // Not read out every second: the transcript is a live region.
    <div className="jp-AgentSidebar-working" aria-live="off">
      {seconds >= SHOW_FROM_S
        ? trans.__('Working… %1 s', seconds)
        : trans.__('Working…')}
    </div>
  );
}
