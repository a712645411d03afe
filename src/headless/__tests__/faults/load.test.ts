/**
 * Load: 20 agent runs at once, each in its own notebook and kernel on one
 * Jupyter server, half calling the scripted model directly and half through
 * the server extension's proxy. Each run has its own script (selected by a
 * marker in its prompt), so any mix-up of notebooks, kernels or streams
 * shows as a wrong value. Afterwards no kernel or session is left behind.
 */
import { KernelAPI, SessionAPI } from '@jupyterlab/services';
import { ServerNotebookPort } from '../../server-port/server-port';
import { runAgentOnce } from './agent-run';
import { FaultSummary } from './fault-summary';
import {
  kernelEvents,
  SECRET,
  startFaultStack,
  type IFaultStack,
  type Route
} from './fault-stack';
import {
  notebookDelta,
  sourcesOf,
  sourcesOnDisk,
  writeUserNotebook
} from './user-notebook';
import { SERVER_START_MS } from '../server-start';

jest.setTimeout(600000);

const RUNS = 20;
/** How many kernels are started at once. */
const OPEN_AT_ONCE = 5;
const summary = new FaultSummary('load (20 concurrent runs)', () =>
  kernelEvents(stack?.jupyter)
);
let stack: IFaultStack;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  stack = await startFaultStack();
}, SERVER_START_MS);

afterAll(async () => {
  summary.print();
  await stack?.dispose();
}, 30000);

function script(i: number): unknown[] {
  return [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: `value = ${i} * ${i}\nprint('value', value)` }
        }
      ],
      chunk_size: 5
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    {
      tool_calls: [
        { name: 'run_code', arguments: { code: 'print(value + 1)' } }
      ]
    },
    { content: `The value is ${i * i}.`, chunk_size: 3 }
  ];
}

it('completes 20 concurrent runs in 20 notebooks on one server', async () => {
  const settings = stack.jupyter.serverSettings;
  const started = Date.now();
  const runs = Array.from({ length: RUNS }, (_, i) => i);
  // Kernels start a few at a time: twenty ipykernels importing at once on
  // a two-core CI machine can take minutes, which measures the machine,
  // not us. The agent runs below are all concurrent.
  const ports: ServerNotebookPort[] = [];
  try {
    for (let first = 0; first < RUNS; first += OPEN_AT_ONCE) {
      ports.push(
        ...(await Promise.all(
          runs.slice(first, first + OPEN_AT_ONCE).map(async i => {
            await writeUserNotebook(settings, `load-${i}.ipynb`);
            await stack.model.script(script(i), `run-${i}`);
            return ServerNotebookPort.open({
              serverSettings: settings,
              path: `load-${i}.ipynb`,
              kernelStartTimeoutMs: 150000
            });
          })
        ))
      );
    }
    const befores = await Promise.all(
      ports.map(async port => sourcesOf(await port.getCells()))
    );
    const opened = Date.now();
    await Promise.all(
      runs.map(i =>
        summary.run(`run ${i}`, async findings => {
          const route: Route = i % 2 ? 'proxy' : 'direct';
          const report = await runAgentOnce({
            model: stack.client(route),
            notebook: ports[i],
            prompt: `[[script:run-${i}]] Compute the value.`,
            limitMs: 120000
          });
          const cells = await ports[i].getCells();
          const delta = notebookDelta(
            befores[i].map(([id, source]) => ({
              id,
              source,
              type: 'code' as const,
              executionCount: null,
              outputs: []
            })),
            cells
          );
          await ports[i].save();
          const disk = await sourcesOnDisk(settings, `load-${i}.ipynb`);
          findings.cellsLost =
            delta.lost.length +
            befores[i].filter(
              ([id, s]) => !disk.some(([d, t]) => d === id && t === s)
            ).length;
          findings.leaks = report.transcript.includes(SECRET) ? 1 : 0;
          expect(report.error).toBeNull();
          expect(report.outcome?.reason).toBe('completed');
          const tools = report.session.history
            .filter(m => m.role === 'tool')
            .map(m => m.content as string);
          expect(tools[1]).toMatch(
            new RegExp(`finished OK[\\s\\S]*value ${i * i}\\b`)
          );
          expect(tools[2]).toMatch(
            new RegExp(`finished OK[\\s\\S]*\\b${i * i + 1}\\b`)
          );
          expect(delta.lost).toEqual([]);
          expect(delta.added).toHaveLength(1);
          const [added] = delta.added;
          expect(added.outputs).toEqual([
            { type: 'stream', name: 'stdout', text: `value ${i * i}\n` }
          ]);
          expect(ports[i].undo()).toBe(true);
          expect(sourcesOf(await ports[i].getCells())).toEqual(befores[i]);
        })
      )
    );
    process.stdout.write(
      `\n[load] ${RUNS} notebooks and kernels opened in ${opened - started} ms; ` +
        `${RUNS} concurrent runs took ${Date.now() - opened} ms\n`
    );
  } finally {
    await Promise.all(ports.map(port => port.close({ shutdownKernel: true })));
  }
  // Nothing left behind on the server.
  expect(await KernelAPI.listRunning(settings)).toEqual([]);
  expect(
    await new SessionAPI.SessionAPIClient({
      serverSettings: settings
    }).listRunning()
  ).toEqual([]);
});
