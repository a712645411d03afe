/**
 * The columns said under a KeyError: the note's wording and limits, and the
 * tools that run cells adding it (the probe itself runs in a real kernel in
 * src/headless/__tests__/server-port.test.ts).
 */
import {
  columnsNote,
  FRAME_PROBE,
  endedWithKeyError
} from '../tools/frame-columns';
import {
  parseVariableRows,
  variablesProbeCode
} from '../tools/variables-probe';

const FRAME_COLUMNS_CODE = variablesProbeCode(FRAME_PROBE);
const note = (stdout: string) => columnsNote(parseVariableRows(stdout));
const frame = (name: string, columns: string[], columnCount: number) => ({
  name,
  type: 'pandas.DataFrame',
  columns: columns.map(c => [c, 'object']),
  columnCount
});
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { RunState } from '../tools/run-state';

describe('the columns note', () => {
  it('names each frame’s columns, quoted, and how many there are when cut', () => {
    expect(
      note(
        JSON.stringify([
          frame('df', ['Units: mm'], 1),
          frame('wide', ['a', 'b'], 45)
        ])
      )
    ).toBe(
      'Columns of the DataFrames in the kernel now:\ndf: "Units: mm"\nwide: "a", "b", … (45 in all)'
    );
  });

  it('is null for no frames or anything that is not the probe’s JSON', () => {
    expect(note('[]')).toBeNull();
    expect(note('not json')).toBeNull();
    expect(note('[1, 2]')).toBeNull();
    expect(note('{"df": 1}')).toBeNull();
    // A variable without columns (not a frame) is no frame.
    expect(note('[{"name": "x", "type": "builtins.int"}]')).toBeNull();
  });

  it('is asked for after a KeyError only', () => {
    const result = (ename: string) => ({
      cellId: 'c',
      status: 'error' as const,
      executionCount: 1,
      outputs: [{ type: 'error' as const, ename, evalue: 'x', traceback: [] }]
    });
    expect(endedWithKeyError(result('KeyError'))).toBe(true);
    expect(endedWithKeyError(result('ValueError'))).toBe(false);
  });
});

describe('a cell the agent runs that raises a KeyError', () => {
  it('comes back with the columns, from a silent probe', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: code => {
        ran.push(code);
        return code === FRAME_COLUMNS_CODE
          ? [
              {
                type: 'stream',
                name: 'stdout',
                text: `${JSON.stringify([frame('df', ['customer_id', 'city'], 2)])}\n`
              }
            ]
          : [
              {
                type: 'error',
                ename: 'KeyError',
                evalue: "'City'",
                traceback: []
              }
            ];
      }
    });
    const tools = new ToolRegistry(agentTools());
    const insert = tools.get('insert_cell')!;
    const result = await insert.execute(
      { source: "df['City']", run: true },
      {
        notebook,
        signal: new AbortController().signal,
        state: new RunState()
      }
    );
    expect(ran).toEqual(["df['City']", FRAME_COLUMNS_CODE]);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(
      /KeyError[\s\S]*\n\nColumns of the DataFrames in the kernel now:\ndf: "customer_id", "city"$/
    );
  });
});
