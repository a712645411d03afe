/**
 * The small profile's repairs that name what is missing: the answer form a
 * request spelled out, the failure under an error, and the output of a step
 * the model repeats.
 */
import { askedForm, followsForm, formRepair } from '../loop/answer-form';
import { FORM_REPAIR_NOTICE } from '../loop/next-step';
import { runAgent } from '../loop/run-agent';
import { endNotice } from '../session/notices';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import {
  REPEATED_STEP_MESSAGE,
  commentsOnlyMessage,
  holdsNoCode,
  isRepeatRefusal,
  repeatedStepMessage,
  runsOnlyComments
} from '../loop/stop-conditions';
import { describeFailure, failureFocus } from '../context/failure-focus';
import { RETRY_TEMPERATURE } from '../model/sampling';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { CellOutput } from '../ports';
import type { AgentEvent, ChatMessage } from '../types';

const ASK =
  'Mean of x in a.csv?\n\nFinish your final message with one line `ANSWER: <value>` holding only the value.';

describe('the answer form a request spells out', () => {
  it('is found in backticks or alone on a line, and not in ordinary words', () => {
    expect(askedForm(ASK)).toEqual({
      label: 'ANSWER',
      template: 'ANSWER: <value>'
    });
    expect(askedForm('Reply as\nTotal revenue: <number>\nplease')).toEqual({
      label: 'Total revenue',
      template: 'Total revenue: <number>'
    });
    expect(askedForm('What is the mean: of x? Use a < b > c')).toBeNull();
    expect(askedForm('Plot x: y against <time>')).toBeNull();
  });

  it('is followed by a line with the label, with markdown around it or not', () => {
    const form = askedForm(ASK)!;
    expect(followsForm('The mean is 3.5.\nANSWER: 3.5', form)).toBe(true);
    expect(followsForm('**ANSWER:** 3.5', form)).toBe(true);
    expect(followsForm('answer = 3.5', form)).toBe(true);
    expect(followsForm('The mean is 3.5.', form)).toBe(false);
    expect(followsForm('ANSWER:', form)).toBe(false);
    expect(followsForm('The ANSWER: is below', form)).toBe(false);
  });

  it('is asked for with the template when the answer lacks it, and not otherwise', () => {
    expect(formRepair(ASK, 'The mean is 3.5.')).toBe(
      'Your reply lacks the line the request asks for. Reply with that line, `ANSWER: <value>`, ' +
        'filled in with the values the output above shows, and no code.'
    );
    expect(formRepair(ASK, 'ANSWER: 3.5')).toBeNull();
    expect(formRepair('Mean of x?', 'It is 3.5.')).toBeNull();
  });
});

