import { computeRepair, MAX_COMPUTE_REPAIRS } from '../loop/compute-check';
import { TurnAccumulator } from '../model/accumulator';
import { CODE_PREFILL, TextProtocolClient } from '../loop/text-protocol-client';
import {
  FIX_REQUEST,
  restatement,
  toTextProtocol,
  withoutTextAfterCode
} from '../loop/text-protocol-messages';
import {
  extractCodeBlocks,
  isAnswerLines,
  withoutCodeBlock,
  withoutGuessLines
} from '../loop/code-blocks';
import { dataPreview, headOf, namedDataFiles } from '../context/data-preview';
import { COMPUTE_REPAIR_NOTICE } from '../loop/next-step';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { profileOf, capabilitiesFor } from '../model/capabilities';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';

const tools = new ToolRegistry(agentTools());
const runsCode = (call: { name: string; arguments: string }) =>
  tools.runsCode(call);

const CSV =
  'region,units\nNorth,3\nSouth,5\nEast,7\nWest,2\nNorth,1\nSouth,9\nEast,4\n';

describe('data preview', () => {
  it('finds the data files a request names, whole names only, in its order', () => {
    const entries = [
      { path: 'w/sales.csv', type: 'file' as const, size: 10 },
      { path: 'w/sales.csv.bak', type: 'file' as const, size: 10 },
      { path: 'w/presales.csv', type: 'file' as const, size: 10 },
      { path: 'w/customers.csv', type: 'file' as const, size: 10 },
      { path: 'w/plot.png', type: 'file' as const, size: 10 },
      { path: 'w/a.ipynb', type: 'notebook' as const, size: 10 }
    ];
    const names = namedDataFiles(
      'Join customers.csv with sales.csv; ignore plot.png.',
      entries
    ).map(e => e.path);
    expect(names).toEqual(['w/customers.csv', 'w/sales.csv']);
    expect(namedDataFiles('no file here', entries)).toEqual([]);
  });

  it('shows a few cut lines, and no line count a model could take for the row count', () => {
    const head = headOf(`${'x'.repeat(400)}\n${CSV}`);
    expect(head.split('\n')[0]).toBe(`${'x'.repeat(160)}…`);
    expect(head.split('\n').pop()).toBe('…');
    expect(head).not.toMatch(/\b9\b/);
    expect(head.split('\n')).toHaveLength(7);
    expect(headOf('a,b\n1,2\n')).toBe('a,b\n1,2');
  });

  it('reads the named files of the notebook folder, and says when it cannot', async () => {
    const notebook = new FakeNotebook({
      path: 'work/t.ipynb',
      files: { 'work/sales.csv': CSV, 'other/sales.csv': 'wrong' }
    });
    const preview = await dataPreview('How many rows has sales.csv?', notebook);
    expect(preview).toContain('First lines of sales.csv, as stored:');
    expect(preview).toContain('region,units\nNorth,3');
    expect(preview).not.toContain('wrong');
    expect(await dataPreview('What is 2 + 2?', notebook)).toBeNull();
    notebook.readFile = () => Promise.reject(new Error('not UTF-8'));
    expect(await dataPreview('Read sales.csv', notebook)).toContain(
      'not readable as UTF-8 text'
    );
  });
});

