/**
 * Approvals where nobody is there to answer them (the command line, batch
 * runs): the user asked for the run by starting it, so calls are approved,
 * except a restart of a kernel this run did not start (the user's live
 * kernel, joined on a server given with --server), which is refused with
 * the reason, and the creation of a file that runs or steers later in
 * every run (a `.pth`, `AGENTS.md`, `mcp.json`, anything under
 * site-packages or bin/: tools/runs-later.ts), which nobody here can judge.
 * Without an answer, a call that always asks (restart_kernel; installs and
 * shell commands during a fix) waited forever: the run hung.
 */
import type { AgentSession } from '../../agent/session';

/** Answer every approval request of `session`; returns the function that stops. */
export function autoApprove(
  session: AgentSession,
  options: { ownsKernel: () => boolean }
): () => void {
  return session.subscribe(() => {
    const pending = session.getSnapshot().pendingApproval;
    if (!pending) {
      return;
    }
    if (pending.kind === 'restart' && !options.ownsKernel()) {
      session.resolveApproval({
        approved: false,
        reason:
          'the kernel belongs to a session this run joined, so restarting it ' +
          'needs its user, who is not here to approve; work without a restart'
      });
      return;
    }
    if (pending.runsLater?.always) {
      session.resolveApproval({
        approved: false,
        reason:
          `nobody is here to approve this file: ${pending.runsLater.reason}; ` +
          'write it under another name or show its content in your answer'
      });
      return;
    }
    session.resolveApproval({ approved: true });
  });
}
