/**
 * AgentSession: one chat and its runs, as the commands and the headless
 * runner see it: the chat (chat-session.ts: its state, Stop, approvals,
 * Undo, the fix review) with the task runner (runner.ts: one task at a
 * time, its turns of the agent loop). It adds what the user asks for:
 * prompts (the prompt's task is below: one turn, with the variables it
 * names described), retry, Generate and Fix. Built over an existing chat
 * (`new AgentSession(options, chat)`), it runs that chat's tasks: the
 * browser builds the chat at start and this with the first task.
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
import type { IFixResult } from '../workflows/fix-cell';
import type { IGenerateResult } from '../workflows/generate-notebook';
import { ChatSession } from './chat-session';
import { TaskRunner } from './runner';
import type {
  IGenerateRequestOptions,
  IRunTarget,
  ISessionOptions,
  ISessionState,
  IWorkflowHost,
  TaskWork
} from './types';
import { fixTask, generateTask } from './workflow-tasks';

/** A chat and its tasks. */
export class AgentSession extends ChatSession {
  /** `chat`: the chat whose tasks this runs (default: a new one). */
  constructor(options: ISessionOptions, chat?: ChatSession) {
    super(chat);
    this._runner = new TaskRunner(this._store, this._controls, options);
  }

  /**
   * Start a run for `prompt`. Returns null without changing the transcript
   * when the run cannot start (no notebook, no model configured, already
   * running): the error is in the state and the prompt should be kept.
   */
  send(
    prompt: string,
    target: IRunTarget,
    attachments: IAttachments = {}
  ): Promise<IRunOutcome | undefined> | null {
    const text = prompt.trim();
    if (!text) {
      return null;
    }
    return this._runner.task(target, promptTask(text, attachments));
  }

  /**
   * Send the last request again, after an error (a bad key fixed, an
   * endpoint back up). An unanswered request is taken back out of the
   * conversation first, so the model does not see it twice; the
   * transcript keeps its one line for it (no second copy of the question).
   */
  retry(target: IRunTarget): Promise<IRunOutcome | undefined> | null {
    const items = this.getSnapshot().items;
    const last = [...items].reverse().find(i => i.kind === 'user');
    if (!last || last.kind !== 'user' || this.busy) {
      return null;
    }
    const history = this._store.history;
    const tail = history[history.length - 1];
    const unanswered = tail?.role === 'user' && !tail.observation;
    const text = promptOfDisplay(last.text).trim();
    if (!text) {
      return null;
    }
    const run = this._runner.task(target, promptTask(text, {}, true));
    if (run && unanswered) {
      // Taken out once the retry has started (it may not start: no notebook).
      this._store.log.removeMessage(tail);
    }
    return run;
  }

  /**
   * Generate a notebook in `target.notebook` (new and empty) from `request`,
   * then verify it (restart, run all, and the work is really in it) and
   * repair it until it runs from the top. Null when it cannot start (see `send`).
   */
  generate(
    request: string,
    target: IRunTarget,
    options: IGenerateRequestOptions = {}
  ): Promise<IGenerateResult | undefined> | null {
    if (!request.trim()) {
      return null;
    }
    return this._runner.task(
      target,
      generateTask(request, options, this._host)
    );
  }

  /**
   * Fix a code cell: the agent edits and reruns (bounded attempts), then
   * the changes wait in `review` for Accept or Reject. Null when it cannot
   * start (see `send`).
   */
  fixCell(
    cellId: string,
    target: IRunTarget,
    options: { maxAttempts?: number } = {}
  ): Promise<IFixResult | undefined> | null {
    return this._runner.task(
      target,
      fixTask(cellId, options.maxAttempts, this._host)
    );
  }

  private readonly _runner: TaskRunner;
  /** What the workflows' tasks use of this session. */
  private readonly _host: IWorkflowHost = {
    hardTimeoutMs: () => this._runner.runSettings().hardTimeoutMs,
    notice: text => this._store.notice(text),
    review: (review, notebook) => {
      this._controls.reviewNotebook = notebook;
      this._store.set({ review });
    }
  };
}

export type { ISessionState };

/** Starts the list of attachments on a prompt's transcript line. */
const ATTACHED = '\n📎 ';

/**
 * The task of one turn on `text` (trimmed, not empty) with `attachments`;
 * `again`: a Retry, whose prompt the transcript already shows.
 */
function promptTask(
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
function promptOfDisplay(display: string): string {
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
