/**
 * Generate notebook with a small model (the text protocol): a plan in
 * words, a markdown cell and one code cell per step, a failing step's cell
 * rewritten in place, a summary with only backed numbers; and the prompt
 * of every model naming the folder's data files instead of asking for
 * made-up data.
 */
import { AgentSession } from '../session';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { previewValues } from '../context/data-preview';
import {
  parsePlan,
  summaryCell,
  summaryPrompt
} from '../workflows/generate-by-steps';
import {
  definedColumns,
  requestAsks,
  stepsFromRequest
} from '../workflows/request-asks';
import { withResultShown } from '../workflows/step-result';
import { generatePrompt } from '../workflows/generate-notebook';
import { MiniKernelNotebook } from './mini-kernel';

/** A session of the small profile on the text protocol, running everything. */
const smallSession = () =>
  new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => 'run-everything',
    toolProtocol: () => 'text',
    profile: () => 'small'
  });

/** The last user message of the model's request `index`. */
const userText = (model: ScriptedModel, index: number) =>
  String(
    model.requests[index].messages.filter(m => m.role === 'user').at(-1)
      ?.content
  );

describe('the plan in a small model’s reply', () => {
  it('reads the numbered or bulleted steps, cut to six; the title is the request’s first clause', () => {
    expect(
      parsePlan(
        '1. Load `sales.csv`.\n2) Total revenue per region:\n- Plot it\n' +
          '4. a\n5. five\n6. six\n7. seven\n8. eight',
        'sales by region: totals and a plot'
      )
    ).toEqual({
      title: 'Sales by region',
      steps: [
        'Load sales.csv',
        'Total revenue per region',
        'Plot it',
        'five',
        'six',
        'seven'
      ]
    });
  });

  it('reads numbered headings with code under them as the steps (Qwen2.5-Coder-1.5B)', () => {
    expect(
      parsePlan(
        '# 1. Load the data\n```python\nimport pandas as pd\n```\n\n# 2. Revenue by region\n' +
          '```python\nprint(1)\n```\n### Step 3: Plot the trend',
        'Analyse sales.csv. Then more.'
      )
    ).toEqual({
      title: 'Analyse sales.csv',
      steps: ['Load the data', 'Revenue by region', 'Plot the trend']
    });
  });

  it('reads steps written as code as what the code does (Qwen2.5-Coder-1.5B)', () => {
    expect(
      parsePlan(
        "1.  ```python\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n```\n" +
          "2.  ```python\ndf['revenue'] = df['units'] * df['unit_price']\n```\n3. Plot it",
        'Analyse sales.csv'
      ).steps
    ).toEqual([
      'Load sales.csv',
      "`df['revenue'] = df['units'] * df['unit_price']`",
      'Plot it'
    ]);
  });

  it('is one step, the request, when the reply has none', () => {
    expect(parsePlan('Sure, I can help.', 'Count the rows of a.csv')).toEqual({
      title: 'Count the rows of a.csv',
      steps: ['Count the rows of a.csv']
    });
  });
});

