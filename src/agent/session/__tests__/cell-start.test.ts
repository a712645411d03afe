/**
 * A cell the agent inserts and runs in one call is named on its card as it
 * starts (the live notebook tells the session, `cellStarted`, before the
 * kernel is asked): a chat saved mid-cell, when the page goes away, offers
 * Interrupt for it; the event also has the notebook saved with the cell.
 */
import { FakeNotebook } from '../../testing/fake-notebook';
import { ScriptedModel } from '../../testing/scripted-model';
import { agentTools } from '../../tools/all-tools';
import { ToolRegistry } from '../../tools/registry';
import { AgentSession } from '../agent-session';
import { settleInterruptedRun } from '../interrupted-run';
import { SessionStore } from '../store';

/** Resolves once `test()` holds (polled). */
async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !test(); i++) {
    await new Promise(resolve => setTimeout(resolve, 2));
  }
  expect(test()).toBe(true);
}

describe('a cell the agent inserts and runs in one call', () => {
  it('is named on its card as it starts: a chat saved mid-cell offers Interrupt for it', async () => {
    const log: string[] = [];
    let finish: () => void = () => undefined;
    const notebook = new FakeNotebook({
      execute: source => {
        log.push(`kernel runs ${source}`);
        return new Promise(resolve => {
          finish = () => resolve([]);
        });
      }
    });
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    // As the live notebook does (jupyter/live-port/notebook-port.ts).
    const runCell = notebook.runCell.bind(notebook);
    notebook.runCell = (cellId, options) => {
      session.cellStarted(cellId);
      return runCell(cellId, options);
    };
    session.subscribeEvents(event => {
      if (event.type === 'cell-start') {
        log.push(`cell-start ${event.cellId}`);
      }
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: 'insert_cell',
            arguments: { source: 'import time; time.sleep(60)', run: true }
          }
        ]
      },
      { text: 'Done.' }
    ]);
    const run = session.send('sleep', { model: () => model, notebook });
    await until(() => log.some(line => line.startsWith('kernel runs')));
    const id = notebook.cells[0].id;
    // The event comes before the kernel is asked (the notebook is saved then).
    expect(log).toEqual([
      `cell-start ${id}`,
      'kernel runs import time; time.sleep(60)'
    ]);
    expect(session.getSnapshot().items.at(-1)).toMatchObject({
      kind: 'tool',
      name: 'insert_cell',
      status: 'running',
      cellId: id
    });

    // The page goes away now: the chat as saved names the running cell.
    const record = session.record();
    expect(settleInterruptedRun(record, () => 'n')?.cellIds).toEqual([id]);
    const reopened = new SessionStore();
    reopened.restore(record);
    expect(reopened.getSnapshot().interruptedRun).toEqual({ cellIds: [id] });

    finish();
    await run;
    expect(session.getSnapshot().items.at(-2)).toMatchObject({
      name: 'insert_cell',
      status: 'done',
      cellId: id
    });
    // Outside a run it changes nothing.
    const items = session.getSnapshot().items;
    session.cellStarted(id);
    expect(session.getSnapshot().items).toBe(items);
  });
});
