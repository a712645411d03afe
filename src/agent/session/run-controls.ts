/**
 * What the user acts on while a task runs, shared by a chat's facades
 * (chat-session.ts, and the AgentSession built over it): the running task's
 * abort controller (Stop), the approval waiting for an answer, the files its
 * runs wrote (their Undo) and the notebook of a fix waiting for review. The
 * task runner (runner.ts) fills them in; the chat reads them without it.
 */
import type { INotebookPort } from '../ports';
import { ApprovalGate } from './approval-gate';
import { FileUndo } from './file-undo';
import type { SessionStore } from './store';

/** The controls of a chat's runs. */
export class RunControls {
  /** The pending approval shows in `store`'s state. */
  constructor(store: SessionStore) {
    this.approvals = new ApprovalGate(request =>
      store.set({ pendingApproval: request })
    );
  }

  /** The approval a run waits for, answered by the user. */
  readonly approvals: ApprovalGate;
  /** The files this chat's runs wrote, for their Undo. */
  readonly files = new FileUndo();
  /** The running task's (Stop aborts it); null between tasks. */
  controller: AbortController | null = null;
  /** The notebook a pending fix review belongs to. */
  reviewNotebook: INotebookPort | null = null;

  /** Stop the task in progress: aborts the model stream and interrupts a running cell. */
  stop(): void {
    this.controller?.abort();
  }
}
