/**
 * A real model: llama.cpp's `llama-server` (the binary and the
 * Qwen2.5-Coder-0.5B GGUF that scripts/real_model.py sets up, each checked
 * against a pinned sha256) behind the Notebook Agent proxy of a real Jupyter
 * server, with the agent running code in a real kernel.
 *
 * The model is small, so the tool turn offers only `run_code` and requires a
 * call; llama-server reads the model's ```json block as that call through
 * scripts/chat-templates/qwen2.5-coder-json-calls.jinja. Only the plumbing is
 * asserted, not the quality of what it writes.
 */
import { join } from 'path';
import { runAgent } from '../../agent/loop/run-agent';
import { arrayConversation } from '../../agent/loop/conversation';
import { runConfig } from '../../agent/loop/run-config';
import { TurnAccumulator } from '../../agent/model/accumulator';
import { OpenAIChatClient } from '../../agent/model/openai-client';
import type { IChatRequest, IModelClient } from '../../agent/model/types';
import { agentTools } from '../../agent/tools/all-tools';
import { parseLenientJson } from '../../agent/tools/lenient-json';
import { ToolRegistry } from '../../agent/tools/registry';
import type { ChatMessage } from '../../agent/types';
import { JupyterServerProcess } from '../servers/jupyter-server';
import {
  startLlamaServer,
  type ILlamaServer
} from '../servers/llama-server-process';
import { ServerNotebookPort } from '../server-port/server-port';

/**
 * A hang guard for the agent run, not a speed bound (the test command runs
 * lanes at once, so the model shares two cores with the UI suites).
 */
const HANG_GUARD_MS = 300000;

const REPO = join(__dirname, '..', '..', '..');

let llama: ILlamaServer;
let server: JupyterServerProcess;
let port: ServerNotebookPort;

function client(): OpenAIChatClient {
  // Jupyter accepts its token as a Bearer token; the proxy forwards to llama.cpp.
  return new OpenAIChatClient({
    baseURL: `${server.baseUrl}notebook-agent/v1`,
    apiKey: server.token,
    model: ''
  });
}

beforeAll(async () => {
  llama = await startLlamaServer({
    repo: REPO,
    model: 'qwen2.5-coder-0.5b',
    args: [
      ...['--jinja', '--chat-template-file'],
      join(REPO, 'scripts', 'chat-templates', 'qwen2.5-coder-json-calls.jinja'),
      ...['-c', '4096', '-t', '2', '--parallel', '1', '-n', '256']
    ]
  });
  server = await JupyterServerProcess.start({
    extraArgs: [
      `--NotebookAgent.base_url=${llama.baseUrl}`,
      `--NotebookAgent.model=${llama.model}`
    ]
  });
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'llama.ipynb',
    createIfMissing: true
  });
}, 120000);

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
  llama?.stop();
});

describe('a real llama.cpp server through the proxy', () => {
  it('streams a plain text turn', async () => {
    const accumulator = new TurnAccumulator();
    let chunks = 0;
    const stream = client().streamChat(
      {
        messages: [{ role: 'user', content: 'Say hello in five words.' }],
        tools: []
      },
      new AbortController().signal
    );
    for await (const chunk of stream) {
      chunks += 1;
      accumulator.add(chunk);
    }
    const turn = accumulator.result();
    expect(chunks).toBeGreaterThan(2);
    expect(turn.text.trim().length).toBeGreaterThan(0);
    expect(turn.toolCalls).toEqual([]);
  }, 60000);

  it(
    'completes an agent run whose tool call runs in a real kernel',
    async () => {
      const real = client();
      const requests: IChatRequest[] = [];
      // The first step may only call run_code; then the answer, in words.
      // Both requests offer run_code alone: with every tool's schema in the
      // second prompt, its prefill on two cores made this file take 117 s
      // (16 s now, on CI's kind of machine).
      const forcing: IModelClient = {
        model: real.model,
        streamChat: (request, signal) => {
          const first = requests.length === 0;
          requests.push(request);
          const tools = request.tools.filter(t => t.name === 'run_code');
          const forced: IChatRequest = {
            ...request,
            tools,
            toolChoice: first ? 'required' : 'none'
          };
          return real.streamChat(forced, signal);
        }
      };
      const messages: ChatMessage[] = [
        {
          role: 'system',
          content: 'You are a Python assistant. Use run_code to compute.'
        },
        { role: 'user', content: 'Compute 6 * 7 with Python.' }
      ];
      const outcome = await runAgent(
        runConfig({
          model: forcing,
          tools: new ToolRegistry(agentTools()),
          approvalMode: 'run-everything',
          maxSteps: 2,
          contextTokens: 4096
        }),
        {
          notebook: port,
          conversation: arrayConversation(messages),
          signal: new AbortController().signal,
          onEvent: () => undefined
        }
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.reason).toBe('completed');
      expect(requests[0].tools.map(t => t.name)).toContain('run_code');
      const call = messages.find(
        m => m.role === 'assistant' && m.toolCalls?.length
      );
      expect(call?.role === 'assistant' && call.toolCalls?.[0].name).toBe(
        'run_code'
      );
      const args = parseLenientJson(
        (call?.role === 'assistant' && call.toolCalls?.[0].arguments) || 'null'
      ) as { code?: unknown };
      expect(typeof args.code).toBe('string');
      const observation = messages.find(m => m.role === 'tool');
      // The kernel ran whatever the model wrote and answered (ok or with an error).
      expect(observation?.content).toMatch(/^The scratch code /);
      const answer = messages[messages.length - 1];
      expect(answer.role).toBe('assistant');
      expect(String(answer.content ?? '').trim().length).toBeGreaterThan(0);
    },
    HANG_GUARD_MS
  );
});
