import { MAX_READ_BYTES, type CellOutput } from '../ports';
import { FakeNotebook, type FakeExecutor } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { INSPECT_VARIABLES_CODE } from '../tools/kernel-tools';
import { ToolRegistry } from '../tools/registry';
import { RunState, DEFAULT_RUN_SETTINGS } from '../tools/run-state';

const stdout = (text: string): CellOutput => ({
  type: 'stream',
  name: 'stdout',
  text
});

function harness(notebook: FakeNotebook, settings = DEFAULT_RUN_SETTINGS) {
  const tools = new ToolRegistry(agentTools());
  const state = new RunState(settings);
  const signal = new AbortController().signal;
  const call = (name: string, args: unknown) =>
    tools.call(
      {
        id: 'c',
        name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args)
      },
      { notebook, signal, state }
    );
  return { call, state };
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

describe('reading tools', () => {
  it('read_notebook counts a long cell it elided as unseen: editing it answers "read_cell first"', async () => {
    const long = Array.from({ length: 300 }, (_, i) => `v${i} = ${i}`).join(
      '\n'
    );
    const notebook = new FakeNotebook({
      cells: [
        { id: 'short', source: 'x = 1' },
        { id: 'long', source: long }
      ]
    });
    const { call, state } = harness(notebook);
    const page = await call('read_notebook', {});
    expect(page.output).toContain('cell_id: long');
    expect(page.output).not.toContain(long);
    expect(state.seen.get('short')).toBe('x = 1');
    expect(state.seen.has('long')).toBe(false);
    const refused = await call('edit_cell', {
      cell_id: 'long',
      source: 'v0 = 0'
    });
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain('read_cell first');
    expect(notebook.cells[1].source).toBe(long);
    // After read_cell (the whole source), the edit goes through.
    await call('read_cell', { cell_id: 'long' });
    expect(
      (await call('edit_cell', { cell_id: 'long', source: 'v0 = 0' })).ok
    ).toBe(true);
    expect(notebook.cells[1].source).toBe('v0 = 0');
  });

  it('read_notebook pages, flags stale cells and out-of-order execution', async () => {
    const notebook = new FakeNotebook({
      cells: [
        { id: 'a', source: 'x = 1', executionCount: 2 },
        {
          id: 'b',
          source: 'y = x + 1  # edited',
          executionCount: 1,
          lastRunSource: 'y = x'
        },
        { id: 'c', type: 'markdown', source: '# Title' },
        ...Array.from({ length: 5 }, (_, i) => ({
          id: `p${i}`,
          source: `p${i}`
        }))
      ]
    });
    const { call, state } = harness(notebook);
    const first = await call('read_notebook', { limit: 3 });
    expect(first.output).toContain('cells 0–2 of 8');
    expect(first.output).toContain('cell_id: b');
    expect(first.output).toMatch(/y = x \+ 1 {2}# edited[\s\S]*stale/);
    expect(first.output).toContain(
      'run out of order (execution counts in cell order: 2, 1)'
    );
    expect(first.output).toContain('call read_notebook with start=3');
    expect(first.output).not.toContain('cell_id: p0');
    expect(state.seen.get('b')).toBe('y = x + 1  # edited');
    const next = await call('read_notebook', { start: 3, limit: 10 });
    expect(next.output).toContain('cells 3–7 of 8');
    expect(next.output).not.toContain('more cells');
  });

  it('read_cell returns the full source and outputs; read_output pages through long output', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const notebook = new FakeNotebook({
      cells: [
        {
          id: 'a',
          source: 'print(long)',
          executionCount: 1,
          outputs: [stdout(long)]
        }
      ]
    });
    const { call } = harness(notebook);
    const cell = await call('read_cell', { cell_id: 'a' });
    expect(cell.output).toContain('Source:\nprint(long)');
    expect(cell.output).toContain('characters elided');
    const page = await call('read_output', {
      cell_id: 'a',
      offset: 0,
      length: 1000
    });
    expect(page.output).toContain(`characters 0–1000 of ${long.length}`);
    expect(page.output).toContain('call read_output with offset=1000');
    const last = await call('read_output', {
      cell_id: 'a',
      offset: long.length - 20
    });
    expect(last.output.endsWith('line 2999')).toBe(true);
    expect((await call('read_cell', { cell_id: 'zz' })).output).toMatch(
      /no cell with id zz/
    );
  });
});

