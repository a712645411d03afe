/**
 * The runs part: what runs the chat's tasks (the task runner, the agent
 * loop, the tools, MCP tool wrapping, the live ports and the kernel
 * engine). The core plugin hands the shell an `import()` of this module,
 * which the shell (../core/lazy-runs.ts) calls on the first Send, Retry,
 * Generate or Fix, or when the prompt is first focused; nothing of it
 * loads at JupyterLab's start.
 */
import { AgentSession } from '../../agent/session/agent-session';
import { liveTargets } from './live-targets';
import { runOptions } from './run-options';
import type { IRunsPart, IRunsShell } from '../core/runs-seam';

/** Build the runs part over the shell's chat. */
export function runsPart(shell: IRunsShell): IRunsPart {
  return {
    session: new AgentSession(runOptions(shell), shell.chat),
    ...liveTargets(shell)
  };
}
