/**
 * What runs an outside agent's calls in this page, loaded with the first
 * call (./outside-channel.ts): the runs part's live port of the notebook,
 * the agent's own tools (those of the outside catalogue) and the sidebar
 * chat's `OutsideSession`, where the run shows with its approval cards,
 * Stop and one Undo.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { OUTSIDE_TOOLS } from '../../agent/outside/catalogue';
import { textResult } from '../../agent/outside/mcp-result';
import { OutsideSession } from '../../agent/outside/outside-session';
import type { ApprovalMode } from '../../agent/loop/approval';
import { agentTools } from '../../agent/tools/all-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import type { IRunsPart } from '../core/runs-seam';
import type { IOutsideCallMessage, IOutsideRunner } from './outside-channel';

/** The runner of outside calls over the loaded runs part. */
export function outsideRunner(
  part: IRunsPart,
  approvalMode: () => ApprovalMode
): IOutsideRunner {
  const names = new Set(OUTSIDE_TOOLS.map(([name]) => name));
  const tools = new ToolRegistry(
    agentTools().filter(tool => names.has(tool.name))
  );
  const outside = new OutsideSession(part.session);
  return {
    async run(call: IOutsideCallMessage, panel: NotebookPanel) {
      const notebook = part.portFor(panel);
      if (!notebook) {
        return textResult(`${panel.context.localPath} is not open.`, true);
      }
      return outside.call(call, {
        notebook,
        tools,
        approvalMode: approvalMode()
      });
    },
    ended(session: string) {
      outside.sessionEnded(session);
    }
  };
}