describe('compute check', () => {
  const base = (
    answer: string,
    extra: ChatMessage[] = [],
    over: Partial<Parameters<typeof computeRepair>[0]> = {}
  ) =>
    computeRepair({
      messages: [
        { role: 'system', content: 's' },
        {
          role: 'user',
          content: 'How many orders over 14 units are in sales.csv?'
        },
        ...extra,
        { role: 'assistant', content: answer }
      ],
      prompt: 1,
      runsCode,
      asksData: true,
      protocol: 'text',
      repairs: 0,
      ...over
    })?.text ?? null;
  const ran = (output: string, source = 'print(1)'): ChatMessage[] => [
    {
      role: 'assistant',
      content: null,
      toolCalls: [
        {
          id: 'c1',
          name: 'insert_cell',
          arguments: JSON.stringify({ source, run: true })
        }
      ]
    },
    { role: 'tool', toolCallId: 'c1', content: output }
  ];

  it('sends back numbers that only code typing them in printed', () => {
    const typed = base(
      'ANSWER: 10000000.00',
      ran('10000000.0\n', 'total = 10000000.00\nprint(total)')
    );
    expect(typed).toContain(
      'Your answer states 10000000.00, which your code typed in instead of computing.'
    );
    expect(typed).toContain('from the data in one ```python block');
    expect(base('ANSWER: 2000', ran('2000\n', 'print(2000)'))).toContain(
      'typed in'
    );
    // Computed from the data: it stands, whatever literals the code has.
    expect(
      base(
        'ANSWER: 2000',
        ran(
          '2000\n',
          "df = pd.read_csv('sales.csv')\nprint(len(df[df.units > 14]))"
        )
      )
    ).toBeNull();
  });

  it('sends back an answer given without running code on named data', () => {
    expect(base('There are 42 orders. ANSWER: 42')).toMatch(
      /no code has run yet.*```python block/
    );
    // No data named, but invented numbers: also a guess.
    expect(base('It is 3.75.', [], { asksData: false })).toMatch(
      /no code has run yet/
    );
    // No data named, nothing stated: a plain answer stands.
    expect(base('Hello! How can I help?', [], { asksData: false })).toBeNull();
    // The user's own numbers are not invented.
    expect(
      base('Orders over 14 units: none.', [], { asksData: false })
    ).toBeNull();
  });

  it('sends back numbers no output shows, and lets computed ones stand', () => {
    expect(base('ANSWER: 42', ran('42\n'))).toBeNull();
    expect(base('About 41.96, so ANSWER: 42', ran('41.9583\n'))).toBeNull();
    const repair = base('ANSWER: 57', ran('42\n'), { protocol: 'native' });
    expect(repair).toContain('Your answer states 57, which no output shows.');
    expect(repair).toContain('insert_cell (run: true)');
  });

  it('sends back an answer of any form when every run of the turn failed (Qwen2.5-Coder-1.5B)', () => {
    const failed = ran(
      "cell_id: c raised an error (execution count 2).\nOutput:\nAttributeError: 'str' object has no attribute 'strftime'"
    );
    for (const answer of ['ANSWER: 2024-01', 'ANSWER: 1', 'ANSWER: Riga']) {
      expect(base(answer, failed)).toMatch(
        /^None of your code has run without an error yet.*```python block/
      );
    }
    // One clean run in the turn: the answer is judged by its numbers.
    const clean = ran(
      'cell_id: d finished OK (execution count 3).\nOutput:\n1'
    );
    expect(base('ANSWER: 1', [...failed, ...clean])).toBeNull();
    // Not a question about data: it stands.
    expect(base('ANSWER: Riga', failed, { asksData: false })).toBeNull();
  });

  it('stops after the bound, and never for a reply with tool calls', () => {
    expect(base('ANSWER: 42', [], { repairs: MAX_COMPUTE_REPAIRS })).toBeNull();
    expect(
      computeRepair({
        messages: [
          { role: 'assistant', content: 'x', toolCalls: [] },
          ...ran('1')
        ],
        prompt: 0,
        runsCode,
        asksData: true,
        protocol: 'native',
        repairs: 0
      })
    ).toBeNull();
  });
});

