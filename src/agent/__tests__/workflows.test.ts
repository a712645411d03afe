import { AgentSession } from '../session';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { diffCells } from '../workflows/cell-changes';
import { codeLines } from '../workflows/fix-cell';
import { MiniKernelNotebook } from './mini-kernel';

const session = (
  mode: 'run-everything' | 'ask-before-running' = 'run-everything'
) =>
  new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => mode
  });

const call = (name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ name, arguments: args }]
});

const lastUserMessage = (model: ScriptedModel, index: number) => {
  const messages = model.requests[index].messages;
  const users = messages.filter(m => m.role === 'user');
  return String(users[users.length - 1].content);
};

/** A kernel that defines `total`, and a cell below that misspells it (the Fix tests). */
const misspeltTotal = (
  traceback = ["NameError: name 'totl' is not defined"]
) => {
  const notebook = new MiniKernelNotebook({
    cells: [
      { id: 'a', source: 'total = 6', executionCount: 1 },
      {
        id: 'b',
        source: 'print(totl)',
        executionCount: 2,
        outputs: [
          {
            type: 'error',
            ename: 'NameError',
            evalue: "name 'totl' is not defined",
            traceback
          }
        ]
      }
    ]
  });
  notebook.vars.set('total', '6');
  return notebook;
};

/** A small model's session (the text protocol), asking before running unless told. */
const smallModelSession = (
  mode: 'run-everything' | 'ask-before-running' = 'ask-before-running'
) =>
  new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => mode,
    toolProtocol: () => 'text',
    profile: () => 'small'
  });