describe('editing tools', () => {
  it('edit_cell needs a read first and refuses when the user changed the cell since', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', source: 'df = load()' }]
    });
    const { call } = harness(notebook);
    const unread = await call('edit_cell', {
      cell_id: 'a',
      source: 'df = load(2)'
    });
    expect(unread.ok).toBe(false);
    expect(unread.output).toMatch(/whole source of cell a .*read_cell first/);
    await call('read_cell', { cell_id: 'a' });
    notebook.cells[0].source = 'df = load()  # user tweak';
    const refused = await call('edit_cell', {
      cell_id: 'a',
      source: 'df = load(2)'
    });
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain(
      'the user changed cell a since you read it'
    );
    expect(refused.output).toContain('df = load()  # user tweak');
    expect(notebook.cells[0].source).toBe('df = load()  # user tweak');
    const retried = await call('edit_cell', {
      cell_id: 'a',
      source: 'df = load(3)  # user tweak'
    });
    expect(retried.ok).toBe(true);
    expect(notebook.cells[0].source).toBe('df = load(3)  # user tweak');
  });

  it('delete_cell deletes only cells the agent created in this run', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'user', source: 'important()' }]
    });
    const { call } = harness(notebook);
    const refused = await call('delete_cell', { cell_id: 'user' });
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/not created by you/);
    const inserted = await call('insert_cell', {
      source: 'attempt()',
      after_cell_id: 'user'
    });
    expect((await call('delete_cell', { cell_id: inserted.cellId })).ok).toBe(
      true
    );
    expect(notebook.cells.map(c => c.id)).toEqual(['user']);
    const permissive = harness(notebook, {
      ...DEFAULT_RUN_SETTINGS,
      allowDeleteAnyCell: true
    });
    expect((await permissive.call('delete_cell', { cell_id: 'user' })).ok).toBe(
      true
    );
    expect(notebook.cells).toHaveLength(0);
  });

  it('accepts raw code (or a fenced block) instead of JSON arguments for code tools', async () => {
    const notebook = new FakeNotebook();
    const { call } = harness(notebook);
    const raw = await call(
      'insert_cell',
      'import pandas as pd\npd.__version__'
    );
    expect(raw.ok).toBe(true);
    expect(notebook.cells[0].source).toBe(
      'import pandas as pd\npd.__version__'
    );
    await call('insert_cell', '```python\nprint(1)\n```');
    expect(notebook.cells[1].source).toBe('print(1)');
    const stillJsonError = await call('edit_cell', '{"cell_id": "x"');
    expect(stillJsonError.output).toMatch(/not valid JSON/);
  });
});