describe('the loop with computeFirst', () => {
  it('previews the data, repairs a guess, and ends with the computed answer', async () => {
    const notebook = new FakeNotebook({
      path: 'work/t.ipynb',
      files: { 'work/sales.csv': CSV },
      execute: () => [{ type: 'stream', name: 'stdout', text: '31\n' }]
    });
    const model = new ScriptedModel([
      { text: 'ANSWER: 12' },
      {
        toolCalls: [
          {
            name: 'insert_cell',
            arguments: { source: 'print(df.units.sum())', run: true }
          }
        ]
      },
      { text: 'The total is 31. ANSWER: 31' }
    ]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'Total units in sales.csv?' }
    ];
    const events: AgentEvent[] = [];
    const outcome = await runAgent(
      runConfig({ model, tools, computeFirst: { protocol: 'native' } }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: e => events.push(e)
      }
    );
    expect(outcome.reason).toBe('completed');
    expect(outcome.steps).toBe(3);
    // The first request already carries the file's first lines.
    const first = model.requests[0].messages;
    expect(model.requests[0].toolChoice).toBeUndefined();
    // After the repair for a guess, code is asked for; then the model decides.
    expect(model.requests[1].toolChoice).toBe('required');
    expect(model.requests[2].toolChoice).toBeUndefined();
    expect(first[2]).toMatchObject({ role: 'user', observation: true });
    expect(first[2].content).toContain('region,units');
    // The guess went back with a repair request, shown as a notice; the
    // model does not see its guess again, the history keeps it (marked).
    expect(model.requests[1].messages.at(-1)?.content).toMatch(
      /no code has run yet/
    );
    for (const request of model.requests.slice(1)) {
      expect(request.messages.map(m => m.content)).not.toContain('ANSWER: 12');
    }
    expect(messages).toContainEqual({
      role: 'assistant',
      content: 'ANSWER: 12',
      guess: true
    });
    expect(events).toContainEqual({
      type: 'notice',
      text: COMPUTE_REPAIR_NOTICE
    });
    expect(messages.at(-1)).toMatchObject({
      content: 'The total is 31. ANSWER: 31'
    });
  });

  it('leaves the reply to code that failed to the model (the fix request is in the output)', async () => {
    let runs = 0;
    const notebook = new FakeNotebook({
      execute: () =>
        runs++ === 0
          ? [{ type: 'error', ename: 'KeyError', evalue: 'x', traceback: [] }]
          : [{ type: 'stream', name: 'stdout', text: '5\n' }]
    });
    const call = (source: string) => ({
      toolCalls: [{ name: 'insert_cell', arguments: { source, run: true } }]
    });
    const model = new ScriptedModel([
      call('print(df.x)'),
      call('print(5)'),
      { text: 'It is 5.' }
    ]);
    await runAgent(
      runConfig({ model, tools, computeFirst: { protocol: 'native' } }),
      {
        notebook,
        conversation: arrayConversation([
          { role: 'system', content: 's' },
          { role: 'user', content: 'What is x?' }
        ]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(model.requests.map(r => r.toolChoice)).toEqual([
      undefined,
      undefined,
      undefined
    ]);
  });

  it('asks for code after an answer that followed only failed runs, and marks it when it stands', async () => {
    const notebook = new FakeNotebook({
      path: 'work/t.ipynb',
      files: { 'work/sales.csv': CSV },
      // A different error each time (the same one three times ends the run).
      execute: source => [
        { type: 'error', ename: 'KeyError', evalue: source, traceback: [] }
      ]
    });
    const call = (source: string) => ({
      toolCalls: [{ name: 'insert_cell', arguments: { source, run: true } }]
    });
    const model = new ScriptedModel([
      call("print(df['regoin'].mode())"),
      { text: 'ANSWER: North' },
      call("print(df['regoin'].mode()[0])"),
      { text: 'ANSWER: North' },
      call("print(df['regoin'].value_counts())"),
      { text: 'ANSWER: North' }
    ]);
    const outcome = await runAgent(
      runConfig({ model, tools, computeFirst: { protocol: 'native' } }),
      {
        notebook,
        conversation: arrayConversation([
          { role: 'system', content: 's' },
          { role: 'user', content: 'Which region of sales.csv has most rows?' }
        ]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    // Sent back twice (the bound), code asked for each time; then it stands, marked.
    expect(model.requests).toHaveLength(6);
    expect(model.requests[2].messages.at(-1)?.content).toMatch(
      /^None of your code has run without an error yet/
    );
    expect(model.requests[2].toolChoice).toBe('required');
    expect(outcome).toMatchObject({
      reason: 'completed',
      answer: 'ANSWER: North',
      uncomputed: true
    });
  });

  it('without computeFirst, the loop is as before: no preview, the guess stands', async () => {
    const notebook = new FakeNotebook({ files: { 'sales.csv': CSV } });
    const model = new ScriptedModel([{ text: 'ANSWER: 12' }]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'Total units in sales.csv?' }
    ];
    const outcome = await runAgent(runConfig({ model, tools }), {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: () => undefined
    });
    expect(outcome.steps).toBe(1);
    expect(model.requests[0].messages).toHaveLength(2);
  });
});

describe('profile from the model name', () => {
  it.each([
    ['qwen2.5-coder-1.5b-instruct', 'small'],
    ['Qwen2.5-Coder-0.5B-Instruct-Q8_0.gguf', 'small'],
    ['qwen2.5-coder:1.5b', 'small'],
    ['llama3.2:1b', 'small'],
    ['llama3.2:3b', 'small'],
    ['gemma-3-270m', 'small'],
    ['SmolLM2-135M-Instruct', 'small'],
    ['qwen2.5:7b', 'standard'],
    ['mixtral-8x7b', 'standard'],
    ['gpt-4o-mini', 'standard'],
    ['claude-sonnet-4', 'standard'],
    ['qwen2.5-coder', 'standard']
  ])('%s is %s', (name, profile) => {
    expect(profileOf(name)).toBe(profile);
    expect(capabilitiesFor(name).profile).toBe(profile);
  });

  it('is overridable in the settings', () => {
    expect(
      capabilitiesFor('my-tiny', { 'my-*': { profile: 'small' } }).profile
    ).toBe('small');
    expect(
      capabilitiesFor('qwen2.5:1.5b', {
        'qwen2.5:1.5b': { profile: 'standard' }
      }).profile
    ).toBe('standard');
  });
});

describe('answer lines in a code fence', () => {
  it('are the answer, not code to run', () => {
    expect(isAnswerLines('ANSWER: 10.1557')).toBe(true);
    expect(isAnswerLines('Result: North\nANSWER: North')).toBe(true);
    expect(isAnswerLines('MAX: int = 5')).toBe(false);
    expect(isAnswerLines('TypeError: cannot convert tuple to string')).toBe(
      false
    );
    expect(isAnswerLines('print(1)')).toBe(false);
    expect(isAnswerLines('df = pd.read_csv("a.csv")\nANSWER: 3')).toBe(false);
    expect(
      extractCodeBlocks(
        'Done.\n```python\nANSWER: 10.1557\n```\n```python\nprint(2)\n```'
      )
    ).toEqual(['print(2)']);
  });

  it('written at the end of code, are a guess: not run, not shown back, not on the card twice', () => {
    const reply =
      "```python\nimport pandas as pd\nprint(pd.read_csv('a.csv').x.sum())\nANSWER: 100000.00\n```";
    const code = "import pandas as pd\nprint(pd.read_csv('a.csv').x.sum())";
    expect(extractCodeBlocks(reply)).toEqual([code]);
    // Code that only looks alike stays: an assignment, a dict entry, a call.
    expect(withoutGuessLines('LIMIT: int = 5\nprint(LIMIT)')).toBe(
      'LIMIT: int = 5\nprint(LIMIT)'
    );
    expect(withoutGuessLines("    ANSWER: 'a',")).toBe("    ANSWER: 'a',");
    expect(withoutGuessLines('NOTE: print(1)')).toBe('NOTE: print(1)');
    // The model sees its reply without the guess; the transcript shows the code once.
    const view = toTextProtocol(
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'Sum of x in a.csv?' },
        {
          role: 'assistant',
          content: reply,
          toolCalls: [{ id: 'c1', name: 'add_and_run_cell', arguments: '{}' }]
        },
        { role: 'tool', toolCallId: 'c1', content: '42' }
      ],
      { restateRequest: true }
    );
    expect(view[2].content).not.toContain('100000');
    expect(view[2].content).toContain('print(pd.read_csv');
    expect(withoutCodeBlock(`Here:\n${reply}`, code)).toBe('Here:');
  });

  it('a block left open at the end of a reply is code', () => {
    expect(
      extractCodeBlocks('Try:\n```python\nprint(2 ** 10)  # Output: 1')
    ).toEqual(['print(2 ** 10)  # Output: 1']);
    expect(
      extractCodeBlocks('```python\nprint(1)\n```\nthen\n```python\nprint(2)')
    ).toEqual(['print(1)', 'print(2)']);
    expect(extractCodeBlocks('No code, just ``` a stray fence')).toEqual([]);
  });
});

describe('restating the request (text protocol, small models)', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 's' },
    { role: 'user', content: 'Mean of x in a.csv? End with ANSWER: <value>.' },
    { role: 'user', content: 'First lines of a.csv', observation: true },
    {
      role: 'assistant',
      content: '```python\nprint(1)\n```',
      toolCalls: [{ id: 'c1', name: 'add_and_run_cell', arguments: '{}' }]
    },
    { role: 'tool', toolCallId: 'c1', content: '3.5' }
  ];

  it('puts the request under each output, only when asked', () => {
    const restated = toTextProtocol(messages, { restateRequest: true });
    const output = restated[restated.length - 1];
    expect(output.content).toContain('Output of the code you ran:\n3.5');
    expect(output.content).toContain(
      '"""\nMean of x in a.csv? End with ANSWER: <value>.\n"""'
    );
    // The preview (an observation too) is not taken for the request.
    expect(output.content).not.toContain('First lines');
    const plain = toTextProtocol(messages);
    expect(plain[plain.length - 1].content).toBe(
      'Output of the code you ran:\n3.5'
    );
  });

  it('asks for the fix under an error, not the request', () => {
    const failed = toTextProtocol(
      [
        ...messages.slice(0, 4),
        {
          role: 'tool',
          toolCallId: 'c1',
          content:
            'cell_id: c1 raised an error (execution count 1, after 0.1 s).\nKeyError: x'
        }
      ],
      { restateRequest: true }
    );
    const output = failed[failed.length - 1].content;
    expect(output).toContain(
      'The code failed with KeyError: x\nThat name is not there: use a name that exists (print df.columns'
    );
    expect(output).toMatch(
      /Reply with the corrected code in one ```python block\.$/
    );
    expect(output).not.toContain('The request you are working on');
  });

  it('asks for the fix in general words when the output shows no exception', () => {
    const failed = toTextProtocol(
      [
        ...messages.slice(0, 4),
        {
          role: 'tool',
          toolCallId: 'c1',
          content:
            'cell_id: c1 raised an error (execution count 1, after 0.1 s).\n(no message)'
        }
      ],
      { restateRequest: true }
    );
    expect(failed[failed.length - 1].content).toContain(FIX_REQUEST);
  });

  it('drops the words after the code of a reply that ran it (a guess written before any output)', () => {
    const shown = toTextProtocol(
      [
        { role: 'user', content: 'Mean of x in a.csv?' },
        {
          role: 'assistant',
          content: 'Reading it.\n```python\nprint(1)\n```\nANSWER: -0.45',
          toolCalls: [{ id: 'c1', name: 'add_and_run_cell', arguments: '{}' }]
        },
        {
          role: 'tool',
          toolCallId: 'c1',
          content: 'cell_id: c1 finished OK.\nOutput:\n0.99'
        },
        { role: 'assistant', content: 'ANSWER: 0.99' }
      ],
      { restateRequest: true }
    );
    expect(shown[1].content).toBe('Reading it.\n```python\nprint(1)\n```');
    // A final answer keeps its words; without the small profile nothing changes.
    expect(shown[3].content).toBe('ANSWER: 0.99');
    expect(
      toTextProtocol([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: '```python\nprint(1)\n```\nANSWER: -0.45',
          toolCalls: [{ id: 'c1', name: 'add_and_run_cell', arguments: '{}' }]
        }
      ])[1].content
    ).toContain('ANSWER: -0.45');
    // An unclosed block is left whole.
    expect(withoutTextAfterCode('```python\nx = 1\n``` and ```')).toBe(
      '```python\nx = 1\n``` and ```'
    );
  });

  it('cuts a long request', () => {
    expect(restatement('x'.repeat(5000)).length).toBeLessThan(900);
  });
});

