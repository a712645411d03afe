/**
 * The approval plumbing between the loop and the user: the loop asks and
 * waits; the sidebar (or the headless runner) answers through the session.
 * At most one request waits at a time.
 */
import type { ApprovalDecision, IApprovalRequest } from '../loop/approval';

/** Holds the pending approval request until it is answered or the run stops. */
export class ApprovalGate {
  private _resolve: ((decision: ApprovalDecision) => void) | null = null;

  /** `onPending` shows the waiting request (null: none waits any more). */
  constructor(
    private readonly _onPending: (request: IApprovalRequest | null) => void
  ) {}

  /**
   * Wait for the user's decision on `request`; a stopped run (`signal`
   * aborted, before or while it waits) rejects it with the reason `stopped`.
   * The run's signal keeps no listener once the request is answered.
   */
  ask(
    request: IApprovalRequest,
    signal: AbortSignal
  ): Promise<ApprovalDecision> {
    return new Promise(resolve => {
      const stop = () => {
        if (this._resolve === settle) {
          this.resolve({ approved: false, reason: 'stopped' });
        }
      };
      const settle = (decision: ApprovalDecision) => {
        signal.removeEventListener('abort', stop);
        resolve(decision);
      };
      this._resolve = settle;
      this._onPending(request);
      if (signal.aborted) {
        stop();
      } else {
        signal.addEventListener('abort', stop, { once: true });
      }
    });
  }

  /** Answer the pending request, if any. */
  resolve(decision: ApprovalDecision): void {
    const resolve = this._resolve;
    this._resolve = null;
    this._onPending(null);
    resolve?.(decision);
  }
}
