/**
 * The command line's approvals (nobody is there to answer): calls are
 * approved, but a file that runs or steers every later run is refused with
 * the reason, in "run everything" too; an ordinary file is written.
 */
import { AgentSession } from '../../agent/session';
import { FakeNotebook } from '../../agent/testing/fake-notebook';
import { ScriptedModel } from '../../agent/testing/scripted-model';
import { agentTools } from '../../agent/tools/all-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { autoApprove } from '../cli/auto-approve';

async function writeAs(path: string) {
  const notebook = new FakeNotebook({ path: 'work/a.ipynb' });
  const model = new ScriptedModel([
    {
      toolCalls: [
        { name: 'write_file', arguments: { path, content: 'import os\n' } }
      ]
    },
    { text: 'Done.' }
  ]);
  const session = new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => 'run-everything'
  });
  const stop = autoApprove(session, { ownsKernel: () => true });
  try {
    await session.send('write it', { model: () => model, notebook });
  } finally {
    stop();
  }
  const tool = model.requests[1].messages.find(m => m.role === 'tool');
  return { notebook, observation: tool?.content ?? '' };
}

describe('auto-approval on the command line', () => {
  it('refuses a .pth under site-packages, with the reason', async () => {
    const path = 'venv/lib/python3.11/site-packages/zz_agent.pth';
    const { notebook, observation } = await writeAs(path);
    expect(notebook.files.has(path)).toBe(false);
    expect(observation).toContain('nobody is here to approve this file');
  });

  it('refuses AGENTS.md', async () => {
    const { notebook } = await writeAs('work/AGENTS.md');
    expect(notebook.files.has('work/AGENTS.md')).toBe(false);
  });

  it('writes an ordinary file', async () => {
    const { notebook } = await writeAs('work/notes.txt');
    expect(notebook.files.get('work/notes.txt')).toBe('import os\n');
  });
});