describe('Generate notebook', () => {
  it('builds the notebook, fixes an error on the way, shows the plan, and verifies with a restart and run-all', async () => {
    const notebook = new MiniKernelNotebook({ path: 'sales.ipynb' });
    const model = new ScriptedModel([
      call('update_plan', {
        steps: [{ title: 'Compute the total' }, { title: 'Summarize' }]
      }),
      call('insert_cell', {
        cell_type: 'markdown',
        source: '# Sales\nPlan: total, summary.'
      }),
      call('insert_cell', { source: 'total = 6' }),
      call('run_cell', { cell_id: 'cell-2' }),
      call('insert_cell', { source: 'print(totl)' }),
      call('run_cell', { cell_id: 'cell-3' }),
      call('edit_cell', { cell_id: 'cell-3', source: 'print(total)' }),
      call('run_cell', { cell_id: 'cell-3' }),
      call('update_plan', {
        steps: [
          { title: 'Compute the total', status: 'done' },
          { title: 'Summarize', status: 'completed' }
        ]
      }),
      call('insert_cell', {
        cell_type: 'markdown',
        source: '## Summary\nThe total is 6.'
      }),
      { text: 'Done: the total is 6.' }
    ]);
    const s = session();
    const result = await s.generate('Sum the sales', {
      model: () => model,
      notebook
    });

    expect(s.getSnapshot().error).toBeNull();
    expect(result?.status).toBe('verified');
    expect(notebook.restarts).toBe(1);
    // The error the agent met on the way reached it, and it fixed the cell.
    expect(JSON.stringify(model.requests[6].messages)).toContain(
      "name 'totl' is not defined"
    );
    expect(notebook.cells.map(c => c.source)).toEqual([
      '# Sales\nPlan: total, summary.',
      'total = 6',
      'print(total)',
      '## Summary\nThe total is 6.'
    ]);
    // Verification re-ran every code cell after the restart, in order.
    expect(notebook.cells[2].outputs).toEqual([
      { type: 'stream', name: 'stdout', text: '6\n' }
    ]);
    const state = s.getSnapshot();
    expect(state.status).toBe('idle');
    expect(state.plan).toEqual([
      { title: 'Compute the total', status: 'done' },
      { title: 'Summarize', status: 'done' }
    ]);
    expect(state.items[0]).toMatchObject({
      kind: 'user',
      text: 'Sum the sales'
    });
    const notices = state.items
      .filter(i => i.kind === 'notice')
      .map(i => i.text);
    expect(notices).toContain(
      'Verified: the kernel restarted and all 2 code cells ran without error.'
    );
    // The first request told the model about the verification and the missing data.
    const prompt = lastUserMessage(model, 0);
    expect(prompt).toContain('restarted and every cell runs from the top');
    expect(prompt).toContain('create a small realistic sample dataset');
  });

  it('sends a verification failure back to the agent, which repairs the notebook', async () => {
    const notebook = new MiniKernelNotebook();
    const model = new ScriptedModel([
      // Defines y only in scratch code: works now, fails after a restart.
      call('run_code', { code: 'y = 2' }),
      call('insert_cell', { source: 'print(y)' }),
      call('run_cell', { cell_id: 'cell-1' }),
      { text: 'Printed y.' },
      call('edit_cell', { cell_id: 'cell-1', source: 'y = 2\nprint(y)' }),
      call('run_cell', { cell_id: 'cell-1' }),
      { text: 'Fixed: y is defined in the cell.' }
    ]);
    const s = session();
    const result = await s.generate(
      'Print y',
      {
        model: () => model,
        notebook
      },
      { attachments: [{ name: 'data.csv', size: 2048 }] }
    );

    expect(lastUserMessage(model, 0)).toContain('- data.csv (~2 KB)');
    expect(result?.status).toBe('verified');
    expect(notebook.restarts).toBe(2);
    const repair = lastUserMessage(model, 4);
    expect(repair).toContain('Verification failed');
    expect(repair).toContain('code cell 1 of 1 (cell_id cell-1)');
    expect(repair).toContain("name 'y' is not defined");
    const notices = s
      .getSnapshot()
      .items.filter(i => i.kind === 'notice')
      .map(i => i.text);
    expect(notices).toContain(
      'Verification failed at code cell 1 of 1: asking the agent to fix it.'
    );
    // The repair turn is the workflow's step, not a message of the user's.
    expect(notices).toContain('Repairing the notebook (attempt 1 of 2)');
    expect(
      s
        .getSnapshot()
        .items.filter(i => i.kind === 'user')
        .map(i => i.text)
    ).toEqual(['Print y']);
  });

  it('removes the empty cell a new notebook opened with, once the agent added its own', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'empty', source: '' }]
    });
    const model = new ScriptedModel([
      call('insert_cell', { source: 'x = 1\nprint(x)' }),
      { text: 'Done.' }
    ]);
    const result = await session().generate('x', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('verified');
    expect(notebook.cells.map(c => c.source)).toEqual(['x = 1\nprint(x)']);
  });

  it('stops repairing after the bounded number of attempts and says the notebook is unverified', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'a', source: 'print(nope)' }]
    });
    // Each repair changes the cell, and it still fails.
    const model = new ScriptedModel([
      { text: 'Built.' },
      call('edit_cell', { cell_id: 'a', source: 'print(nope2)' }),
      { text: 'Tried nope2.' },
      call('edit_cell', { cell_id: 'a', source: 'print(nope3)' }),
      { text: 'Tried nope3.' }
    ]);
    const result = await session().generate('x', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('unverified');
    expect(result?.verification?.failure?.cellId).toBe('a');
    expect(notebook.restarts).toBe(3);
    expect(model.requests).toHaveLength(5);
    // The notebook says so itself (no summary cell last: a cell of its own).
    expect(notebook.cells.map(c => [c.type, c.source])).toEqual([
      ['code', 'print(nope3)'],
      [
        'markdown',
        '**Not verified:** code cell 1 of 1 fails after a kernel restart; its error is in its output. ' +
          'What it computes is not shown above.'
      ]
    ]);
  });

  it('puts the note under a summary under any heading evidence.ts knows (## Conclusions)', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [
        { id: 'a', source: 'print(nope)' },
        {
          id: 's',
          type: 'markdown',
          source: '## Conclusions\nThe cell above could not run.\n'
        }
      ]
    });
    const model = new ScriptedModel([
      { text: 'Built.' },
      { text: 'I cannot fix it.' }
    ]);
    const result = await session().generate('x', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('unverified');
    expect(notebook.cells.map(c => [c.type, c.source])).toEqual([
      ['code', 'print(nope)'],
      [
        'markdown',
        '## Conclusions\nThe cell above could not run.\n\n' +
          '**Not verified:** code cell 1 of 1 fails after a kernel restart, and the repair changed no cell; its error is in its output. ' +
          'What it computes is not shown above.'
      ]
    ]);
  });

  it('stops at a repair that changed no cell: the same notebook is not verified again', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'a', source: 'print(nope)' }]
    });
    const model = new ScriptedModel([
      { text: 'Built.' },
      { text: 'I cannot fix it.' }
    ]);
    const s = session();
    const result = await s.generate('x', { model: () => model, notebook });
    expect(result).toMatchObject({
      status: 'unverified',
      reason:
        'code cell 1 of 1 fails after a kernel restart, and the repair changed no cell'
    });
    expect(notebook.restarts).toBe(1);
    expect(model.requests).toHaveLength(2);
  });
});

