/**
 * The task behind a prompt from the chat box: one turn on the prompt, with
 * its attachments and what the kernel says about the variables it mentions
 * added for the model, and a short line for the transcript instead.
 */
import {
  attachmentContext,
  describeVariableRows,
  mentionProbe,
  variableMentions,
  type IAttachments
} from '../context/attachments';
import type { IRunOutcome } from '../loop/run-agent';
import type { INotebookPort } from '../ports';
import { probeVariables } from '../tools/variables-probe';
import type { TaskWork } from './types';

/** Starts the list of attachments on a prompt's transcript line. */
const ATTACHED = '\n📎 ';

/**
 * The task of one turn on `text` (trimmed, not empty) with `attachments`;
 * `again`: a Retry, whose prompt the transcript already shows.
 */
export function promptTask(
  text: string,
  attachments: IAttachments,
  again = false
): TaskWork<IRunOutcome> {
  return async (turn, notebook, signal) => {
    const names = variableMentions(text);
    const variables = names.length
      ? await describeVariables(notebook, names, signal)
      : '';
    const attached = [
      ...(attachments.files ?? []).map(file => file.name),
      ...(attachments.cells ?? []).map(cell => `cell ${cell.index}`)
    ];
    return turn(text + attachmentContext(attachments, variables), {
      ...(again ? { again } : {}),
      display: attached.length
        ? `${text}${ATTACHED}${attached.join(', ')}`
        : text
    });
  };
}

/** The prompt a transcript line shows, without its list of attachments. */
export function promptOfDisplay(display: string): string {
  return display.split(ATTACHED)[0];
}

/** What the kernel says about the variables the prompt mentions (silently, briefly). */
async function describeVariables(
  notebook: INotebookPort,
  names: string[],
  signal: AbortSignal
): Promise<string> {
  // Without an answer the prompt still goes out; the agent can inspect the
  // variables itself.
  const rows = await probeVariables(
    notebook,
    mentionProbe(names),
    signal,
    20_000
  );
  return rows ? describeVariableRows(rows).slice(0, 4000) : '';
}
