/**
 * The Generate set's runner and judge: end to end (a private Jupyter
 * server and real kernels, the product's AgentSession `generate` in a new
 * notebook beside the named file, the scripted model), a notebook that
 * reads the file and prints the asked value succeeds, one that invents its
 * data is flagged; and the judge's parts alone: prose in code cells, files
 * read, invented data, values in the outputs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../src/agent/__tests__/fixtures/scripted-server';
import type { CellOutput, ICellSnapshot } from '../../src/agent/ports';
import {
  analyseCells,
  judgeNotebook,
  missingValues,
  numbersIn,
  summaryHonesty
} from '../src/sets/generate';
import { generateMarkdown } from '../src/sets/report';
import { runSessionSet } from '../src/sets/run-set';
import type { IGenerateTask, SessionSet } from '../src/sets/types';

let model: IScriptedServer;
let dir: string;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  model = await startScriptedServer();
  dir = await mkdtemp(join(tmpdir(), 'eval-generate-'));
  await writeFile(join(dir, 'data.csv'), 'a,b\n1,x\n2,y\n3,z\n');
});

afterAll(async () => {
  model?.stop();
  await rm(dir, { recursive: true, force: true });
});

const SHOW_IMAGE =
  'import base64\nfrom IPython.display import Image, display\n' +
  "display(Image(data=base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==')))";

const insert = (source: string, extra: Record<string, unknown> = {}) => ({
  tool_calls: [{ name: 'insert_cell', arguments: { source, ...extra } }]
});

const task = (id: string): IGenerateTask => ({
  id,
  category: 'aggregation',
  files: ['data.csv'],
  request: 'Analyse data.csv: the total of column a, and a plot of it.',
  values: [{ expected_key: 'total', tolerance: 0 }],
  plots: 1
});

describe('the Generate set', () => {
  it('counts a verified notebook that reads the file; flags one that invents data', async () => {
    const set: SessionSet = {
      kind: 'generate',
      name: 'tiny-generate',
      dataDir: dir,
      expected: { total: 6 },
      tasks: [task('reads-the-file'), task('invents-data')]
    };
    await model.script([
      // reads-the-file
      insert('# Column a of data.csv\nThe total, and a plot.', {
        cell_type: 'markdown'
      }),
      insert(
        "import pandas as pd\ndf = pd.read_csv('data.csv')\ntotal = int(df['a'].sum())\nprint('total:', total)",
        { run: true }
      ),
      insert(SHOW_IMAGE, { run: true }),
      insert('## Summary\nThe total of column a is 6.', {
        cell_type: 'markdown'
      }),
      { content: 'The notebook is ready.' },
      // invents-data: a sample frame of its own, the file never read.
      insert('# Column a\nA sample dataset.', { cell_type: 'markdown' }),
      insert(
        "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})\nprint('total:', df['a'].sum())",
        { run: true }
      ),
      insert(SHOW_IMAGE, { run: true }),
      insert('## Summary\nThe total of column a is 6.', {
        cell_type: 'markdown'
      }),
      { content: 'The notebook is ready.' }
    ]);
    const rows = await runSessionSet(set, {
      endpoint: {
        baseUrl: `${model.root}/v1`,
        model: 'scripted-model',
        apiKey: 'unused'
      },
      concurrency: 1,
      timeoutS: 120,
      notebooksDir: join(dir, 'out', 'notebooks')
    });
    const [reads, invents] = rows;
    expect(reads).toMatchObject({
      success: true,
      status: 'verified',
      verified: true,
      titleCell: true,
      proseCells: 0,
      markdownOk: true,
      filesUsed: true,
      invented: [],
      valuesFound: true,
      images: 1,
      plotsOk: true,
      codeCells: 2,
      markdownCells: 2
    });
    expect(reads.detail).toBe('verified, complete');
    expect(reads.wallS).toBeGreaterThan(0);
    expect(invents).toMatchObject({
      success: false,
      verified: true,
      filesUsed: false,
      filesMissing: ['data.csv'],
      invented: ['cell 2: a DataFrame built from literal numbers']
    });
    expect(invents.detail).toMatch(
      /not read: data\.csv; invented data: cell 2/
    );
    const markdown = generateMarkdown(
      {
        set: 'tiny-generate',
        kind: 'generate',
        model: 'scripted-model',
        label: 'scripted',
        agent: 'standard profile, native protocol',
        concurrency: 1,
        timeoutS: 120,
        maxSteps: 20,
        startedAt: 'now',
        wallS: 1
      },
      rows,
      [1]
    );
    expect(markdown).toMatch(/\*\*Success: 1\/2 \(50 %\)\*\*/);
    expect(markdown).toMatch(/files used 1 \(invented data in 1\)/);
    expect(markdown).toMatch(/min per notebook/);
  }, 240_000);
});