describe('kernel tools', () => {
  it('run_cell returns partial output at the soft timeout, then wait picks the run up again', async () => {
    const slow: FakeExecutor = async (_source, signal) => {
      await sleep(150);
      if (signal.aborted) {
        throw new Error('interrupted');
      }
      return [stdout('finished\n')];
    };
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', source: 'slow()' }],
      execute: slow
    });
    const { call, state } = harness(notebook, {
      ...DEFAULT_RUN_SETTINGS,
      softTimeoutMs: 30
    });
    const first = await call('run_cell', { cell_id: 'a' });
    expect(first.ok).toBe(true);
    expect(first.output).toContain('cell_id: a');
    expect(state.running.has('a')).toBe(true);
    const done = await call('wait', { cell_id: 'a', seconds: 5 });
    expect(done.output).toContain('finished');
    expect(state.running.has('a')).toBe(false);
  });

  it('a hard timeout interrupts the kernel', async () => {
    const endless: FakeExecutor = (_source, signal) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('stop')))
      );
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', source: 'while True: pass' }],
      execute: endless
    });
    const { call } = harness(notebook, {
      ...DEFAULT_RUN_SETTINGS,
      softTimeoutMs: 5000,
      hardTimeoutMs: 40
    });
    const result = await call('run_cell', { cell_id: 'a' });
    expect(result.ok).toBe(false);
    expect(notebook.interrupts).toBeGreaterThan(0);
    expect(result.preview).toMatch(/^timeout/);
  });

  it('run_code runs scratch code without adding a cell', async () => {
    const notebook = new FakeNotebook({
      execute: source => [stdout(`ran: ${source}\n`)]
    });
    const { call } = harness(notebook);
    const result = await call('run_code', { code: 'df.dtypes' });
    expect(result.output).toContain('ran: df.dtypes');
    expect(notebook.cells).toHaveLength(0);
  });

  it('inspect_variables runs its probe and lists names, types and shapes', async () => {
    const seen: string[] = [];
    const notebook = new FakeNotebook({
      execute: source => {
        seen.push(source);
        return [
          stdout(
            JSON.stringify([
              {
                name: 'df',
                type: 'pandas.DataFrame',
                shape: [150, 5],
                repr: '   a  b'
              },
              {
                name: 'names',
                type: 'builtins.list',
                len: 3,
                repr: "['a', 'b', 'c']"
              }
            ]) + '\n'
          )
        ];
      }
    });
    const { call } = harness(notebook);
    const result = await call('inspect_variables', {});
    expect(seen).toEqual([INSPECT_VARIABLES_CODE]);
    expect(result.output).toBe(
      "df: pandas.DataFrame shape [150,5] =    a  b\nnames: builtins.list len 3 = ['a', 'b', 'c']"
    );
  });

  it('interrupt_kernel and restart_kernel act on the kernel', async () => {
    const notebook = new FakeNotebook();
    const { call } = harness(notebook);
    await call('interrupt_kernel', {});
    expect(notebook.interrupts).toBe(1);
    const restarted = await call('restart_kernel', {});
    expect(notebook.restarts).toBe(1);
    expect(restarted.output).toMatch(/all variables are gone/);
  });

  it('install_package uses %pip in the kernel and refuses anything but package names', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: source => (
        ran.push(source),
        [stdout('Successfully installed\n')]
      )
    });
    const { call } = harness(notebook);
    expect(
      (await call('install_package', { packages: 'seaborn scikit-learn>=1.3' }))
        .ok
    ).toBe(true);
    expect(ran).toEqual(['%pip install seaborn scikit-learn>=1.3']);
    const refused = await call('install_package', {
      packages: 'numpy; rm -rf ~'
    });
    expect(refused.ok).toBe(false);
    expect(ran).toHaveLength(1);
  });
});