describe('the asks of a request, as plan steps', () => {
  it('reads a listed request as one step per ask, after loading the named files', () => {
    expect(
      stepsFromRequest(
        'Study orders.csv: the order count per store and per week, a histogram of basket size, and a short summary.',
        { files: ['orders.csv', 'other.csv'] }
      )
    ).toEqual([
      'Load orders.csv',
      'Compute and print the order count per store',
      'Compute and print the order count per week',
      'Show a histogram of basket size'
    ]);
  });

  it('parses text dates in the load step when an ask goes by time, and adds a defined column before its first use', () => {
    const data = {
      files: ['orders.csv'],
      dateColumns: ['placed_at'],
      fileColumns: [['placed_at', 'qty', 'price', 'store']]
    };
    expect(
      stepsFromRequest(
        'Study orders.csv: the number of orders per store, and the turnover (qty × price) per week.',
        data
      )
    ).toEqual([
      'Load orders.csv and parse `placed_at` as dates',
      'Compute and print the number of orders per store',
      'Add a `turnover` column: qty × price',
      'Compute and print the turnover (qty × price) per week'
    ]);
    // No ask by time: no parse. A formula over columns no one file has: no column step.
    expect(
      stepsFromRequest(
        'Study orders.csv: the orders per store, and the margin ((price − cost) × qty) per store.',
        data
      )
    ).toEqual([
      'Load orders.csv',
      'Compute and print the orders per store',
      'Compute and print the margin ((price − cost) × qty) per store'
    ]);
    expect(
      definedColumns('the margin ((price − cost) × qty) and x (a b)')
    ).toEqual([{ name: 'margin', formula: '(price − cost) × qty' }]);
  });

  it('keeps lists inside an ask, brackets and verbs; drops the scene, the loading and the summary', () => {
    expect(
      requestAsks(
        'Using visits.tsv (one row per visit), merge it with pages.csv on page_id and rank pages by views, ' +
          'the min, max and mean duration (in s, rounded), then plot views per day. Summarise the results.'
      )
    ).toEqual([
      'Merge it with pages.csv on page_id',
      'Rank pages by views',
      'Compute and print the min, max and mean duration (in s, rounded)',
      'Plot views per day'
    ]);
    expect(
      requestAsks('Load data.csv\n- revenue by region\n- a histogram of units')
    ).toEqual([
      'Compute and print revenue by region',
      'Show a histogram of units'
    ]);
  });

  it('computes and prints what an ask wants drawn "as a chart", then draws it', () => {
    expect(
      requestAsks(
        'Load a.csv, then the mean sales by month as a line chart, and show the count per store as a bar chart.'
      )
    ).toEqual([
      'Compute and print the mean sales by month',
      'Plot the mean sales by month as a line chart',
      'Compute and print the count per store',
      'Plot the count per store as a bar chart'
    ]);
  });

  it('is null for a request with fewer than two asks (the model plans it)', () => {
    const data = { files: ['sales.csv'] };
    expect(stepsFromRequest('Analyse sales.csv', data)).toBeNull();
    expect(
      stepsFromRequest('Plot revenue over time in sales.csv.', data)
    ).toBeNull();
  });
});

describe('a step that showed nothing', () => {
  it('shows the target of its last assignment', () => {
    expect(
      withResultShown("import pandas as pd\ndf = pd.read_csv('a.csv')")
    ).toBe("import pandas as pd\ndf = pd.read_csv('a.csv')\ndf");
    expect(
      withResultShown("by_year = (df.groupby('year')\n    ['rain'].sum())\n")
    ).toBe("by_year = (df.groupby('year')\n    ['rain'].sum())\nby_year");
    expect(withResultShown("df['month'] = df['date'].dt.month")).toBe(
      "df['month'] = df['date'].dt.month\ndf['month']"
    );
    expect(withResultShown('lo, hi = s.min(), s.max()')).toBe(
      'lo, hi = s.min(), s.max()\nlo, hi'
    );
  });

  it('leaves a cell that ends otherwise', () => {
    for (const source of [
      'x += 1',
      'x == 1',
      'fig, ax = plt.subplots()',
      'for i in range(3):\n    total = i',
      "d = {\n'a': 1,\n}",
      'plt.plot(x)\nplt.show()'
    ]) {
      expect(withResultShown(source)).toBeNull();
    }
  });
});

