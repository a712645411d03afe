/**
 * What a server enforces, remembered per server: a small model on a server
 * that lets it answer in plain text when a tool call was required (measured:
 * llama-server with Qwen2.5-Coder) gets the text protocol on the next task,
 * with a notice; a protocol the user chose is kept. The real `openai`
 * client over HTTP against the scripted model server.
 */
import { OpenAIChatClient } from '../model/openai-client';
import { AgentSession } from '../session/agent-session';
import { prepareRun, TEXT_FALLBACK_NOTICE } from '../session/run-setup';
import type { ISessionOptions } from '../session/types';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { smallModelTools } from '../tools/small-model-tools';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => {
  server?.stop();
});

interface IRecorded {
  body: { tool_choice?: unknown; tools?: unknown[] };
}

function smallOptions(chosen = false): ISessionOptions {
  return {
    tools: new ToolRegistry(agentTools()),
    smallTools: new ToolRegistry(smallModelTools()),
    profile: () => 'small',
    toolProtocol: () => 'native',
    toolProtocolChosen: () => chosen,
    approvalMode: () => 'run-everything',
    maxSteps: () => 6
  };
}

describe('a server that does not enforce tool calls', () => {
  it('is remembered by its client, and the next task of a small model writes code blocks, with a notice', async () => {
    await server.script([
      // Task 1: a guess; the repair requires a call; the server lets the
      // model answer in text again (and again after the second repair).
      { content: 'There are 2000 orders.' },
      { content: 'There are 2000 orders.' },
      { content: 'There are 2000 orders.' },
      // Task 2, text protocol: code, then the answer from its output.
      { content: '```python\nprint(40 + 2)\n```' },
      { content: 'ANSWER: 42' }
    ]);
    const client = new OpenAIChatClient({
      baseURL: `${server.root}/v1`,
      model: 'qwen2.5-coder-0.5b-instruct'
    });
    const session = new AgentSession(smallOptions());
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '42\n' }]
    });
    const target = { model: () => client, notebook };
    await session.send('How many orders does the data hold?', target);
    expect(client.forcesToolCalls()).toBe(false);
    const first = await server.received<IRecorded>();
    expect(first.map(r => r.body.tool_choice)).toEqual([
      undefined,
      'required',
      'required'
    ]);
    expect(notebook.cells).toHaveLength(0);

    await session.send('What is 40 + 2? Compute it.', target);
    const second = (await server.received<IRecorded>()).slice(first.length);
    // No tools offered: the reply's code block is what runs.
    expect(second.map(r => r.body.tools)).toEqual([undefined, undefined]);
    expect(notebook.cells.map(c => c.source)).toEqual(['print(40 + 2)']);
    const notices = session
      .getSnapshot()
      .items.flatMap(i => (i.kind === 'notice' ? [i.text] : []));
    // The first task's two repairs, then the fallback, once.
    expect(notices.filter(t => t === TEXT_FALLBACK_NOTICE)).toHaveLength(1);
    expect(notices[notices.length - 1]).toBe(TEXT_FALLBACK_NOTICE);
  });

  it('keeps native calls where the server enforces them, for the standard profile, and where the user chose them', () => {
    const tools = new ToolRegistry(agentTools());
    const protocolOf = (
      forces: boolean | undefined,
      options: ISessionOptions
    ) => {
      const model = Object.assign(new ScriptedModel([]), {
        forcesToolCalls: () => forces
      });
      const setup = prepareRun(options, model, 'n.ipynb', tools);
      return [setup.computeFirst?.protocol ?? 'standard', setup.notice ?? ''];
    };
    expect(protocolOf(false, smallOptions())).toEqual([
      'text',
      TEXT_FALLBACK_NOTICE
    ]);
    expect(protocolOf(true, smallOptions())).toEqual(['native', '']);
    expect(protocolOf(undefined, smallOptions())).toEqual(['native', '']);
    expect(protocolOf(false, smallOptions(true))).toEqual(['native', '']);
    expect(
      protocolOf(false, { ...smallOptions(), profile: () => 'standard' })
    ).toEqual(['standard', '']);
  });
});
