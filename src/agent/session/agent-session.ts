/**
 * AgentSession: one chat and its runs, as the sidebar, the commands and the
 * headless runner see it. A thin facade over two parts: the store
 * (store.ts: the state the UI reads, the conversation, saving/reopening)
 * and the task runner (runner.ts: one task at a time, approvals, Stop). It
 * adds what the user asks for: prompts (the prompt's task is below: one
 * turn, with the variables it names described), retry, Generate, Fix and
 * the review of a fix.
 */
import type { IChatRecord } from '../chat-record';
import {
  attachmentContext,
  describeVariableRows,
  mentionProbe,
  variableMentions,
  type IAttachments
} from '../context/attachments';
import type { ApprovalDecision } from '../loop/approval';
import type { IRunOutcome } from '../loop/run-agent';
import type { INotebookPort } from '../ports';
import { probeVariables } from '../tools/variables-probe';
import type { ChatMessage, IAgentError } from '../types';
import type { IFixResult } from '../workflows/fix-cell';
import type { IGenerateResult } from '../workflows/generate-notebook';
import { TaskRunner } from './runner';
import { SessionStore } from './store';
import type {
  IGenerateRequestOptions,
  IModelChoice,
  IRunTarget,
  ISessionOptions,
  ISessionState,
  IWorkflowHost,
  TaskWork
} from './types';
import { fixTask, generateTask, revertReview } from './workflow-tasks';

/** The state of one chat, and what can be done with it. */
export class AgentSession {
  // First: the fields below read it as they are initialized.
  private readonly _store = new SessionStore();

  constructor(options: ISessionOptions) {
    this._runner = new TaskRunner(this._store, options);
  }

  /** Register a listener; returns the function that removes it. */
  readonly subscribe = this._store.subscribe;

  /** The current immutable snapshot. */
  readonly getSnapshot = this._store.getSnapshot;

  /** Register a listener for the loop's events; returns the function that removes it. */
  readonly subscribeEvents = this._store.subscribeEvents;

  /** The model conversation (for tests and persistence). */
  get history(): ReadonlyArray<ChatMessage> {
    return this._store.history;
  }

  /** This chat's id (its file on the server). */
  get chatId(): string {
    return this._store.chatId;
  }

  /** The notebook this chat belongs to ('' before its first run). */
  get notebookPath(): string {
    return this._store.notebookPath;
  }

  /** Whether a task (a prompt, a generation, a fix) is running. */
  get busy(): boolean {
    return this._runner.running;
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
      this._store.removeMessage(tail);
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

  /** Keep the reviewed fix. */
  acceptReview(): void {
    this._reviewNotebook = null;
    this._store.set({ review: null });
  }

  /**
   * Undo the reviewed fix: every cell the agent changed is back as it was
   * (source byte for byte, outputs and execution count), its added cells
   * are removed. Resolves with the ids it could not restore (the user
   * changed them meanwhile).
   */
  async rejectReview(): Promise<string[]> {
    const review = this.getSnapshot().review;
    const notebook = this._reviewNotebook;
    this.acceptReview();
    if (!review || !notebook) {
      return [];
    }
    return revertReview(notebook, review.changes, text =>
      this._store.notice(text)
    );
  }

  /** Whether the file written by tool call `callId` can be undone now. */
  canUndoFile(callId: string): boolean {
    return this._runner.files.has(callId);
  }

  /**
   * Undo the file written by tool call `callId` (write_file): its content
   * before is back, or the file the agent created is removed. A file
   * changed since is left alone. The outcome is a notice in the chat.
   */
  async undoFile(callId: string): Promise<boolean> {
    let outcome: { undone: boolean; message: string };
    try {
      outcome = await this._runner.files.undo(callId);
    } catch (error) {
      outcome = {
        undone: false,
        message: `Could not undo the file change: ${(error as Error).message ?? String(error)}`
      };
    }
    if (outcome.undone) {
      this._store.set({
        items: this.getSnapshot().items.map(item =>
          item.kind === 'tool' && item.id === callId && item.file
            ? { ...item, file: { ...item.file, undone: true } }
            : item
        )
      });
    }
    this._store.notice(outcome.message);
    return outcome.undone;
  }

  /** Answer the pending approval request (approve, approve edited code, or reject). */
  resolveApproval(decision: ApprovalDecision): void {
    this._runner.resolveApproval(decision);
  }

  /** Stop the run in progress: aborts the model stream and interrupts a running cell. */
  stop(): void {
    this._runner.stop();
  }

  /**
   * The run's notebook starts to run cell `cellId` for it, the kernel not
   * asked yet (the live notebook says so): a `cell-start` event, by which
   * the running call's card names the cell (a chat saved mid-cell, when the
   * page goes away, knows what the kernel may still be busy with) and the
   * notebook is saved with it. Nothing while no task runs.
   */
  cellStarted(cellId: string): void {
    if (this.busy) {
      this._store.dispatch({ type: 'cell-start', cellId });
    }
  }

  /** The chat's notebook was renamed or moved to `path` (a run in it goes on). */
  notebookMoved(path: string): void {
    this._store.moveNotebook(path);
  }

  /** Forget the conversation (stops a run in progress first); `notebook` names the new chat's notebook. */
  newChat(notebook?: string): void {
    this.stop();
    this._reviewNotebook = null;
    this._runner.files.clear();
    this._store.newChat(notebook);
  }

  /** Reopen a saved chat (refused while a run is in progress). */
  restore(record: IChatRecord): boolean {
    if (!this._store.restore(record)) {
      return false;
    }
    this._reviewNotebook = null;
    this._runner.files.clear();
    return true;
  }

  /** The chat as saved on the server. */
  record(): IChatRecord {
    return this._store.record();
  }

  /** The chat New chat (or reopening another) just replaced, once (to be saved). */
  takeClosedRecord(): IChatRecord | null {
    return this._store.takeClosedRecord();
  }

  /** Set this chat's provider and model (a new chat starts from the defaults). */
  setModelChoice(choice: IModelChoice | null): void {
    this._store.set({ choice });
  }

  /** Show an error that happened outside a run (null clears it). */
  reportError(error: IAgentError | null): void {
    this._store.reportError(error);
  }

  /** Add a line to the transcript (e.g. that a chat could not be saved). */
  notice(text: string): void {
    this._store.notice(text);
  }

  private readonly _runner: TaskRunner;
  /** The notebook a pending review belongs to. */
  private _reviewNotebook: INotebookPort | null = null;
  /** What the workflows' tasks use of this session. */
  private readonly _host: IWorkflowHost = {
    hardTimeoutMs: () => this._runner.runSettings().hardTimeoutMs,
    notice: text => this._store.notice(text),
    review: (review, notebook) => {
      this._reviewNotebook = notebook;
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