describe('Fix this cell', () => {
  it('edits and reruns the failing cell, then offers the diff; Accept keeps it as one undo step', async () => {
    const notebook = misspeltTotal([]);
    const model = new ScriptedModel([
      // The prompt gave the cell's source: no read_cell needed before editing.
      call('edit_cell', { cell_id: 'b', source: 'print(total)' }),
      call('run_cell', { cell_id: 'b' }),
      { text: 'A typo: totl → total.' }
    ]);
    const s = session('ask-before-running');
    const result = await s.fixCell('b', { model: () => model, notebook });

    expect(result?.status).toBe('fixed');
    const prompt = lastUserMessage(model, 0);
    expect(prompt).toContain('print(totl)');
    expect(prompt).toContain("NameError: name 'totl' is not defined");
    expect(notebook.cells[1].outputs).toEqual([
      { type: 'stream', name: 'stdout', text: '6\n' }
    ]);
    const review = s.getSnapshot().review;
    expect(review?.changes).toEqual([
      {
        cellId: 'b',
        kind: 'edited',
        type: 'code',
        before: 'print(totl)',
        after: 'print(total)',
        was: {
          outputs: [
            {
              type: 'error',
              ename: 'NameError',
              evalue: "name 'totl' is not defined",
              traceback: []
            }
          ],
          executionCount: 2
        }
      }
    ]);
    expect(notebook.undoGroups).toEqual(['begin', 'end']);
    s.acceptReview();
    expect(s.getSnapshot().review).toBeNull();
    expect(notebook.cells[1].source).toBe('print(total)');
  });

  it('a small model’s fix reads the system prompt and its own turns, not the chat before it', async () => {
    const notebook = misspeltTotal();
    const model = new ScriptedModel([
      // The question before the fix: code, then the answer.
      { text: '```python\nprint(total)\n```' },
      { text: 'The total is 6.' },
      // The fix: the first attempt fails, the second one works.
      { text: '```python\nprint(tota)\n```' },
      { text: '```python\nprint(total)\n```' }
    ]);
    const s = smallModelSession('run-everything');
    const target = { model: () => model, notebook };
    await s.send('What is the total?', target);
    const asked = model.requests.length;
    expect(asked).toBeGreaterThan(0);
    const result = await s.fixCell('b', target);
    expect(result?.status).toBe('fixed');
    const fixRequests = model.requests.slice(asked);
    expect(fixRequests).toHaveLength(2);
    for (const request of fixRequests) {
      const text = JSON.stringify(request.messages);
      expect(request.messages[0].role).toBe('system');
      expect(text).not.toContain('What is the total?');
      expect(text).not.toContain('The total is 6.');
      expect(text).toContain('Fix cell');
    }
    // The second attempt reads the first one (this task's own turns).
    expect(JSON.stringify(fixRequests[1].messages)).toContain('print(tota)');
    // The chat itself keeps everything.
    expect(JSON.stringify(s.history)).toContain('What is the total?');
  });

  it('a small model (text protocol) writes the corrected cell as a code block, begun for it, that replaces the cell and runs; one reply per attempt', async () => {
    const notebook = misspeltTotal();
    const model = new ScriptedModel([
      // The first rewrite still fails; the second one fixes it. No words.
      { text: '```python\nprint(tota)\n```' },
      { text: '```python\nprint(total)\n```' }
    ]);
    const s = smallModelSession();
    const result = await s.fixCell('b', { model: () => model, notebook });

    expect(result?.status).toBe('fixed');
    expect(result?.attempts).toBe(2);
    // Two model calls: one per attempt, no answer after the fix.
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      // The reply is begun as code for the model.
      expect(request.messages[request.messages.length - 1]).toEqual({
        role: 'assistant',
        content: '```python\n'
      });
    }
    const first = lastUserMessage(model, 0);
    expect(first).toContain('Fix cell [2]');
    expect(first).toContain('print(totl)');
    // The code before the cell, and the failure in one line.
    expect(first).toContain('total = 6');
    expect(first).toContain("NameError: name 'totl' is not defined");
    expect(first).toContain('whole corrected cell in one ```python block');
    const retry = lastUserMessage(model, 1);
    // The code above first, the cell last (fix-rewrite.ts says why).
    expect(retry).toMatch(
      /^The code that ran before cell \[\d+\][\s\S]*total = 6[\s\S]*\nCell \[\d+\] still fails after your change/
    );
    expect(retry).toContain('print(tota)');
    // The hint for a name the code above defines, not "load the data again".
    expect(retry).toContain('Use a name the code above or the kernel defines');
    // The cell itself was rewritten and ran; nothing was added; no approval
    // was asked for the cell the user asked to fix.
    expect(notebook.cells.map(c => c.source)).toEqual([
      'total = 6',
      'print(total)'
    ]);
    expect(notebook.cells[1].outputs).toEqual([
      { type: 'stream', name: 'stdout', text: '6\n' }
    ]);
    expect(s.getSnapshot().review?.changes).toMatchObject([
      {
        cellId: 'b',
        kind: 'edited',
        before: 'print(totl)',
        after: 'print(total)'
      }
    ]);
    // The cards show the code once (not again in the model's text).
    const items = s.getSnapshot().items;
    expect(items.filter(i => i.kind === 'tool')).toHaveLength(2);
    expect(
      items.filter(i => i.kind === 'assistant' && i.text.includes('```'))
    ).toEqual([]);
  });

  it('a cell that ran without an error is not “fixed” by a turn that changed nothing', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [
        { id: 'a', source: 'total = 6', executionCount: 1 },
        {
          id: 'b',
          source: 'print(total)',
          executionCount: 2,
          outputs: [{ type: 'stream', name: 'stdout', text: '6\n' }]
        }
      ]
    });
    notebook.vars.set('total', '6');
    // The same cell back, twice (greedy): it runs, and proves nothing.
    const model = new ScriptedModel([
      { text: '```python\nprint(total)\n```' },
      { text: '```python\nprint(total)\n```' }
    ]);
    const s = smallModelSession('run-everything');
    const result = await s.fixCell('b', { model: () => model, notebook });
    expect(result).toMatchObject({
      status: 'not-fixed',
      gaveUp: 'no-edit',
      attempts: 0
    });
    // The second turn said the reply was the cell unchanged, and was sampled.
    expect(lastUserMessage(model, 1)).toMatch(
      /\nYour reply was cell \S+ unchanged/
    );
    expect(model.requests[1].temperature).toBeGreaterThan(0);
  });

  it('Reject restores every changed source byte for byte and removes cells the agent added', async () => {
    const original = 'print(totl)  \n# keep this comment\t';
    const notebook = new MiniKernelNotebook({
      cells: [
        { id: 'a', source: 'x = 1' },
        { id: 'b', source: original }
      ]
    });
    const model = new ScriptedModel([
      call('edit_cell', { cell_id: 'b', source: 'total = 1\nprint(total)' }),
      call('insert_cell', { source: 'print(x)', after_cell_id: 'b' }),
      call('run_cell', { cell_id: 'b' }),
      { text: 'Fixed.' }
    ]);
    const s = session();
    await s.fixCell('b', { model: () => model, notebook });
    expect(s.getSnapshot().review?.changes.map(c => c.kind)).toEqual([
      'edited',
      'inserted'
    ]);
    await expect(s.rejectReview()).resolves.toEqual([]);
    expect(notebook.cells.map(c => [c.id, c.source])).toEqual([
      ['a', 'x = 1'],
      ['b', original]
    ]);
    expect(s.getSnapshot().review).toBeNull();
  });

  it('Reject restores the outputs and execution count with the source, never the user’s code above the agent’s output', async () => {
    const failing = {
      type: 'error' as const,
      ename: 'NameError',
      evalue: "name 'answer' is not defined",
      traceback: []
    };
    const notebook = new MiniKernelNotebook({
      cells: [
        {
          id: 'b',
          source: 'print(answer)',
          executionCount: 3,
          outputs: [failing]
        }
      ]
    });
    const model = new ScriptedModel([
      call('edit_cell', { cell_id: 'b', source: 'answer = 42\nprint(answer)' }),
      call('run_cell', { cell_id: 'b' }),
      { text: 'Defined answer.' }
    ]);
    const s = session();
    await s.fixCell('b', { model: () => model, notebook });
    expect(notebook.cells[0].outputs).toEqual([
      { type: 'stream', name: 'stdout', text: '42\n' }
    ]);
    await s.rejectReview();
    expect(notebook.cells[0]).toMatchObject({
      source: 'print(answer)',
      outputs: [failing],
      executionCount: 3
    });
  });

  it('fixes the cause in an earlier cell when that is where it is', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [
        { id: 'imports', source: 'import numpy' },
        { id: 'use', source: 'm = np' }
      ]
    });
    const model = new ScriptedModel([
      call('read_cell', { cell_id: 'imports' }),
      call('edit_cell', { cell_id: 'imports', source: 'import numpy as np' }),
      call('run_cell', { cell_id: 'imports' }),
      call('run_cell', { cell_id: 'use' }),
      { text: 'The import lacked "as np".' }
    ]);
    const s = session();
    const result = await s.fixCell('use', { model: () => model, notebook });
    expect(result?.status).toBe('fixed');
    expect(result?.changes).toEqual([
      {
        cellId: 'imports',
        kind: 'edited',
        type: 'code',
        before: 'import numpy',
        after: 'import numpy as np',
        was: { outputs: [], executionCount: null }
      }
    ]);
    expect(notebook.cells[1].source).toBe('m = np');
  });

  it('counts only turns that changed a cell as attempts, shows retries as status lines, and ends after turns without an edit', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [
        { id: 'md', type: 'markdown', source: '# Notes' },
        { id: 'c', source: '\n  print(q)\n' }
      ]
    });
    const model = new ScriptedModel([
      { text: 'It should work now.' },
      call('edit_cell', { cell_id: 'c', source: 'print(r)' }),
      { text: 'Try this.' },
      { text: 'I do not know.' },
      { text: 'never asked' }
    ]);
    const s = session();
    const result = await s.fixCell('c', { model: () => model, notebook });
    expect(result?.status).toBe('not-fixed');
    // Two answers without an edit, one edit: 1 attempt of 3, and no third
    // answer without an edit (the bound on turns that change nothing).
    expect(result?.attempts).toBe(1);
    expect(result?.turnsWithoutEdit).toBe(2);
    expect(result?.gaveUp).toBe('no-edit');
    // Turns: an answer; an edit (two requests), an answer.
    expect(model.requests).toHaveLength(4);
    expect(lastUserMessage(model, 1)).toContain('You changed no cell');
    expect(lastUserMessage(model, 1)).toContain('attempt 1 of 3');
    expect(lastUserMessage(model, 1)).toContain("name 'q' is not defined");
    expect(lastUserMessage(model, 3)).toContain(
      'still fails after your change'
    );
    expect(lastUserMessage(model, 3)).toContain('attempt 2 of 3');
    expect(lastUserMessage(model, 3)).toContain("name 'r' is not defined");
    // The user's line names the cell as they see it (by position: it never
    // ran), with its first line of code; the retries are status lines.
    const items = s.getSnapshot().items;
    expect(
      items.filter(i => i.kind === 'user').map(i => i.kind === 'user' && i.text)
    ).toEqual(['Fix cell 2: print(q)']);
    expect(
      items
        .filter(i => i.kind === 'notice')
        .map(i => i.kind === 'notice' && i.text)
    ).toEqual([
      'No cell was changed and the cell still fails: asking again (attempt 1 of 3)',
      'The cell still fails: attempt 2 of 3'
    ]);
    const review = s.getSnapshot().review;
    expect(review).toMatchObject({
      status: 'not-fixed',
      attempts: 1,
      turnsWithoutEdit: 2,
      gaveUp: 'no-edit',
      // Named as the user sees it now: it ran during the fix.
      names: { c: `[${notebook.cells[1].executionCount}]` }
    });
    expect(review?.problem).toContain("name 'r' is not defined");
    await s.rejectReview();
    expect(notebook.cells[1].source).toBe('\n  print(q)\n');
  });

  it('uses every attempt when each one changes the cell, and names the changed cell by its execution count', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'c', source: 'print(q)', executionCount: 7 }]
    });
    const model = new ScriptedModel([
      call('edit_cell', { cell_id: 'c', source: 'print(r)' }),
      call('run_cell', { cell_id: 'c' }),
      { text: 'Try r.' },
      call('edit_cell', { cell_id: 'c', source: 'print(s)' }),
      { text: 'Try s.' },
      call('edit_cell', { cell_id: 'c', source: 'print(t)' }),
      { text: 'Try t.' }
    ]);
    const s = session();
    const result = await s.fixCell('c', { model: () => model, notebook });
    expect(result).toMatchObject({
      status: 'not-fixed',
      attempts: 3,
      turnsWithoutEdit: 0,
      gaveUp: 'attempts'
    });
    expect(s.getSnapshot().items[0]).toMatchObject({
      kind: 'user',
      text: 'Fix cell [7]: print(q)'
    });
    // Named as the user sees it now, and as the transcript named it: the
    // agent's run gave it a new count.
    const count = notebook.cells[0].executionCount;
    expect(count).not.toBe(7);
    expect(result?.names).toEqual({ c: `[${count}] (was [7])` });
    expect(result?.problem).toContain("name 't' is not defined");
  });

  it('asks before installing a package during a fix, even when runs need no approval', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'c', source: 'import missing_pkg', executionCount: 1 }]
    });
    const model = new ScriptedModel([
      call('install_package', { packages: 'missing-pkg' }),
      { text: 'Waiting for you.' }
    ]);
    const s = session('run-everything');
    const run = s.fixCell(
      'c',
      { model: () => model, notebook },
      { maxAttempts: 1 }
    );
    await new Promise(resolve => setTimeout(resolve, 20));
    const pending = s.getSnapshot().pendingApproval;
    expect(pending?.call.name).toBe('install_package');
    expect(pending?.code).toBe('missing-pkg');
    s.resolveApproval({ approved: false, reason: 'not now' });
    await run;
    expect(JSON.stringify(model.requests[1].messages)).toContain('not now');
  });

  it('refuses a markdown cell with a clear error, changing nothing', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'm', type: 'markdown', source: '# Title' }]
    });
    const model = new ScriptedModel([]);
    const s = session();
    await s.fixCell('m', { model: () => model, notebook });
    expect(s.getSnapshot().error?.message).toContain(
      'only code cells can be fixed'
    );
    expect(s.getSnapshot().status).toBe('idle');
    expect(model.requests).toHaveLength(0);
  });
});