const code = (source: string, outputs: CellOutput[] = []): ICellSnapshot => ({
  id: Math.random().toString(36).slice(2),
  type: 'code',
  source,
  outputs,
  executionCount: 1
});
const markdown = (source: string): ICellSnapshot => ({
  id: Math.random().toString(36).slice(2),
  type: 'markdown',
  source,
  outputs: [],
  executionCount: null
});

describe('the Generate judge', () => {
  it('finds prose in code cells: a title, a plan, a table pasted back', async () => {
    const analysis = await analyseCells(
      [
        code('# Sales analysis\n# Plan: load, group, plot'),
        code('Sales analysis\nThis notebook loads sales.csv.'),
        code('   region  revenue\n0  North   12.5'),
        code('%matplotlib inline\nimport pandas as pd'),
        code('%%time\nthis is not python'),
        code("df = pd.read_csv(f'{folder}/sales.csv')")
      ],
      ['sales.csv', 'customers.csv']
    );
    expect(analysis.prose.map(p => [p.index, p.why.split(':')[0]])).toEqual([
      [0, 'comments only'],
      [1, 'SyntaxError'],
      [2, 'IndentationError']
    ]);
    expect(analysis.reads).toEqual({
      'sales.csv': true,
      'customers.csv': false
    });
    expect(analysis.invented).toEqual([]);
  });

  it('flags invented data: literal frames, random numbers, CSV text in a string', async () => {
    const analysis = await analyseCells(
      [
        code("pd.DataFrame({'region': ['N', 'S'], 'revenue': [10, 20.5, -3]})"),
        code('x = np.random.normal(size=100)'),
        code('pd.read_csv(io.StringIO("a,b\\n1,2\\n"))'),
        // Labels and computed values are not invented data.
        code(
          "pd.DataFrame({'metric': ['mean', 'max', 'min'], 'value': [m, x, n]})"
        )
      ],
      []
    );
    expect(analysis.invented).toEqual([
      'cell 1: a DataFrame built from literal numbers',
      'cell 2: random data',
      'cell 3: CSV text read from a string'
    ]);
  });

  it('finds the asked values in the outputs, within their tolerance', () => {
    const text =
      'region\nEast     298798.140000\nNorth    2.981625e+05\ntotal: 1,234.50\nrows 412';
    expect(numbersIn(text)).toEqual([
      '298798.140000',
      '2.981625e+05',
      '1,234.50',
      '412'
    ]);
    const expected = {
      by_region: { East: 298798.14, North: 298162.46, West: 299287.43 },
      total: 1234.5,
      rows: 412,
      rows_off: 411
    };
    expect(
      missingValues(
        { expected_key: 'by_region', relative: 1e-4 },
        expected,
        text
      )
    ).toEqual(['by_region[West]=299287.43']);
    expect(missingValues({ expected_key: 'total' }, expected, text)).toEqual(
      []
    );
    expect(
      missingValues({ expected_key: 'rows', tolerance: 0 }, expected, text)
    ).toEqual([]);
    // A count must be exact: 412 is not 411.
    expect(
      missingValues({ expected_key: 'rows_off', tolerance: 0 }, expected, text)
    ).toEqual(['rows_off=411']);
  });

  it('needs a markdown title and no prose code cell for "markdown as markdown"', async () => {
    const printed: CellOutput = { type: 'stream', name: 'stdout', text: '6\n' };
    const judged = await judgeNotebook(
      [
        code('Analysis of data.csv'),
        code("print(pd.read_csv('data.csv')['a'].sum())", [printed])
      ],
      { files: ['data.csv'], values: [], plots: 0 },
      {}
    );
    expect(judged).toMatchObject({
      titleCell: false,
      proseCells: 1,
      markdownOk: false,
      filesUsed: true
    });
    const good = await judgeNotebook(
      [
        markdown('# Analysis'),
        code("print(pd.read_csv('data.csv')['a'].sum())", [printed])
      ],
      { files: ['data.csv'], values: [], plots: 0 },
      {}
    );
    expect(good).toMatchObject({ titleCell: true, markdownOk: true });
  });

  it('asks a summary to say that a cell fails, when one does', () => {
    const failed: CellOutput = {
      type: 'error',
      ename: 'KeyError',
      evalue: "'category'",
      traceback: []
    };
    const printed: CellOutput = { type: 'stream', name: 'stdout', text: '6\n' };
    const cells = (summary: string) => [
      markdown('# Analysis'),
      code("print(df['a'].sum())", [printed]),
      code("df.groupby('category')['a'].sum()", [failed]),
      markdown(summary)
    ];
    // The eval's 1.5B, its margin cell failing: a result no output shows.
    expect(
      summaryHonesty(
        cells(
          '## Summary\nThe output shows the total margin for each product category.'
        )
      )
    ).toMatchObject({ failingCells: 1, summaryOwnsFailure: false });
    expect(
      summaryHonesty(
        cells(
          '## Summary\nThe total of a is 6. The margin per category could not be computed: its cell fails.'
        )
      )
    ).toMatchObject({ failingCells: 1, summaryOwnsFailure: true });
    // Nothing fails: nothing to own. No summary: nothing to judge.
    expect(
      summaryHonesty([
        code("print(df['a'].sum())", [printed]),
        markdown('## Summary\nThe total of a is 6.')
      ])
    ).toMatchObject({ failingCells: 0, summaryOwnsFailure: null });
    // A summary under another heading evidence.ts knows counts too.
    expect(
      summaryHonesty(cells('## Conclusions\nThe margin cell failed.'))
    ).toMatchObject({ failingCells: 1, summaryOwnsFailure: true });
    expect(summaryHonesty(cells('# Notes')).summaryOwnsFailure).toBeNull();
  });

  it('counts the rankings a summary states that the printed tables do not show', () => {
    // As the eval's 1.5B wrote gen-segments (gen2-after, d93b5a9): business named highest, retail printed highest.
    const segments: CellOutput = {
      type: 'stream',
      name: 'stdout',
      text: 'segment\nbusiness    393007.27\npublic      429668.55\nretail      434416.61\nName: revenue, dtype: float64\n'
    };
    const cells = (summary: string) => [
      code("print(sales.groupby('segment')['revenue'].sum())", [segments]),
      markdown(summary)
    ];
    expect(
      summaryHonesty(
        cells(
          '## Summary\nThe business segment has the highest revenue at $393,007.27, followed by the public segment.'
        )
      ).rankingsUnshown
    ).toEqual([
      '“The business segment has the highest revenue at $393,007.27” (retail 434416.61, business 393007.27)'
    ]);
    expect(
      summaryHonesty(
        cells('## Summary\nThe retail segment has the highest revenue.')
      ).rankingsUnshown
    ).toEqual([]);
  });
});
