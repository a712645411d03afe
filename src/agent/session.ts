/**
 * AgentSession: one chat and its runs. The state the UI reads and the
 * saved-chat handling live in SessionStore (session-store.ts), running one
 * task at a time with its turns, approvals and Stop in SessionRunner
 * (session-runner.ts); this class is what the sidebar, the commands and the
 * headless runner call: prompts, retry, the Generate / Fix workflows, and
 * the review of a fix.
 */
import type { IChatRecord } from './chat-record';
import type { IAttachments } from './context/attachments';
import type { IRunOutcome } from './loop/run-agent';
import type { INotebookPort } from './ports';
import { promptOfDisplay, promptTask } from './session-prompt';
import { SessionRunner } from './session-runner';
import type {
  IFixReview,
  IModelChoice,
  IRunTarget,
  ISessionState,
  TranscriptItem
} from './session-store';
import {
  fixTask,
  generateTask,
  revertReview,
  type IGenerateRequestOptions,
  type IWorkflowHost
} from './session-workflows';
import type { IFixResult } from './workflows/fix-cell';
import type { IGenerateResult } from './workflows/generate-notebook';

export type {
  IFixReview,
  IModelChoice,
  IRunTarget,
  ISessionState,
  TranscriptItem
};

/** The state of one chat. */
export class AgentSession extends SessionRunner {
  /** The notebook a pending review belongs to. */
  private _reviewNotebook: INotebookPort | null = null;

  /** What the workflows' tasks use of this session. */
  private _host: IWorkflowHost = {
    hardTimeoutMs: () => this._runSettings().hardTimeoutMs,
    notice: text => this._notice(text),
    review: (review, notebook) => {
      this._reviewNotebook = notebook;
      this._set({ review });
    }
  };

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
    return this._task(target, promptTask(text, attachments));
  }

  /**
   * Send the last request again, after an error (a bad key fixed, an
   * endpoint back up). An unanswered request is taken back out of the
   * conversation first, so the model does not see it twice.
   */
  retry(target: IRunTarget): Promise<IRunOutcome | undefined> | null {
    const last = [...this._state.items].reverse().find(i => i.kind === 'user');
    if (!last || last.kind !== 'user' || this._state.status === 'running') {
      return null;
    }
    const tail = this._history[this._history.length - 1];
    const prompt = promptOfDisplay(last.text);
    if (tail?.role === 'user' && !tail.observation) {
      this._history.pop();
    }
    return this.send(prompt, target);
  }

  /**
   * Generate a notebook in `target.notebook` (new and empty) from `request`,
   * then verify it (restart, run all) and repair it until it runs from the
   * top. Null when it cannot start (see `send`).
   */
  generate(
    request: string,
    target: IRunTarget,
    options: IGenerateRequestOptions = {}
  ): Promise<IGenerateResult | undefined> | null {
    if (!request.trim()) {
      return null;
    }
    return this._task(target, generateTask(request, options, this._host));
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
    return this._task(target, fixTask(cellId, options.maxAttempts, this._host));
  }

  /** Keep the reviewed fix. */
  acceptReview(): void {
    this._reviewNotebook = null;
    this._set({ review: null });
  }

  /**
   * Undo the reviewed fix: every source the agent changed is restored byte
   * for byte, its added cells are removed. Resolves with the ids it could
   * not restore (the user changed them meanwhile).
   */
  async rejectReview(): Promise<string[]> {
    const review = this._state.review;
    const notebook = this._reviewNotebook;
    this.acceptReview();
    if (!review || !notebook) {
      return [];
    }
    return revertReview(notebook, review.changes, text => this._notice(text));
  }

  /** Reopen a saved chat (refused while a run is in progress). */
  restore(record: IChatRecord): boolean {
    if (!super.restore(record)) {
      return false;
    }
    this._reviewNotebook = null;
    return true;
  }
}