describe('a first rewrite that runs clean but is no fix', () => {
  /** Fix `print(totl)` with `first` as the first rewrite, `print(total)` as the second. */
  const fixWith = async (notebook: MiniKernelNotebook, first: string) => {
    const model = new ScriptedModel([
      { text: '```python\n' + first + '\n```' },
      { text: '```python\nprint(total)\n```' }
    ]);
    const result = await smallModelSession().fixCell('b', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('fixed');
    expect(result?.attempts).toBe(2);
    expect(notebook.cells[1].source).toBe('print(total)');
    return lastUserMessage(model, 1);
  };

  it('prints only NaN: the next attempt is told why (the 1.5B copied a misaligned groupby into the cell)', async () => {
    const notebook = misspeltTotal();
    notebook.vars.set('by_region', 'East    NaN\nWest    NaN\n0       NaN');
    const retry = await fixWith(notebook, 'print(by_region)');
    expect(retry).toContain('print(by_region)');
    expect(retry).toContain('every value it printed is missing (NaN)');
  });

  it('multiplies grouped sums: the next attempt is told why (the 1.5B copied the ask’s Σunits × Σunit_price into the cell)', async () => {
    const notebook = misspeltTotal();
    for (const name of ['df', 'groupby', 'region']) {
      notebook.vars.set(name, 'defined');
    }
    const retry = await fixWith(
      notebook,
      [
        "g = df.groupby('region').sum()",
        "g['revenue'] = g['units'] * g['unit_price']",
        'print(g)'
      ].join('\n')
    );
    expect(retry).toContain(
      'it computes units summed per group times unit_price summed per group'
    );
  });
});

describe('a rewrite that changed only comments', () => {
  it('changed no code', () => {
    expect(
      codeLines('# mean revenue per order\nm = (a + b).mean()  \n\nprint(m)')
    ).toBe(codeLines('m = (a + b).mean()\nprint(m)\n# done'));
    expect(codeLines('m = (a + b).mean()')).not.toBe(
      codeLines('m = (a * b).mean()')
    );
  });
});

describe('diffCells', () => {
  it('reports edited, inserted and deleted cells with where a deleted one was', () => {
    const cell = (id: string, source: string) => ({
      id,
      type: 'code' as const,
      source,
      executionCount: null,
      outputs: []
    });
    expect(
      diffCells(
        [cell('a', '1'), cell('b', '2'), cell('c', '3')],
        [cell('a', '1'), cell('c', '4'), cell('d', '5')]
      )
    ).toEqual([
      {
        cellId: 'c',
        kind: 'edited',
        type: 'code',
        before: '3',
        after: '4',
        was: { outputs: [], executionCount: null }
      },
      { cellId: 'd', kind: 'inserted', type: 'code', before: null, after: '5' },
      {
        cellId: 'b',
        kind: 'deleted',
        type: 'code',
        before: '2',
        after: null,
        previousId: 'a',
        was: { outputs: [], executionCount: null }
      }
    ]);
  });
});
