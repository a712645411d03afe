/**
 * Contract cases on cells: inserting, editing and deleting by id, the
 * refusals for unknown ids and for running what is not code, putting back
 * what a cell showed (Reject of a fix, Undo of a run), and the files the
 * agent may list and read.
 */
import { NotebookPortError } from '../../ports';
import * as check from './check';
import { withPort, type IPortCase, type IUserCell } from './contract';
import { PROGRAMS } from './programs';
import { codeCell } from './run-cases';

const USER_CELLS: IUserCell[] = [
  { type: 'markdown', source: '# Precious analysis\n\nDo **not** lose me.' },
  { type: 'code', source: 'precious = {"a": 1}\r\nprint(precious)' }
];

const REFUSED = 'NotebookPortError';

export const CELL_CASES: IPortCase[] = [
  {
    name: 'cells: insert, edit and delete by id, the user’s cells untouched',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, USER_CELLS, async port => {
        const before = await port.getCells();
        check.equal(
          before.map(c => [c.type, c.source]),
          USER_CELLS.map(c => [c.type, c.source]),
          'the user’s cells as opened'
        );
        const last = await port.insertCell({ type: 'code', source: 'a = 1' });
        const middle = await port.insertCell({
          type: 'markdown',
          source: '## Notes',
          afterCellId: before[0].id
        });
        let cells = await port.getCells();
        check.equal(
          cells.map(c => c.id),
          [before[0].id, middle.id, before[1].id, last.id],
          'cell order after two inserts'
        );
        const edited = await port.editCell(last.id, 'a = 2');
        check.equal(edited.source, 'a = 2', 'the edited source');
        await port.deleteCell(middle.id);
        cells = await port.getCells();
        check.equal(
          cells.map(c => [c.id, c.source]),
          [...before.map(c => [c.id, c.source]), [last.id, 'a = 2']],
          'cells after edit and delete'
        );
      })
  },
  {
    name: 'cells: unknown ids and non-code runs are refused with guidance',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, USER_CELLS, async port => {
        const [markdown] = await port.getCells();
        const unknown = /no cell with id no-such-cell[\s\S]*read_notebook/i;
        await check.rejects(
          () => port.editCell('no-such-cell', 'x'),
          REFUSED,
          unknown,
          'editing an unknown cell'
        );
        await check.rejects(
          () => port.deleteCell('no-such-cell'),
          REFUSED,
          unknown,
          'deleting an unknown cell'
        );
        await check.rejects(
          () => port.runCell('no-such-cell'),
          REFUSED,
          unknown,
          'running an unknown cell'
        );
        await check.rejects(
          () =>
            port.insertCell({
              type: 'code',
              source: 'x',
              afterCellId: 'no-such-cell'
            }),
          REFUSED,
          unknown,
          'inserting after an unknown cell'
        );
        await check.rejects(
          () => port.runCell(markdown.id),
          REFUSED,
          /only code cells/,
          'running a markdown cell'
        );
        check.equal((await port.getCells()).length, 2, 'cells after refusals');
        check.ok(
          new NotebookPortError('x').name === REFUSED,
          'refusals to be NotebookPortErrors'
        );
      })
  },
  {
    name: 'restoreOutputs: a cell shows again what it showed, its source kept; running or non-code cells refused',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, USER_CELLS, async port => {
        const [markdown] = await port.getCells();
        const id = await codeCell(port, PROGRAMS.product);
        const first = await port.runCell(id);
        await port.editCell(id, PROGRAMS.divide);
        const second = await port.runCell(id);
        check.equal(second.status, 'error', 'the second run');
        await port.restoreOutputs(id, first.outputs, first.executionCount);
        const shown = () =>
          port.getCells().then(cells => cells.find(c => c.id === id)!);
        let cell = await shown();
        check.equal(cell.outputs, first.outputs, 'the restored outputs');
        check.equal(
          cell.executionCount,
          first.executionCount,
          'the restored count'
        );
        check.equal(cell.source, PROGRAMS.divide, 'the source, left alone');
        // Restored to "never run": no outputs, no count.
        await port.restoreOutputs(id, [], null);
        cell = await shown();
        check.equal([cell.outputs, cell.executionCount], [[], null], 'cleared');
        await check.rejects(
          () => port.restoreOutputs(markdown.id, first.outputs, null),
          REFUSED,
          /markdown cell[\s\S]*not restored/,
          'restoring a markdown cell'
        );
        await check.rejects(
          () => port.restoreOutputs('no-such-cell', [], null),
          REFUSED,
          /no cell with id no-such-cell/i,
          'restoring an unknown cell'
        );
        const running = await codeCell(port, PROGRAMS.counter);
        const partial = await port.runCell(running, { softTimeoutMs: 300 });
        check.equal(partial.status, 'running', 'status');
        await check.rejects(
          () => port.restoreOutputs(running, [], null),
          REFUSED,
          /running[\s\S]*not restored/,
          'restoring a running cell'
        );
        await port.interrupt();
        const last = await port.waitForCell(running, { softTimeoutMs: 10000 });
        check.equal(last.status, 'aborted', 'status after interrupt');
        check.equal(
          (await port.getCells()).find(c => c.id === running)?.outputs,
          last.outputs,
          'the running cell’s outputs, untouched by the refusal'
        );
      })
  },
  {
    name: 'files: listed and read relative to the root; a missing one is refused',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        await harness.writeFile('contract-notes.txt', 'hello\nworld\n');
        const entries = await port.listFiles('');
        check.ok(
          entries.some(
            e => e.path === 'contract-notes.txt' && e.type === 'file'
          ),
          'contract-notes.txt in the listing of the root'
        );
        check.equal(
          await port.readFile('contract-notes.txt'),
          'hello\nworld\n',
          'the file read'
        );
        await check.rejects(
          () => port.readFile('no-such-file.txt'),
          'NoSuchFileError',
          /no-such-file\.txt[\s\S]*list_files/,
          'reading a missing file'
        );
      })
  }
];