describe('the text protocol asks for code by prefill', () => {
  const reply = (deltas: string[]) =>
    new TextProtocolClient({
      model: 'm',
      async *streamChat(request) {
        seen.push(request.messages);
        for (const content of deltas) {
          yield { choices: [{ index: 0, delta: { content } }] };
        }
      }
    });
  let seen: ChatMessage[][] = [];
  beforeEach(() => (seen = []));

  async function play(client: TextProtocolClient, toolChoice?: 'required') {
    const acc = new TurnAccumulator();
    for await (const chunk of client.streamChat(
      { messages: [{ role: 'user', content: 'q' }], tools: [], toolChoice },
      new AbortController().signal
    )) {
      acc.add(chunk);
    }
    return acc.result();
  }

  it('sends the begun block and keeps a repeated prefill once (llama-server)', async () => {
    const turn = await play(
      reply(['```python\nprint(', '1)\n```']),
      'required'
    );
    expect(seen[0].at(-1)).toEqual({
      role: 'assistant',
      content: CODE_PREFILL
    });
    expect(turn.text).toBe('```python\nprint(1)\n```');
    expect(turn.toolCalls.map(c => JSON.parse(c.arguments).source)).toEqual([
      'print(1)'
    ]);
  });

  it('begins the reply with the text a request asks for (the answer line), as an answer, not code', async () => {
    const acc = new TurnAccumulator();
    for await (const chunk of reply([' 2000']).streamChat(
      {
        messages: [{ role: 'user', content: 'q' }],
        tools: [],
        prefill: 'ANSWER:'
      },
      new AbortController().signal
    )) {
      acc.add(chunk);
    }
    const turn = acc.result();
    expect(seen[0].at(-1)).toEqual({ role: 'assistant', content: 'ANSWER:' });
    expect(turn.text).toBe('ANSWER: 2000');
    expect(turn.toolCalls).toEqual([]);
  });

  it('puts the prefill back for a server that continues without it, and closes a cut block', async () => {
    const turn = await play(reply(['print(2)']), 'required');
    expect(turn.text).toBe('```python\nprint(2)\n```');
    expect(turn.toolCalls).toHaveLength(1);
  });

  it('leaves a fresh answer as it is, and prefills nothing unless asked', async () => {
    expect((await play(reply(['```python\nx\n```']), 'required')).text).toBe(
      '```python\nx\n```'
    );
    const plain = await play(reply(['Hello']));
    expect(seen[1].at(-1)).toEqual({ role: 'user', content: 'q' });
    expect(plain.text).toBe('Hello');
  });
});
