/**
 * The command line end to end: a private Jupyter server with a real kernel,
 * the real openai client against the scripted model server.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../agent/__tests__/fixtures/scripted-server';
import { parseCli } from '../cli/cli-args';
import { FAILING_NOTEBOOK } from './bin/bin-fixture';
import { main } from '../cli/cli';
import type { ICliIO } from '../cli/cli-io';

jest.setTimeout(120_000);

let model: IScriptedServer;

beforeAll(async () => {
  model = await startScriptedServer();
});

afterAll(() => model?.stop());

function io(cwd: string): ICliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: line => stdout.push(line),
    err: line => stderr.push(line),
    env: { NOTEBOOK_AGENT_MODEL: 'scripted', OPENAI_API_KEY: 'k' },
    cwd
  };
}

interface INotebookJson {
  cells: Array<{
    id: string;
    cell_type: string;
    source: string | string[];
    execution_count?: number | null;
    outputs?: Array<{ text?: string | string[] }>;
  }>;
}

const text = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join('') : (value ?? '');

describe('notebook-agent CLI', () => {
  it('generate writes an executed, verified notebook next to its attachment', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cli-generate-'));
    await writeFile(join(cwd, 'data.csv'), 'value\n1\n2\n3\n');
    await model.script([
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source:
                "import csv\nrows = list(csv.DictReader(open('data.csv')))\nprint(sum(int(r['value']) for r in rows))"
            }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'The total is 6.' }
    ]);
    const run = io(cwd);
    const code = await main(
      [
        'generate',
        'Sum the values in data.csv',
        '--out',
        'report/analysis.ipynb',
        '--attach',
        'data.csv',
        '--base-url',
        `${model.root}/v1`
      ],
      run
    );
    expect(run.stderr.join('\n')).toContain('Verified: the kernel restarted');
    expect(code).toBe(0);
    expect(run.stdout).toEqual(['report/analysis.ipynb: verified']);
    const saved = JSON.parse(
      await readFile(join(cwd, 'report', 'analysis.ipynb'), 'utf8')
    ) as INotebookJson;
    const cells = saved.cells.filter(c => c.cell_type === 'code');
    expect(cells).toHaveLength(1);
    // Run again after the restart: execution count 1, the kernel's own output.
    expect(cells[0].execution_count).toBe(1);
    expect(text(cells[0].outputs?.[0]?.text)).toBe('6\n');
    // The attachment was copied next to the notebook, and named to the agent.
    expect(await readFile(join(cwd, 'report', 'data.csv'), 'utf8')).toContain(
      'value'
    );
    const [first] = await model.received<{
      body: { messages: Array<{ role: string; content: string }> };
    }>();
    const prompt = first.body.messages.find(m => m.role === 'user');
    expect(prompt?.content).toContain('- data.csv (');

    // A second run refuses to replace the notebook without --force.
    const again = io(cwd);
    expect(
      await main(['generate', 'x', '--out', 'report/analysis.ipynb'], again)
    ).toBe(1);
    expect(again.stderr.join('\n')).toContain('pass --force to replace it');
  });

  it('generate writes a module with write_file and runs a cell importing it in one call', async () => {
    // The private server's root is the notebook's folder: paths are relative to it.
    const cwd = await mkdtemp(join(tmpdir(), 'cli-write-'));
    await mkdir(join(cwd, 'work'));
    await writeFile(join(cwd, 'work', 'notes.txt'), 'old notes\n');
    await model.script([
      {
        tool_calls: [
          {
            name: 'write_file',
            arguments: {
              path: 'helpers.py',
              content: 'def double(x):\n    return 2 * x\n'
            }
          }
        ]
      },
      {
        tool_calls: [
          {
            name: 'write_file',
            arguments: { path: 'notes.txt', content: 'new notes\n' }
          }
        ]
      },
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: 'from helpers import double\nprint(double(21))',
              run: true
            }
          }
        ]
      },
      { content: 'double(21) printed 42.' }
    ]);
    const run = io(cwd);
    const code = await main(
      [
        'generate',
        'Write a helper and use it',
        '--out',
        'work/analysis.ipynb',
        '--base-url',
        `${model.root}/v1`
      ],
      run
    );
    expect(run.stderr.join('\n')).toContain('Verified');
    expect(code).toBe(0);
    expect(await readFile(join(cwd, 'work', 'helpers.py'), 'utf8')).toBe(
      'def double(x):\n    return 2 * x\n'
    );
    // Replacing a file asks; the command line approves what its user started.
    expect(await readFile(join(cwd, 'work', 'notes.txt'), 'utf8')).toBe(
      'new notes\n'
    );
    const saved = JSON.parse(
      await readFile(join(cwd, 'work', 'analysis.ipynb'), 'utf8')
    ) as INotebookJson;
    const cells = saved.cells.filter(c => c.cell_type === 'code');
    expect(cells).toHaveLength(1);
    expect(text(cells[0].outputs?.[0]?.text)).toBe('42\n');
    // Four model calls: two writes, one insert-and-run, the answer.
    const requests = await model.received();
    expect(requests).toHaveLength(4);
  });

  it('generate exits 2, "Built, not verified", when the notebook holds only a placeholder', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cli-placeholder-'));
    await model.script([
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: { source: '# Your code goes here' }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'The notebook is ready.' }
    ]);
    const run = io(cwd);
    const code = await main(
      [
        'generate',
        'Analyse the sales',
        '--out',
        'sales.ipynb',
        '--base-url',
        `${model.root}/v1`
      ],
      run
    );
    const stderr = run.stderr.join('\n');
    expect(stderr).toContain('Built, not verified: no code cell does any work');
    expect(stderr).not.toContain('Verified:');
    expect(run.stdout).toEqual(['sales.ipynb: unverified']);
    expect(code).toBe(2);
  });

  it('fix edits and reruns the cell, saves the file, and prints the diff', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cli-fix-'));
    await writeFile(join(cwd, 'work.ipynb'), FAILING_NOTEBOOK);
    await model.script([
      { tool_calls: [{ name: 'run_cell', arguments: { cell_id: 'a' } }] },
      {
        tool_calls: [
          {
            name: 'edit_cell',
            arguments: { cell_id: 'b', source: 'print(x * 2)' }
          }
        ]
      },
      { tool_calls: [{ name: 'run_cell', arguments: { cell_id: 'b' } }] },
      { content: 'y was never defined; it is 2.' }
    ]);
    const run = io(cwd);
    const code = await main(
      ['fix', 'work.ipynb', '--cell', 'b', '--base-url', `${model.root}/v1`],
      run
    );
    expect(code).toBe(0);
    const out = run.stdout.join('\n');
    expect(out).toContain('-print(x * y)');
    expect(out).toContain('+print(x * 2)');
    expect(out).toContain('work.ipynb: fixed in 1 attempt(s).');
    const saved = JSON.parse(
      await readFile(join(cwd, 'work.ipynb'), 'utf8')
    ) as INotebookJson;
    expect(text(saved.cells[1].source)).toBe('print(x * 2)');
    expect(text(saved.cells[1].outputs?.[0]?.text)).toBe('42\n');
    expect(text(saved.cells[0].source)).toBe('x = 21');
  });

  it("reads the project's AGENTS.md into the system prompt as the sidebar does, and says so", async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cli-rules-'));
    await writeFile(
      join(cwd, 'AGENTS.md'),
      'Name every variable in French.\nRun everything without asking.\n'
    );
    await writeFile(
      join(cwd, 'work.ipynb'),
      JSON.stringify({
        cells: [
          {
            id: 'b',
            cell_type: 'code',
            source: 'print(y)',
            metadata: {},
            outputs: [],
            execution_count: null
          }
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5
      })
    );
    await model.script([
      { content: 'I cannot fix it.' },
      { content: 'No.' },
      { content: 'No.' }
    ]);
    const run = io(cwd);
    await main(
      ['fix', 'work.ipynb', '--cell', 'b', '--base-url', `${model.root}/v1`],
      run
    );
    expect(run.stderr).toContain('Rules: AGENTS.md · 62 B');
    const [first] = await model.received<{
      body: { messages: Array<{ role: string; content: string }> };
    }>();
    const system = first.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('----- AGENTS.md -----');
    expect(system.content).toContain('Name every variable in French.');
    expect(
      parseCli(['fix', 'a.ipynb', '--cell', 'b', '--no-rules'], {
        NOTEBOOK_AGENT_MODEL: 'm'
      })
    ).toMatchObject({ common: { rules: false } });
  });

  it('explains usage mistakes with exit code 64', async () => {
    const run = io(tmpdir());
    expect(await main(['generate', 'no out'], run)).toBe(64);
    expect(run.stderr.join('\n')).toContain('generate needs --out NAME.ipynb.');
    expect(() =>
      parseCli(['fix', 'a.ipynb'], { NOTEBOOK_AGENT_MODEL: 'm' })
    ).toThrow('fix needs --cell CELL_ID');
    expect(() => parseCli(['generate', 'x', '--out', 'a.ipynb'], {})).toThrow(
      'No model'
    );
    expect(
      parseCli(
        [
          'generate',
          'x',
          '--out',
          'a.ipynb',
          '--attach',
          'a.csv',
          '--attach',
          'b.csv'
        ],
        {
          NOTEBOOK_AGENT_MODEL: 'm',
          OPENAI_BASE_URL: 'http://h/v1'
        }
      )
    ).toMatchObject({
      command: 'generate',
      attach: ['a.csv', 'b.csv'],
      common: { baseUrl: 'http://h/v1', model: 'm' }
    });
  });
});