describe('the failure of an error output', () => {
  const output = [
    'cell_id: c1 raised an error (execution count 1, after 0.6 s).',
    'Output:',
    'ValueError: Cannot subset columns with a tuple with more than one element. Use a list instead.',
    'Traceback (most recent call last; 2 library frames omitted):',
    'Cell In[1], line 7',
    '      5 ',
    "----> 7 t = df.groupby('region')['units', 'unit_price'].sum()",
    '      8 print(t)',
    '[2 library frames omitted]',
    'File pandas/core/groupby.py:1, in f()',
    '-> 1 raise ValueError()'
  ].join('\n');

  it('names the exception and the line of the cell that led there, not the library’s', () => {
    expect(failureFocus(output)).toEqual({
      error:
        'ValueError: Cannot subset columns with a tuple with more than one element. Use a list instead.',
      line: {
        number: 7,
        text: "t = df.groupby('region')['units', 'unit_price'].sum()"
      },
      hint: "Pick several columns with a list, in double brackets: write [['units', 'unit_price']] where the line has ['units', 'unit_price']."
    });
    expect(describeFailure(output)).toBe(
      "failed at line 7 (`t = df.groupby('region')['units', 'unit_price'].sum()`) with " +
        'ValueError: Cannot subset columns with a tuple with more than one element. Use a list instead.\n' +
        "Pick several columns with a list, in double brackets: write [['units', 'unit_price']] where the line has ['units', 'unit_price']."
    );
  });

  it('says how to install a module the kernel lacks, by its install name', () => {
    const hint = (line: string) =>
      failureFocus(`cell_id: c raised an error.\nOutput:\n${line}`)?.hint;
    expect(hint("ModuleNotFoundError: No module named 'matplotlib'")).toBe(
      'The package is not installed in the kernel: install it first with `%pip install matplotlib` (a block of its own), then run the code again.'
    );
    expect(
      hint("ModuleNotFoundError: No module named 'sklearn.linear_model'")
    ).toMatch(/%pip install scikit-learn/);
  });

  it('names the way out of the usual pandas errors a fix meets', () => {
    const focus = (text: string) =>
      failureFocus(`cell_id: c raised an error.\nOutput:\n${text}`);
    const hint = (line: string) => focus(line)?.hint;
    expect(
      hint("ValueError: could not convert string to float: '-0,35'")
    ).toMatch(/decimal=','/);
    expect(
      hint("TypeError: dtype 'str' does not support operation 'mean'")
    ).toMatch(/numeric_only=True/);
    expect(
      hint(
        'ValueError: Length of values (4) does not match length of index (2000)'
      )
    ).toMatch(/\.map\(per_group\).*transform/);
    expect(
      hint("AttributeError: 'DataFrame' object has no attribute 'swapaxes'")
    ).toBe('pandas removed swapaxes: use .T (the transpose) instead.');
    expect(
      hint("AttributeError: 'DataFrame' object has no attribute 'regoin'")
    ).toBe('');
    expect(
      hint(
        'ParserError: Error tokenizing data. C error: Expected 1 fields in line 3, saw 4'
      )
    ).toBe(
      'The table starts at line 3: the 2 line(s) before it are not part of it. Read it with skiprows=2.'
    );
    // A KeyError in a merge: the key is named differently in the two frames.
    expect(
      focus(
        "KeyError: 'product'\nCell In[2], line 1\n----> 1 merged = sales.merge(products, on='product')"
      )?.hint
    ).toMatch(/left_on='<its name in the left frame>', right_on=/);
  });

  it('says how to resample dates read as text', () => {
    const hint = (line: string) =>
      failureFocus(`cell_id: c raised an error.\nOutput:\n${line}`)?.hint;
    expect(
      hint(
        "TypeError: Only valid with DatetimeIndex, TimedeltaIndex or PeriodIndex, but got an instance of 'Index'"
      )
    ).toMatch(/pd\.to_datetime.*before set_index/);
  });

  it('adds the usual way out of the usual data-reading errors', () => {
    const hint = (line: string) =>
      failureFocus(`cell_id: c raised an error.\nOutput:\n${line}`)?.hint;
    expect(
      hint("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xf2")
    ).toMatch(/latin-1/);
    expect(
      hint('ParserError: Error tokenizing data. C error: Expected 1 fields')
    ).toMatch(/skiprows=/);
    expect(hint("KeyError: 'score'")).toMatch(/df\.columns/);
    expect(hint("FileNotFoundError: [Errno 2] No such file: 'x.csv'")).toMatch(
      /listdir/
    );
    expect(hint("NameError: name 'df' is not defined")).toMatch(
      /load the data again/
    );
    // A module's usual short name: the import, not "load the data again".
    expect(hint("NameError: name 'pd' is not defined")).toBe(
      'Start the block with `import pandas as pd`.'
    );
    expect(hint("NameError: name 'plt' is not defined")).toContain(
      'import matplotlib.pyplot as plt'
    );
    expect(hint('ZeroDivisionError: division by zero')).toBe('');
    // Dates and numbers read as text; a function that does not exist.
    expect(
      hint('AttributeError: Can only use .dt accessor with datetimelike values')
    ).toMatch(/pd\.to_datetime/);
    expect(
      hint("ValueError: could not convert string to float: '$1,204.50'")
    ).toMatch(/pd\.to_numeric/);
    expect(
      hint("TypeError: unsupported operand type(s) for *: 'int' and 'str'")
    ).toMatch(/pd\.to_numeric/);
    expect(
      hint("AttributeError: module 'pandas' has no attribute 'stats'")
    ).toMatch(/does not exist/);
    // Not a module: a DataFrame attribute is likely a column name.
    expect(
      hint("AttributeError: 'DataFrame' object has no attribute 'revenue'")
    ).toBe('');
  });

  it('passes on the fix an error message itself proposes', () => {
    const hint = (line: string) =>
      failureFocus(`cell_id: c raised an error.\nOutput:\n${line}`)?.hint;
    // pandas 3 rejects the aliases small models learned.
    expect(
      hint(
        `ValueError: Invalid frequency: M. Failed to parse with error message: ValueError("'M' is no longer supported for offsets. Please use 'ME' instead.")`
      )
    ).toBe(
      "The error names the fix: write 'ME' where the block has the name it rejects."
    );
    expect(hint('ValueError: Invalid frequency: H. Did you mean h?')).toContain(
      "write 'h'"
    );
    expect(
      hint(
        "AttributeError: 'DataFrame' object has no attribute 'colums'. Did you mean: 'columns'?"
      )
    ).toContain("write 'columns'");
    // A known cause keeps its own hint.
    expect(hint("KeyError: 'x'. Did you mean 'y'?")).toMatch(/df\.columns/);
    expect(hint('ValueError: math domain error')).toBe('');
  });

  it('is null for an output without an exception', () => {
    expect(failureFocus('cell_id: c finished OK.\nOutput:\n3')).toBeNull();
    expect(
      describeFailure('cell_id: c raised an error.\n(no message)')
    ).toBeNull();
  });
});

