/**
 * The lines the transcript shows for how a run went: how it ended, the
 * cells it left running, older steps summarised. Pure text, shared by the
 * record (chat-entries.ts) and what is derived from it.
 */
import type { AgentEvent, IRunningCell } from '../types';

/** The run's last line when cells it ran are still running. */
export function leftRunningNotice(cells: ReadonlyArray<IRunningCell>): string {
  const names = cells.map(cell => cell.label).join(', ');
  return cells.length === 1
    ? `Still running in the kernel: ${names}. The run ended with it still going; Interrupt stops it.`
    : `Still running in the kernel: ${names}. The run ended with them still going; Interrupt stops them.`;
}

/** The transcript's line when older steps were summarised. */
export function summaryNotice(
  event: Extract<AgentEvent, { type: 'context-summary' }>
): string {
  const messages = event.replaced === 1 ? 'message' : 'messages';
  return (
    `Earlier steps summarised: the model now reads a summary instead of ${event.replaced} earlier ${messages} ` +
    `(about ${event.tokensBefore} → ${event.tokensAfter} tokens of context).`
  );
}

/** The transcript's line for how a run ended, if it says anything. */
export function endNotice(
  event: Extract<AgentEvent, { type: 'end' }>
): string | null {
  switch (event.reason) {
    case 'stopped':
      return 'Stopped.';
    case 'step-limit':
      return 'Stopped: the step limit was reached. Ask to continue, or raise the limit in the settings.';
    case 'repeated-failure':
      return (
        `Stopped: the same error happened three times in a row (${event.detail}). ` +
        'Check the cells above, then ask again with more detail.'
      );
    case 'repeated-step':
      return (
        'Stopped: the model asked to run the same code again after seeing its result. ' +
        'Rephrase the request or say what to change; a larger model loops less.'
      );
    case 'no-code':
      return (
        'Stopped: three times the model sent a block with no code in it (comments only), which was not run. ' +
        'Rephrase the request or say what to compute; a larger model does this less.'
      );
    case 'completed':
    case 'error':
      return null;
  }
}