describe('file and shell tools', () => {
  it('list_files and read_file stay inside the server root', async () => {
    const notebook = new FakeNotebook({
      files: { 'data/iris.csv': 'a,b\n1,2\n', 'notes.txt': 'hi' }
    });
    const { call } = harness(notebook);
    expect((await call('list_files', { path: 'data' })).output).toContain(
      'data/iris.csv'
    );
    expect(
      (await call('read_file', { path: 'data/iris.csv' })).output
    ).toContain('a,b\n1,2');
    const escape = await call('read_file', { path: '../../etc/passwd' });
    expect(escape.ok).toBe(false);
    expect(escape.output).toMatch(/inside the server root/);
    expect((await call('read_file', { path: 'missing.csv' })).output).toMatch(
      /no file "missing\.csv"[\s\S]*list_files/
    );
  });

  it('read_file says a file is too large to read, and how to look at it instead', async () => {
    const notebook = new FakeNotebook({
      files: {
        'logs/big.log': 'x'.repeat(MAX_READ_BYTES + 1),
        'logs/small.log': 'ok'
      }
    });
    const { call } = harness(notebook);
    const big = await call('read_file', { path: 'logs/big.log' });
    expect(big.ok).toBe(false);
    expect(big.output).toMatch(
      /Not read: logs\/big\.log is 5\.0 MB, too large[\s\S]*nrows=20/
    );
    expect(
      (await call('read_file', { path: 'logs/small.log' })).output
    ).toContain('ok');
  });

  it('read_file and list_files refuse every way out of the root and hidden files (prompt injection)', async () => {
    const notebook = new FakeNotebook({
      files: {
        'data/iris.csv': 'a,b\n1,2\n',
        '.ssh/id_rsa': 'PRIVATE KEY',
        'etc/passwd': 'root:x:0:0'
      }
    });
    const { call } = harness(notebook);
    const escapes = [
      '../../etc/passwd',
      'data/../../etc/passwd',
      '..',
      'data/..',
      '..\\..\\etc\\passwd',
      'data\\..\\..\\secret',
      '~/.ssh/id_rsa',
      ' ~root/.ssh/id_rsa',
      '.ssh/id_rsa',
      '/.ssh/id_rsa',
      './.ssh/id_rsa',
      'data/.env',
      '.git/config',
      'C:\\Users\\me\\.ssh\\id_rsa',
      'C:/Windows/win.ini',
      'file:///etc/passwd',
      'http://169.254.169.254/latest/meta-data',
      'data/iris.csv\u0000.txt'
    ];
    for (const path of escapes) {
      for (const tool of ['read_file', 'list_files']) {
        const result = await call(tool, { path });
        expect({ tool, path, ok: result.ok }).toEqual({
          tool,
          path,
          ok: false
        });
        expect(result.output).toMatch(/^Refused: /);
        expect(result.output).not.toContain('PRIVATE KEY');
        expect(result.output).not.toContain('root:x');
      }
    }
    // Root-relative spellings of a path inside the root still work.
    for (const path of [
      '/data/iris.csv',
      './data/iris.csv',
      'data//iris.csv'
    ]) {
      const result = await call('read_file', { path });
      expect(result.ok).toBe(true);
      expect(result.output).toContain('data/iris.csv (');
    }
    // An absolute path is read relative to the root, never from the file system root.
    expect((await call('read_file', { path: '/etc/passwd' })).output).toContain(
      'etc/passwd ('
    );
  });

  it("delete_cell never deletes the user's cells, whatever the model is told (prompt injection)", async () => {
    const notebook = new FakeNotebook({
      cells: [
        { id: 'data', source: "df = pd.read_csv('data.csv')" },
        { id: 'notes', type: 'markdown', source: '# My notes' }
      ]
    });
    const { call } = harness(notebook);
    await call('read_notebook', {});
    for (const id of ['data', 'notes', 'data', 'missing']) {
      const result = await call('delete_cell', { cell_id: id });
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(/^Refused: /);
    }
    expect((await notebook.getCells()).map(c => [c.id, c.source])).toEqual([
      ['data', "df = pd.read_csv('data.csv')"],
      ['notes', '# My notes']
    ]);
  });

  it('run_shell runs the command through the kernel with a timeout and reports the exit code', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: source => (
        ran.push(source),
        [stdout('total 0\n[exit code 0]\n')]
      )
    });
    const { call } = harness(notebook);
    const result = await call('run_shell', {
      command: 'ls -la "my dir"',
      timeout_s: 5
    });
    expect(result.ok).toBe(true);
    expect(ran[0]).toContain('_notebook_agent_shell("ls -la \\"my dir\\"", 5)');
    expect(ran[0]).toContain('stdin=subprocess.DEVNULL');
  });
});

describe('busy kernel', () => {
  it('run_cell says when the kernel was busy with something else', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', source: '1' }],
      execute: () => [stdout('1\n')]
    });
    notebook.state = 'busy';
    const { call } = harness(notebook);
    const result = await call('run_cell', { cell_id: 'a' });
    expect(result.output).toMatch(
      /^Note: the kernel was busy with another execution/
    );
    expect(result.output).toContain('1');
  });
});

describe('lenient tool arguments', () => {
  it('accepts raw newlines inside strings and trailing commas, as small models send them', async () => {
    const notebook = new FakeNotebook({
      execute: source => [stdout(`ran ${source.split('\n').length} lines\n`)]
    });
    const { call } = harness(notebook);
    const result = await call('run_code', '{"code": "x = 6\n\tprint(x * 7)",}');
    expect(result.output).toContain('ran 2 lines');
    const bad = await call('run_code', '{"code": ');
    expect(bad.output).toMatch(/not valid JSON/);
  });
});