describe('the refusal of a repeated step', () => {
  it('names the failure the code had, quotes the output it gave, or stays general', () => {
    expect(
      repeatedStepMessage(
        "cell_id: c raised an error (execution count 2).\nOutput:\nKeyError: 'City'"
      )
    ).toBe(
      "Not run: this is the code that just failed with KeyError: 'City'\n" +
        'That name is not there: use a name that exists (print df.columns, or read the columns listed above), ' +
        'or create that column first. Only when the frame has a single column was the file read with the wrong ' +
        'separator: then check sep= against its first lines.\n' +
        'Write different code that avoids that error.'
    );
    expect(
      repeatedStepMessage(
        'cell_id: c finished OK (execution count 1).\nOutput:\n0.9922'
      )
    ).toBe(
      'Not run: this code already ran, and its output was:\n0.9922\n' +
        'If that answers the request, answer now with those values and no code; otherwise try something different.'
    );
    const long = repeatedStepMessage(
      `cell_id: c finished OK.\nOutput:\n${'9'.repeat(2000)}`
    );
    expect(long.length).toBeLessThan(600);
    expect(repeatedStepMessage(null)).toBe(REPEATED_STEP_MESSAGE);
    expect(isRepeatRefusal(long)).toBe(true);
    expect(isRepeatRefusal(REPEATED_STEP_MESSAGE)).toBe(true);
    expect(isRepeatRefusal('Not run: the user stopped the agent.')).toBe(false);
  });
});

describe('the loop asks once for the form the request spelled out', () => {
  const tools = new ToolRegistry(agentTools());
  const run = async (
    replies: ConstructorParameters<typeof ScriptedModel>[0],
    computeFirst: boolean
  ) => {
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '3.5\n' }]
    });
    const model = new ScriptedModel(replies);
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: ASK }
    ];
    const events: AgentEvent[] = [];
    const outcome = await runAgent(
      runConfig({
        model,
        tools,
        ...(computeFirst
          ? { computeFirst: { protocol: 'native' as const } }
          : {})
      }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: e => events.push(e)
      }
    );
    return { outcome, model, messages, events };
  };
  const compute = {
    toolCalls: [
      {
        name: 'insert_cell',
        arguments: { source: 'print(df.units.mean())', run: true }
      }
    ]
  };

  it('sends a computed answer in prose back for the line, and ends with it', async () => {
    const { outcome, model, messages, events } = await run(
      [compute, { text: 'The mean is 3.5.' }, { text: 'ANSWER: 3.5' }],
      true
    );
    expect(outcome).toMatchObject({ reason: 'completed', steps: 3 });
    expect(model.requests[2].messages.at(-1)?.content).toContain(
      '`ANSWER: <value>`'
    );
    expect(events).toContainEqual({ type: 'notice', text: FORM_REPAIR_NOTICE });
    expect(messages.at(-1)).toMatchObject({ content: 'ANSWER: 3.5' });
  });

  it('asks once only, and not at all without the small profile', async () => {
    const twice = await run(
      [compute, { text: 'The mean is 3.5.' }, { text: 'It is 3.5.' }],
      true
    );
    expect(twice.outcome).toMatchObject({ reason: 'completed', steps: 3 });
    const standard = await run([compute, { text: 'The mean is 3.5.' }], false);
    expect(standard.outcome).toMatchObject({ reason: 'completed', steps: 2 });
    expect(standard.events).not.toContainEqual({
      type: 'notice',
      text: FORM_REPAIR_NOTICE
    });
  });
});

