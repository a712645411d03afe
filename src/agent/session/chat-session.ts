/**
 * ChatSession: one chat as the sidebar, its persistence and other
 * extensions see it, without what runs its tasks: its state (store.ts),
 * and the controls of a running task (run-controls.ts: Stop, the pending
 * approval, the Undo of a written file, the fix waiting for review). It
 * loads neither the agent loop nor a tool, so the browser builds it at
 * start; the AgentSession (agent-session.ts) adds the tasks (prompts,
 * retry, Generate, Fix) over the same chat, and in the browser loads with
 * the first of them.
 */
import type { IChatRecord } from '../chat-record';
import type { ApprovalDecision } from '../loop/approval';
import type { AgentEvent, ChatMessage, IAgentError } from '../types';
import { RunControls } from './run-controls';
import { SessionStore } from './store';
import type { IModelChoice, ISessionState } from './types';
import { revertReview } from './workflow-tasks';

/** How a wait for what runs a task ended (see `ChatSession.holdForStart`). */
export type HeldStart = 'start' | 'stop' | 'drop';

/** The state of one chat, and what can be done with it between and during tasks. */
export class ChatSession {
  /**
   * A new chat; `shared`: another facade of an existing chat (the
   * AgentSession that runs the browser's chat's tasks), whose state and
   * controls this one uses.
   */
  constructor(shared?: ChatSession) {
    this._store = shared?._store ?? new SessionStore();
    this._controls = shared?._controls ?? new RunControls(this._store);
  }

  /** Register a listener; returns the function that removes it. */
  readonly subscribe = (listener: () => void): (() => void) =>
    this._store.subscribe(listener);

  /** The current immutable snapshot. */
  readonly getSnapshot = (): ISessionState => this._store.getSnapshot();

  /** Register a listener for the loop's events; returns the function that removes it. */
  readonly subscribeEvents = (
    listener: (event: AgentEvent) => void
  ): (() => void) => this._store.subscribeEvents(listener);

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
    return this._store.getSnapshot().status === 'running';
  }

  /** Keep the reviewed fix. */
  acceptReview(): void {
    this._controls.reviewNotebook = null;
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
    const notebook = this._controls.reviewNotebook;
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
    return this._controls.files.has(callId);
  }

  /**
   * Undo the file written by tool call `callId` (write_file): its content
   * before is back, or the file the agent created is removed. A file
   * changed since is left alone. The outcome is a notice in the chat.
   */
  async undoFile(callId: string): Promise<boolean> {
    let outcome: { undone: boolean; message: string };
    try {
      outcome = await this._controls.files.undo(callId);
    } catch (error) {
      outcome = {
        undone: false,
        message: `Could not undo the file change: ${(error as Error).message ?? String(error)}`
      };
    }
    if (outcome.undone) {
      this._store.log.markFileUndone(callId);
    }
    this._store.notice(outcome.message);
    return outcome.undone;
  }

  /** Answer the pending approval request (approve, approve edited code, or reject). */
  resolveApproval(decision: ApprovalDecision): void {
    this._controls.approvals.resolve(decision);
  }

  /** Stop the run in progress: aborts the model stream and interrupts a running cell. */
  stop(): void {
    this._controls.stop();
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

  /**
   * Show the chat busy while what runs its tasks loads (a page's first
   * Send, Retry, Generate or Fix): Stop is offered, and another task
   * refused, meanwhile. Returns the function that ends the wait, called
   * just before the task starts: `start` it; `stop`: Stop was pressed
   * meanwhile, so start it and stop it at once (as a Stop right after Send
   * does); `drop`: another chat was opened meanwhile, so start nothing.
   */
  holdForStart(): () => HeldStart {
    const held = new AbortController();
    const chat = this.chatId;
    this._controls.controller = held;
    this._store.set({ status: 'running', error: null });
    return () => {
      if (this._controls.controller !== held) {
        return 'drop';
      }
      this._controls.controller = null;
      this._store.set({ status: 'idle' });
      return this.chatId !== chat
        ? 'drop'
        : held.signal.aborted
          ? 'stop'
          : 'start';
    };
  }

  /** The chat's notebook was renamed or moved to `path` (a run in it goes on). */
  notebookMoved(path: string): void {
    this._store.moveNotebook(path);
  }

  /** Forget the conversation (stops a run in progress first); `notebook` names the new chat's notebook. */
  newChat(notebook?: string): void {
    this.stop();
    this._controls.reviewNotebook = null;
    this._controls.files.clear();
    this._store.newChat(notebook);
  }

  /** Reopen a saved chat (refused while a run is in progress). */
  restore(record: IChatRecord): boolean {
    if (!this._store.restore(record)) {
      return false;
    }
    this._controls.reviewNotebook = null;
    this._controls.files.clear();
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

  /** The chat's state and conversation. */
  protected readonly _store: SessionStore;
  /** The controls of its running task. */
  protected readonly _controls: RunControls;
}