describe('the summary cell', () => {
  it('drops a sentence about a plot when no cell shows one', () => {
    expect(
      summaryCell('The total is 6. The line plot shows a rise.', ['6'], false)
    ).toBe('## Summary\nThe total is 6.');
    expect(
      summaryCell('The total is 6. The line plot shows a rise.', ['6'], true)
    ).toBe('## Summary\nThe total is 6. The line plot shows a rise.');
  });

  it('keeps the sentences whose numbers an output shows, under its heading', () => {
    expect(
      summaryCell(
        '## Summary\nThe West leads with 1234.5 in revenue. Sales grew 40% in May. There are 3 regions.',
        ['West    1234.5\nEast 800', 'regions = 3']
      )
    ).toBe(
      '## Summary\nThe West leads with 1234.5 in revenue. There are 3 regions.'
    );
    expect(summaryCell('It rose by 99.', [])).toBe(
      '## Summary\nThe outputs above show the results of each step.'
    );
  });

  it('keeps its paragraphs and lists; a lead-in whose items were all dropped goes too', () => {
    const outputs = ['region\nEast     742.5\nWest     487.5\nName: revenue'];
    expect(
      summaryCell(
        'East earns 742.5 and West 487.5.\nThat is all of it.\n\n' +
          'By region:\n- East: 742.5\n- West: 487.5\n\n1. East leads.\n2. West is second.',
        outputs
      )
    ).toBe(
      '## Summary\nEast earns 742.5 and West 487.5. That is all of it.\n\n' +
        'By region:\n\n- East: 742.5\n- West: 487.5\n\n1. East leads.\n2. West is second.'
    );
    // As the eval's 1.5B wrote it after its margin cell failed: the items'
    // numbers no output shows, so the list and its lead-in go; the item that
    // is backed keeps its lead-in (a blank line between them or not).
    const invented =
      'The total margin for each category is as follows:\n' +
      '- alpha: $18250.4\n- beta: $18250.4\n\nThese values are computed per category.';
    expect(summaryCell(invented, outputs)).toBe(
      '## Summary\nThese values are computed per category.'
    );
    expect(
      summaryCell(
        'Revenue per region:\n\n- East: 742.5\n- North: 12.5',
        outputs
      )
    ).toBe('## Summary\nRevenue per region:\n\n- East: 742.5');
    expect(summaryCell('The totals are:', outputs)).toBe(
      '## Summary\nThe outputs above show the results of each step.'
    );
  });

  it('drops a sentence whose ranking the printed table contradicts', () => {
    // The walk's Generate (Qwen2.5-Coder-1.5B): units per region printed, East said highest.
    const outputs = [
      '  region  units\n0   East    297\n1  North    408\n2  South    336\n3   West    245\n'
    ];
    expect(
      summaryCell(
        'Revenue was computed per region. The revenue by region is East has the highest revenue, ' +
          'followed by North and South, and West has the lowest revenue.',
        outputs
      )
    ).toBe('## Summary\nRevenue was computed per region.');
    expect(
      summaryCell('North has the highest units; West has the lowest.', outputs)
    ).toBe('## Summary\nNorth has the highest units; West has the lowest.');
  });

  it('drops a sentence naming a value of the file’s first lines that no output shows', () => {
    // As dataPreview shows sales.csv, and the walk's 1.5B summarised it.
    const preview =
      'First lines of sales.csv, as stored:\n```\ndate,region,product,units,unit_price\n' +
      '2024-01-02,East,Gadget,5,12.5\n2024-01-04,North,Sprocket,3,40.0\n```';
    const values = previewValues(preview);
    expect([...values].sort()).toEqual(['East', 'Gadget', 'North', 'Sprocket']);
    const outputs = ['  region  units\n0   East    297\n1  North    408'];
    expect(
      summaryCell(
        'North sold the most units, East the fewest. The top products by revenue are Gadget and Sprocket.',
        outputs,
        false,
        values
      )
    ).toBe('## Summary\nNorth sold the most units, East the fewest.');
    // Shown by an output, in any case: kept.
    expect(
      summaryCell(
        'The best product is Gadget.',
        ['product\ngadget    120'],
        false,
        values
      )
    ).toBe('## Summary\nThe best product is Gadget.');
  });
});

describe('Generate’s prompt and the folder’s files', () => {
  it('names the data files of the folder and never asks for made-up data then', () => {
    const prompt = generatePrompt(
      'a/n.ipynb',
      'Analyse sales.csv',
      [],
      [{ name: 'sales.csv', size: 2000 }]
    );
    expect(prompt).toContain(
      "Data files in the notebook's folder (open them by these names; do not make up data): sales.csv."
    );
    expect(prompt).not.toMatch(/sample dataset/);
  });

  it('says a named file is missing instead of asking for sample data', () => {
    const prompt = generatePrompt('n.ipynb', 'Analyse sales.csv', [], []);
    expect(prompt).toContain(
      'The request names sales.csv, which the notebook’s folder does not hold'
    );
    expect(prompt).not.toMatch(/create a small realistic sample dataset/);
  });

  it('offers sample data only when the folder holds none and the request names none', () => {
    expect(generatePrompt('n.ipynb', 'Show a sine wave', [], [])).toMatch(
      /holds no data files.*sample dataset/
    );
  });
});

