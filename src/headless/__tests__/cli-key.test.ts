/**
 * The command line's own key, found and printed by a cell the agent runs
 * (kernels run as the user and can read it), reaches neither the notebook
 * it writes nor the model: a private Jupyter server with a real kernel, the
 * real openai client against the scripted model server.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../agent/__tests__/fixtures/scripted-server';
import { main } from '../cli/cli';

jest.setTimeout(120_000);

const KEY = 'sk-cli-own-key-0123456789-abcdef';
/** Python that builds the key at run time: the cell's source holds no key. */
const PIECES = (KEY.match(/.{1,5}/g) ?? []).map(p => `'${p}'`).join(' + ');

let model: IScriptedServer;

beforeAll(async () => {
  model = await startScriptedServer();
});

afterAll(() => model?.stop());

it('a key a cell prints reaches neither the notebook nor the model', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'cli-key-'));
  await model.script([
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: `key = ${PIECES}\nprint('the key:', key)` }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'It printed the key.' }
  ]);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(
    [
      'generate',
      'Print the key',
      '--out',
      'key.ipynb',
      '--base-url',
      `${model.root}/v1`,
      '--api-key',
      KEY
    ],
    {
      out: line => stdout.push(line),
      err: line => stderr.push(line),
      env: { NOTEBOOK_AGENT_MODEL: 'scripted' },
      cwd
    }
  );
  expect(stdout).toEqual(['key.ipynb: verified']);
  expect(code).toBe(0);
  const saved = await readFile(join(cwd, 'key.ipynb'), 'utf8');
  expect(saved).not.toContain(KEY);
  const outputs = (
    JSON.parse(saved) as {
      cells: Array<{ outputs?: Array<{ text?: string | string[] }> }>;
    }
  ).cells.flatMap(cell => cell.outputs ?? []);
  expect(outputs.map(o => [o.text ?? ''].flat().join(''))).toEqual([
    'the key: [redacted]\n'
  ]);
  const requests = await model.received<{
    headers: Record<string, string>;
    body: { messages: Array<{ role: string; content: string }> };
  }>();
  expect(requests).toHaveLength(3);
  for (const request of requests) {
    expect(JSON.stringify(request.body)).not.toContain(KEY);
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
  }
  const last = requests[2].body.messages;
  expect(last[last.length - 1].content).toContain('the key: [redacted]');
  expect(stderr.join('\n')).not.toContain(KEY);
});