describe('the reply after a refused repeat (small profile)', () => {
  const tools = new ToolRegistry(agentTools());
  const same = {
    toolCalls: [
      { name: 'insert_cell', arguments: { source: 'print(x)', run: true } }
    ]
  };
  const run = async (
    computeFirst: boolean,
    outputs: () => CellOutput[],
    request = ASK
  ) => {
    const model = new ScriptedModel([same, same, { text: 'ANSWER: 3.5' }]);
    const outcome = await runAgent(
      runConfig({
        model,
        tools,
        ...(computeFirst ? { computeFirst: { protocol: 'text' as const } } : {})
      }),
      {
        notebook: new FakeNotebook({ execute: outputs }),
        conversation: arrayConversation([
          { role: 'system', content: 's' },
          { role: 'user', content: request }
        ]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    const last = model.requests[2];
    return { outcome, temperature: last?.temperature, prefill: last?.prefill };
  };
  const printed = () => [
    { type: 'stream' as const, name: 'stdout' as const, text: '3.5\n' }
  ];
  const failed = () => [
    {
      type: 'error' as const,
      ename: 'NameError',
      evalue: "name 'x' is not defined",
      traceback: []
    }
  ];

  it('is begun with the asked answer line when the repeated step printed something', async () => {
    const small = await run(true, printed);
    expect(small.outcome.reason).toBe('completed');
    expect(small).toMatchObject({ prefill: 'ANSWER:', temperature: undefined });
  });

  it('is sampled, once, after a repeated failure, or when the request asked no form', async () => {
    expect(await run(true, failed)).toMatchObject({
      prefill: undefined,
      temperature: RETRY_TEMPERATURE
    });
    expect(await run(true, printed, 'Mean of x in a.csv?')).toMatchObject({
      prefill: undefined,
      temperature: RETRY_TEMPERATURE
    });
    // Other profiles keep the server's (or their own) sampling, and no prefill.
    expect(await run(false, printed)).toMatchObject({
      prefill: undefined,
      temperature: undefined
    });
  });
});

describe('a block of comments only', () => {
  /** The loop with the agent's tools, asked ASK on `notebook`; its events into `events`. */
  const askOn = (
    model: ScriptedModel,
    notebook: FakeNotebook,
    events: AgentEvent[] = []
  ) =>
    runAgent(runConfig({ model, tools: new ToolRegistry(agentTools()) }), {
      notebook,
      conversation: arrayConversation([
        { role: 'system', content: 's' },
        { role: 'user', content: ASK }
      ]),
      signal: new AbortController().signal,
      onEvent: event => events.push(event)
    });

  it('is told apart from code', () => {
    expect(holdsNoCode('# The code above is right\n\n  # really')).toBe(true);
    expect(holdsNoCode('')).toBe(true);
    expect(holdsNoCode('# total\nprint(df.units.sum())')).toBe(false);
    expect(holdsNoCode('%pip install pandas')).toBe(false);
    expect(holdsNoCode('x = 1  # a comment after code')).toBe(false);
  });

  it('counts a docstring, a string on its own, pass and ... as no code; not a string in a statement', () => {
    for (const none of [
      '"""The code above is right.\n\nIt sums the revenue."""',
      "# checked\n'''Nothing to change'''\npass",
      '"The answer is 42"',
      "r'raw'  # note",
      '...',
      'pass  # done',
      '"""left open'
    ]) {
      expect([none, holdsNoCode(none)]).toEqual([none, true]);
    }
    for (const code of [
      'q = """\nSELECT 1\n"""',
      'print("""a""")',
      'f"{df.shape}"',
      'f"""{df.shape}"""',
      '"a" + "b"',
      '"""Doc."""\ndf.head()',
      'passed = 1',
      'x = ...'
    ]) {
      expect([code, holdsNoCode(code)]).toEqual([code, false]);
    }
  });

  it('is refused with the failure before it, the output before it, or a plain request for code', () => {
    const failed = commentsOnlyMessage(
      'cell_id: c raised an error (execution count 1).\nOutput:\n' +
        'ValueError: Cannot subset columns with a tuple with more than one element. Use a list instead.'
    );
    expect(failed).toMatch(
      /^Not run: that block holds only comments, no code\. The code before it failed with ValueError: Cannot subset columns/
    );
    expect(failed).toMatch(/double brackets/);
    expect(failed).toMatch(/Write code that avoids that error\.$/);
    expect(
      commentsOnlyMessage(
        'cell_id: c finished OK (execution count 1).\nOutput:\n42'
      )
    ).toBe(
      "Not run: that block holds only comments, no code. The last code's output was:\n42\n" +
        'If that answers the request, answer now with those values and no code; otherwise write code that computes it.'
    );
    expect(commentsOnlyMessage(null)).toBe(
      'Not run: that block holds only comments, no code. Write Python that computes what was asked and prints it.'
    );
  });

  it('counts only for calls that run code they carry', () => {
    const tools = new ToolRegistry(agentTools());
    const insert = (source: string, run = true) => ({
      name: 'insert_cell',
      arguments: JSON.stringify({ source, run })
    });
    expect(runsOnlyComments(tools, [insert('# done')])).toBe(true);
    expect(runsOnlyComments(tools, [insert('# done'), insert('x = 1')])).toBe(
      false
    );
    // A cell of comments inserted without a run is the model's to write.
    expect(runsOnlyComments(tools, [insert('# notes', false)])).toBe(false);
    expect(
      runsOnlyComments(tools, [
        { name: 'run_cell', arguments: '{"cell_id":"a"}' }
      ])
    ).toBe(false);
  });

  it('puts no cell in the notebook, and the model hears why and answers', async () => {
    const comments = {
      toolCalls: [
        {
          name: 'insert_cell',
          arguments: {
            source: '# The code above correctly calculates the total',
            run: true
          }
        }
      ]
    };
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: 'insert_cell',
            arguments: { source: 'print(3.5)', run: true }
          }
        ]
      },
      comments,
      { text: 'ANSWER: 3.5' }
    ]);
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '3.5\n' }]
    });
    const outcome = await askOn(model, notebook);
    expect(outcome.reason).toBe('completed');
    const sources = (await notebook.getCells()).map(cell => cell.source);
    expect(sources).toEqual(['print(3.5)']);
    const told = model.requests[2].messages.at(-1);
    expect(told?.role).toBe('tool');
    expect(told?.content).toBe(
      "Not run: that block holds only comments, no code. The last code's output was:\n3.5\n" +
        'If that answers the request, answer now with those values and no code; otherwise write code that computes it.'
    );
  });

  it('ends the run on the third such block, each one different, and says why', async () => {
    const block = (source: string) => ({
      toolCalls: [{ name: 'insert_cell', arguments: { source, run: true } }]
    });
    const model = new ScriptedModel([
      block('# The total is right'),
      block('"""Nothing to change."""'),
      block('pass  # done'),
      { text: 'ANSWER: never asked for' }
    ]);
    const notebook = new FakeNotebook({ execute: () => [] });
    const events: AgentEvent[] = [];
    const outcome = await askOn(model, notebook, events);
    expect(outcome.reason).toBe('no-code');
    expect(model.requests).toHaveLength(3);
    expect(await notebook.getCells()).toEqual([]);
    const end = events.find(event => event.type === 'end');
    expect(end && end.type === 'end' && endNotice(end)).toMatch(
      /^Stopped: three times the model sent a block with no code/
    );
  });
});