describe('Generate notebook with a small model, step by step', () => {
  it('writes the plan and each step’s heading as markdown, one code cell per step (rewritten when it fails), and a backed summary; verified', async () => {
    const notebook = new MiniKernelNotebook({
      path: 'work/sales.ipynb',
      files: { 'work/sales.csv': 'region,units\nWest,6\n' }
    });
    const model = new ScriptedModel([
      { text: '1. Set the total\n2. Print the total' },
      { text: '```python\ntotal = 6\n```' },
      { text: '```python\nprint(totl)\n```' },
      // The step's cell failed: its rewrite.
      { text: '```python\nprint(total)\n```' },
      { text: '## Summary\nThe total is 6. It doubled to 12 last year.' }
    ]);
    const s = smallSession();
    const result = await s.generate('Sum the units of sales.csv', {
      model: () => model,
      notebook
    });

    expect(s.getSnapshot().error).toBeNull();
    expect(result?.status).toBe('verified');
    expect(notebook.cells.map(c => [c.type, c.source])).toEqual([
      [
        'markdown',
        '# Sum the units of sales.csv\n\n1. Set the total\n2. Print the total'
      ],
      ['markdown', '## 1. Set the total'],
      // It ran and showed nothing: the assigned name shows its result.
      ['code', 'total = 6\ntotal'],
      ['markdown', '## 2. Print the total'],
      ['code', 'print(total)'],
      ['markdown', '## Summary\nThe total is 6.']
    ]);
    // The plan: begun for the model, no code to run, the folder's file named.
    const plan = model.requests[0];
    expect(plan.messages.at(-1)).toEqual({ role: 'assistant', content: '1. ' });
    expect(JSON.stringify(plan.messages)).toContain('sales.csv');
    // Steps: begun as code.
    expect(model.requests[1].messages.at(-1)).toEqual({
      role: 'assistant',
      content: '```python\n'
    });
    // The failing step's cell went back as a rewrite of that cell.
    const rewrite = String(model.requests[3].messages.at(-2)?.content);
    expect(rewrite).toMatch(/(^|\n)Fix cell \S+ so that it runs/);
    expect(rewrite).toContain('print(totl)');
  });

  it('a step whose cell still fails is named failed in the summary’s prompt; the unverified notebook says so under its summary', async () => {
    const notebook = new MiniKernelNotebook({ path: 'work/t.ipynb' });
    const model = new ScriptedModel([
      { text: '1. Set the total\n2. Print the total\n3. Double it' },
      { text: '```python\ntotal = 6\n```' },
      { text: '```python\nprint(totl)\n```' },
      // Both rewrites fail.
      { text: '```python\nprint(tot)\n```' },
      { text: '```python\nprint(tota)\n```' },
      { text: '```python\nprint(total * 2)\n```' },
      { text: '## Summary\nThe total is 6, doubled to 12.' },
      // The repairs after the restart: unchanged, then still failing.
      { text: '```python\nprint(tota)\n```' },
      { text: '```python\nprint(tota)\n```' }
    ]);
    const result = await smallSession().generate('Sum the units', {
      model: () => model,
      notebook
    });
    const prompt = userText(model, 6);
    expect(prompt).toContain(
      'Step 2 (Print the total) failed: its cell ends in an error, so no output shows its result.'
    );
    expect(prompt).toContain(
      'Say that step 2 failed, and describe no result for it.'
    );
    expect(prompt).not.toContain('its cells ran, and');
    expect(result?.status).toBe('unverified');
    expect(notebook.cells.at(-1)).toMatchObject({
      type: 'markdown',
      source:
        // Its sentence went (12: no output shows it); what stands in names the failed step.
        '## Summary\nThe outputs above show the result of each step but step 2, whose cell fails.\n\n' +
        '**Not verified:** code cell 2 of 3 fails after a kernel restart, ' +
        'and the repair changed no cell; its error is in its output. What it computes is not shown above.'
    });
  });

  it('names every failed step in the summary’s prompt, and none when all ran', () => {
    const plan = { title: 'T', steps: ['Load', 'Sum', 'Plot'] };
    expect(summaryPrompt(plan)).toBe(
      'The notebook "T" is built: its cells ran, and their outputs are above.\n' +
        'Write its summary: 2 to 4 sentences of what the outputs show, quoting the values the cells printed. ' +
        'Only values that appear in the outputs above; no code.'
    );
    const two = summaryPrompt(plan, [1, 2]);
    expect(two).toContain(
      'Step 2 (Sum) and step 3 (Plot) failed: their cells end in an error, so no output shows their results.'
    );
    expect(two).toContain(
      'Say that steps 2 and 3 failed, and describe no result for them.'
    );
  });

  it('a step’s rewrite that gives the cell back unchanged is told so, and the next one is sampled', async () => {
    const notebook = new MiniKernelNotebook({ path: 'work/t.ipynb' });
    const model = new ScriptedModel([
      { text: '1. Set the total\n2. Print the total' },
      { text: '```python\ntotal = 6\n```' },
      { text: '```python\nprint(totl)\n```' },
      // Its rewrite: the same cell (greedy repeats itself)…
      { text: '```python\nprint(totl)\n```' },
      // …then, told so and sampled, a change.
      { text: '```python\nprint(total)\n```' },
      { text: '## Summary\nThe total is 6.' }
    ]);
    const result = await smallSession().generate('Sum the units', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('verified');
    expect(userText(model, 3)).toMatch(/(^|\n)Fix cell \S+ so that it runs/);
    expect(model.requests[3].temperature).toBe(0);
    // It said "after your change" here, where nothing had changed.
    expect(userText(model, 4)).toMatch(
      /(^|\n)Your reply was cell \S+ unchanged/
    );
    expect(model.requests[4].temperature).toBeGreaterThan(0);
  });

  it('a repair after the restart that gives the cell back unchanged gets one more turn, sampled, before giving up', async () => {
    const notebook = new MiniKernelNotebook({ path: 'work/t.ipynb' });
    // The kernel holds `total` before the run: the step runs, and fails
    // only after the verification's restart.
    notebook.vars.set('total', '6');
    const model = new ScriptedModel([
      { text: '1. Print the total' },
      { text: '```python\nprint(total)\n```' },
      { text: '## Summary\nThe total is 6.' },
      { text: '```python\nprint(total)\n```' },
      { text: '```python\ntotal = 6\nprint(total)\n```' }
    ]);
    const result = await smallSession().generate('Print the total', {
      model: () => model,
      notebook
    });
    expect(userText(model, 3)).toMatch(/(^|\n)Fix cell \S+ so that it runs/);
    expect(userText(model, 4)).toMatch(
      /(^|\n)Your reply was cell \S+ unchanged/
    );
    expect(model.requests[4].temperature).toBeGreaterThan(0);
    // It had ended "…, and the repair changed no cell" after the first.
    expect(result?.status).toBe('verified');
    expect(notebook.restarts).toBe(2);
  });

  it('plans a listed request from its asks without a plan turn: the request shown, its files’ first lines in step 1', async () => {
    const notebook = new MiniKernelNotebook({
      path: 'work/sales.ipynb',
      files: { 'work/sales.csv': 'region,units\nWest,6\n' }
    });
    const model = new ScriptedModel([
      { text: '```python\nimport pandas\n```' },
      { text: '```python\ntotal = 6\nprint(total)\n```' },
      { text: '```python\nhalf = 3\nprint(half)\n```' },
      { text: '## Summary\nThe total is 6 and half of it 3.' }
    ]);
    const s = smallSession();
    const request = 'Study sales.csv: the total units, and half of the total.';
    const result = await s.generate(request, { model: () => model, notebook });

    expect(result?.status).toBe('verified');
    expect(notebook.cells[0].source).toBe(
      '# Study sales.csv\n\n1. Load sales.csv\n2. Compute and print the total units\n3. Compute and print half of the total'
    );
    // Three steps and the summary: four model calls, no plan.
    expect(model.requests).toHaveLength(4);
    const first = JSON.stringify(model.requests[0].messages);
    expect(first).toContain('Now step 1 of 3: Load sales.csv');
    // The plan, so that the step leaves the others to their cells.
    expect(first).toContain(
      'Its plan, one code cell per step:\\n1. Load sales.csv\\n2. Compute and print the total units'
    );
    expect(first).toContain('West,6');
    expect(JSON.stringify(model.requests[1].messages)).toContain(
      `The notebook is built for this request: \\"${request}\\"`
    );
    // The transcript starts with the user's request.
    const firstLine = s.getSnapshot().items[0];
    expect(firstLine).toMatchObject({ kind: 'user', text: request });
  });
});
