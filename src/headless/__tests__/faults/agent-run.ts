/**
 * One agent run as the fault cases drive it: the real AgentSession, tools
 * and loop (as the CLI builds them: nobody to approve, so everything runs),
 * over a real ServerNotebookPort, with a hard limit on how long the run may
 * take before the case fails as a hang.
 */
import type { IRunOutcome } from '../../../agent/loop/run-agent';
import type { IModelClient } from '../../../agent/model/types';
import type { INotebookPort } from '../../../agent/ports';
import { AgentSession } from '../../../agent/session';
import { agentTools } from '../../../agent/tools/all-tools';
import { ToolRegistry } from '../../../agent/tools/registry';
import type { IRunSettings } from '../../../agent/tools/run-state';
import type { IAgentError } from '../../../agent/types';
import { autoApprove } from '../../cli/auto-approve';

/** What a run ended with, as the user would see it. */
export interface IRunReport {
  outcome: IRunOutcome | undefined;
  error: IAgentError | null;
  /** Milliseconds from send to the end of the run. */
  ms: number;
  session: AgentSession;
  /** Everything the transcript shows, as one text (for leak checks). */
  transcript: string;
}

/** Limits for the runs of the fault suites: short, so faults show quickly. */
export const FAULT_RUN_SETTINGS: IRunSettings = {
  softTimeoutMs: 5000,
  hardTimeoutMs: 8000,
  allowDeleteAnyCell: false
};

/**
 * Send `prompt` and wait for the run to end; fails (as a hang) when it
 * takes longer than `limitMs`, after stopping it.
 */
export async function runAgentOnce(options: {
  model: IModelClient;
  notebook: INotebookPort;
  prompt: string;
  limitMs: number;
  maxSteps?: number;
  runSettings?: IRunSettings;
  /** Called once the run started (e.g. to inject a fault mid-run). */
  during?: (session: AgentSession) => void;
  /** Answer approvals as the command line does (it owns the kernel when this says so). */
  ownsKernel?: () => boolean;
}): Promise<IRunReport> {
  const session = new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => 'run-everything',
    maxSteps: () => options.maxSteps ?? 6,
    runSettings: () => options.runSettings ?? FAULT_RUN_SETTINGS
  });
  if (options.ownsKernel) {
    autoApprove(session, { ownsKernel: options.ownsKernel });
  }
  const started = Date.now();
  const run = session.send(options.prompt, {
    model: () => options.model,
    notebook: options.notebook
  });
  if (!run) {
    throw new Error('the run did not start');
  }
  options.during?.(session);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<'hang'>(resolve => {
    timer = setTimeout(() => resolve('hang'), options.limitMs);
  });
  const outcome = await Promise.race([run, hang]);
  clearTimeout(timer);
  if (outcome === 'hang') {
    session.stop();
    await run;
    throw new Error(
      `the run did not end within ${options.limitMs} ms (a hang)`
    );
  }
  const snapshot = session.getSnapshot();
  return {
    outcome,
    error: snapshot.error,
    ms: Date.now() - started,
    session,
    transcript: JSON.stringify({
      items: snapshot.items,
      error: snapshot.error,
      history: session.history
    })
  };
}