describe('columns picked with a tuple', () => {
  const hint = (text: string) =>
    failureFocus(`cell_id: c raised an error.\nOutput:\n${text}`)?.hint;
  const error =
    'ValueError: Cannot subset columns with a tuple with more than one element. Use a list instead.';

  it('gets the failing line’s own columns back in double brackets', () => {
    expect(
      hint(
        `${error}\nCell In[1], line 3\n----> 3 region_revenue = df.groupby('region')['units', 'unit_price'].sum()`
      )
    ).toBe(
      "Pick several columns with a list, in double brackets: write [['units', 'unit_price']] where the line has ['units', 'unit_price']."
    );
  });

  it('gets the general form when the line is not shown', () => {
    expect(hint(error)).toMatch(/\[\['a', 'b'\]\], not \['a', 'b'\]/);
  });
});

describe('a month column of periods', () => {
  const hint = (text: string) =>
    failureFocus(`cell_id: c raised an error.\nOutput:\n${text}`)?.hint;

  // The errors as pandas 2 and matplotlib 3 raise them (copied from a kernel).
  it('is not made periods again, and is plotted as text', () => {
    expect(
      hint(
        "AttributeError: 'PeriodProperties' object has no attribute 'to_period'"
      )
    ).toMatch(/^The column holds periods already .*astype\(str\)/);
    for (const error of [
      "TypeError: float() argument must be a string or a real number, not 'Period'",
      'TypeError: the dtypes of parameters x (object) and width (float64) are incompatible'
    ]) {
      expect(hint(error)).toMatch(/^Matplotlib cannot draw these x values/);
    }
  });
});
