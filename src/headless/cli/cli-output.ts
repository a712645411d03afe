/**
 * What the command line prints while the agent works: the session's
 * transcript as plain lines on stderr (stdout is left for the result).
 */
import type { AgentSession, TranscriptItem } from '../../agent/session';

/** Print transcript items as they complete; returns the function that stops. */
export function printTranscript(
  session: AgentSession,
  write: (line: string) => void
): () => void {
  const printed = new Map<string, string>();
  const show = (item: TranscriptItem, final: boolean) => {
    const line = lineFor(item, final);
    if (line !== null && printed.get(item.id) !== line) {
      printed.set(item.id, line);
      write(line);
    }
  };
  const unsubscribe = session.subscribe(() => {
    const items = session.getSnapshot().items;
    // Every item but the last is finished; the last is shown once it is.
    items.forEach((item, index) => show(item, index < items.length - 1));
  });
  return () => {
    unsubscribe();
    const items = session.getSnapshot().items;
    items.forEach(item => show(item, true));
  };
}

function lineFor(item: TranscriptItem, final: boolean): string | null {
  switch (item.kind) {
    case 'user':
      return `> ${firstLine(item.text)}`;
    case 'assistant':
      return final ? item.text.trim() : null;
    case 'notice':
      return `— ${item.text}`;
    case 'tool':
      return item.status === 'running'
        ? null
        : `  [${item.name}] ${item.stillRunning ? 'still running' : item.status}` +
            (item.durationMs !== undefined
              ? ` (${(item.durationMs / 1000).toFixed(1)} s)`
              : '') +
            (item.status === 'error' && item.output
              ? `: ${firstLine(item.output)}`
              : '');
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
