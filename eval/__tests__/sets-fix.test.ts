/**
 * The Fix set's runner and judge end to end: a private Jupyter server and
 * real kernels, the product's AgentSession (`fixCell`) built as the command
 * line builds it, and the scripted model server standing in for the model.
 * A model that fixes the broken cell in place is counted; one that adds a
 * corrected cell below instead is not, nor one that only explains the fix;
 * a logic error (no error shown) fixed in place is counted.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../src/agent/__tests__/fixtures/scripted-server';
import { fixMarkdown } from '../src/sets/report';
import { runSessionSet } from '../src/sets/run-set';
import type { IFixTask, SessionSet } from '../src/sets/types';

let model: IScriptedServer;
let dir: string;

beforeAll(async () => {
  // @jupyterlab/services logs kernel status changes and expected 404s.
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  model = await startScriptedServer();
  dir = await mkdtemp(join(tmpdir(), 'eval-fix-'));
  await writeFile(
    join(dir, 'data.csv'),
    'region,units\nNorth,1\nSouth,2\nNorth,3\n'
  );
});

afterAll(async () => {
  model?.stop();
  await rm(dir, { recursive: true, force: true });
});

const LOAD = "import pandas as pd\ndf = pd.read_csv('data.csv')";
const FIXED = "by_region = df.groupby('region')['units'].sum()\nby_region";

/** A task: the load cell, then a misspelt column. */
const typo = (id: string): IFixTask => ({
  id,
  category: 'misspelt name',
  files: ['data.csv'],
  cells: [LOAD, "by_region = df.groupby('regoin')['units'].sum()\nby_region"],
  solution: FIXED,
  checker: {
    type: 'python',
    code: 'assert by_region.to_dict() == __expected__, by_region.to_dict()',
    expected_key: 'by_region'
  }
});

/** Turns that read the notebook (the last cell_id it lists is the broken cell), then `then`. */
const afterReading = (...then: unknown[]) => [
  { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
  ...then
];

const text = (content: string) => ({ content });

describe('the Fix set', () => {
  it('counts a fix in place, not a corrected cell added below nor a fix only described', async () => {
    const set: SessionSet = {
      kind: 'fix',
      name: 'tiny-fix',
      dataDir: dir,
      expected: { by_region: { North: 4, South: 2 }, total: 6 },
      tasks: [
        typo('in-place'),
        typo('added-below'),
        typo('described'),
        {
          id: 'logic',
          category: 'logic error',
          files: ['data.csv'],
          cells: [
            LOAD,
            '# the total of units, over all rows\ntotal = df["units"].max()\nprint(total)'
          ],
          solution:
            '# the total of units, over all rows\ntotal = df["units"].sum()\nprint(total)',
          checker: {
            type: 'python',
            code: 'assert total == __expected__, total',
            expected_key: 'total'
          }
        }
      ]
    };
    await model.script([
      // in-place: edit the broken cell, run it, say what was wrong.
      ...afterReading(
        {
          tool_calls: [
            {
              name: 'edit_cell',
              arguments: { cell_id: '{{cell_id}}', source: FIXED }
            }
          ]
        },
        {
          tool_calls: [
            { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
          ]
        },
        text('The column name was misspelt (regoin); I corrected it.')
      ),
      // added-below: a new, corrected cell; the broken one stays broken.
      ...afterReading(
        {
          tool_calls: [
            { name: 'insert_cell', arguments: { source: FIXED, run: true } }
          ]
        },
        text('I added a corrected cell below.'),
        text('The cell below has the fix.'),
        text('See the cell below.')
      ),
      // described: the right fix in words, no edit (twice: then it gives up).
      text("Use 'region' instead of 'regoin'."),
      text("Replace 'regoin' with 'region'."),
      // logic: no error shown; the model runs it, sees the max, fixes it.
      ...afterReading(
        {
          tool_calls: [
            {
              name: 'edit_cell',
              arguments: {
                cell_id: '{{cell_id}}',
                source:
                  '# the total of units, over all rows\ntotal = df["units"].sum()\nprint(total)'
              }
            }
          ]
        },
        {
          tool_calls: [
            { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
          ]
        },
        text('It took the maximum instead of the sum.')
      )
    ]);
    const rows = await runSessionSet(set, {
      endpoint: {
        baseUrl: `${model.root}/v1`,
        model: 'scripted-model',
        apiKey: 'unused'
      },
      concurrency: 1,
      timeoutS: 60,
      notebooksDir: join(dir, 'out', 'notebooks')
    });
    const [inPlace, added, described, logic] = rows;
    expect(inPlace).toMatchObject({
      id: 'in-place',
      success: true,
      status: 'fixed',
      inPlace: true,
      runsClean: true,
      checkPassed: true,
      reviewShown: true,
      cellsAdded: 0,
      otherCellsChanged: 0,
      failedBefore: true
    });
    expect(inPlace.modelCalls).toBe(4);
    expect(inPlace.cellsRun).toBe(1);
    // The corrected cell ran (the kernel has the right values), but the
    // user's cell is as broken as before: not a fix of that cell.
    expect(added).toMatchObject({
      success: false,
      inPlace: false,
      runsClean: false,
      checkPassed: true,
      reviewShown: false,
      cellsAdded: 1
    });
    expect(added.detail).toMatch(/not edited in place/);
    expect(described).toMatchObject({
      success: false,
      status: 'not-fixed',
      inPlace: false,
      checkPassed: false,
      turnsWithoutEdit: 2,
      cellsAdded: 0
    });
    expect(logic).toMatchObject({
      success: true,
      failedBefore: false,
      inPlace: true,
      reviewShown: true
    });
    // The executed notebook and the transcript are kept.
    const saved = JSON.parse(
      await readFile(join(dir, 'out', 'notebooks', 'in-place.ipynb'), 'utf8')
    ) as { cells: Array<{ source: string | string[] }> };
    expect(saved.cells.map(c => [c.source].flat().join(''))).toEqual([
      LOAD,
      FIXED
    ]);
    const transcript = await readFile(
      join(dir, 'out', 'transcripts', 'in-place.json'),
      'utf8'
    );
    expect(transcript).toContain('regoin');
    const markdown = fixMarkdown(
      {
        set: 'tiny-fix',
        kind: 'fix',
        model: 'scripted-model',
        label: 'scripted',
        agent: 'standard profile, native protocol',
        concurrency: 1,
        timeoutS: 60,
        maxSteps: 20,
        startedAt: 'now',
        wallS: 1
      },
      rows,
      [2]
    );
    expect(markdown).toMatch(/\*\*Fixed: 2\/4 \(50 %\)\*\*/);
    expect(markdown).toMatch(/cells added in 1 task\(s\)/);
    expect(markdown).toMatch(/\| misspelt name \| 3 \| 1 \| 33 % \|/);
    expect(markdown).toMatch(/\| logic error \| 1 \| 1 \| 100 % \|/);
  }, 240_000);
});
