/**
 * CI's real-model Fix case: a real small model (Qwen2.5-Coder-0.5B-Instruct
 * on llama.cpp's `llama-server`, as in ./one-task.test.ts) behind the
 * Notebook Agent proxy of a real Jupyter server fixes one broken cell of
 * the Fix set (eval/tasks/fix.json) the way "Fix this cell" runs: the
 * user's cells run first (the broken one shows its error), then the
 * session's fixCell. Passes when that cell was fixed in place, runs
 * without error, its result matches (the task's checker in the kernel)
 * and the review shows the diff.
 *
 * Greedy sampling, the model and server cached by the test command's
 * install step. Not in the default Jest roots (`npm run test:real-model`).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capabilitiesFor } from '../../src/agent/model/capabilities';
import { JupyterServerProcess } from '../../src/headless/servers/jupyter-server';
import {
  startLlamaServer,
  type ILlamaServer
} from '../../src/headless/servers/llama-server-process';
import { loadSessionSet } from '../src/sets/load';
import { runSessionSet } from '../src/sets/run-set';

const REPO = join(__dirname, '..', '..');

/** The broken cell: a misspelt column, the kind met first. */
const TASK = process.env.REAL_MODEL_FIX_TASK ?? 'fix-column-typo';

/** A hang guard, not a speed bound. */
const HANG_GUARD_MS = 600_000;

let llama: ILlamaServer | null = null;
let jupyter: JupyterServerProcess | null = null;

beforeAll(async () => {
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

describe('a real small model fixes a cell through the agent', () => {
  it(
    `${TASK}: the cell is fixed in place, runs, its result is right, and the review shows the diff`,
    async () => {
      const server = jupyter!;
      const out = await mkdtemp(join(tmpdir(), 'real-model-fix-'));
      expect(capabilitiesFor(llama!.model).profile).toBe('small');
      const set = await loadSessionSet(join(REPO, 'eval', 'tasks', 'fix.json'));
      if (set.kind !== 'fix') {
        throw new Error('fix.json is not a Fix set');
      }
      set.tasks = set.tasks.filter(task => task.id === TASK);
      expect(set.tasks).toHaveLength(1);
      const [row] = await runSessionSet(set, {
        // The browser's path: the proxy of the Jupyter server, its token as the key.
        endpoint: {
          baseUrl: `${server.baseUrl}notebook-agent/v1`,
          model: llama!.model,
          apiKey: server.token
        },
        concurrency: 1,
        timeoutS: 480,
        maxSteps: 8,
        server: { url: server.baseUrl, token: server.token },
        notebooksDir: join(out, 'notebooks'),
        runId: 'real-model-fix-ci'
      });
      const transcript = await readFile(
        join(out, 'transcripts', `${TASK}.json`),
        'utf8'
      ).catch(() => '(no transcript)');
      const summary =
        `${row.status}, ${row.attempts} attempt(s): ${row.detail}` +
        (row.success ? '' : `\n${transcript.slice(-4000)}`);
      expect({ success: row.success, summary }).toEqual({
        success: true,
        summary
      });
      expect(row).toMatchObject({
        failedBefore: true,
        inPlace: true,
        runsClean: true,
        checkPassed: true,
        reviewShown: true,
        cellsAdded: 0
      });
    },
    HANG_GUARD_MS
  );
});
