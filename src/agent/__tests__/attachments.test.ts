import {
  describeVariableRows,
  mentionProbe,
  variableMentions
} from '../context/attachments';
import { variablesProbeCode } from '../tools/variables-probe';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

describe('prompt attachments', () => {
  it('finds @variable mentions (identifiers only, no e-mail addresses, no repeats)', () => {
    expect(
      variableMentions(
        'Plot @df by month, compare with @sales_2024 and @df; mail a@b.com'
      )
    ).toEqual(['df', 'sales_2024']);
    // Only identifiers reach the Python code.
    expect(variablesProbeCode(mentionProbe(['df']))).toContain(
      '_notebook_agent_probe(["df"], False, 300, 1)'
    );
  });

  it('sends files, cells and what the kernel says about @variables with the request, and shows a short line', async () => {
    const executed: string[] = [];
    const notebook = new FakeNotebook({
      execute: source => {
        executed.push(source);
        return [
          {
            type: 'stream',
            name: 'stdout',
            text: `${JSON.stringify([
              {
                name: 'df',
                type: 'pandas.DataFrame',
                shape: [3, 2],
                columns: [
                  ['a', 'int64'],
                  ['b', 'object']
                ],
                columnCount: 2,
                repr: '   a  b'
              }
            ])}\n`
          }
        ];
      }
    });
    const model = new ScriptedModel([{ text: 'Done.' }]);
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    await session.send(
      'Explain @df using the file',
      { model: () => model, notebook },
      {
        files: [{ name: 'sales.csv', size: 2048 }],
        cells: [{ id: 'c7', index: 3, source: 'df = load()' }]
      }
    );
    const sent = model.requests[0].messages
      .filter(m => m.role === 'user')
      .pop()!.content as string;
    expect(sent.startsWith('Explain @df using the file')).toBe(true);
    expect(sent).toContain('- sales.csv (~2 KB)');
    expect(sent).toContain(
      'Cell 3 (cell_id c7), which the user points to:\n```python\ndf = load()\n```'
    );
    expect(sent).toContain(
      '@df: pandas.DataFrame; shape (3, 2); columns a (int64), b (object)'
    );
    expect(executed[0]).toContain('"df"');
    const shown = session.getSnapshot().items[0];
    expect(shown).toMatchObject({
      kind: 'user',
      text: 'Explain @df using the file\n📎 sales.csv, cell 3'
    });
  });
});

describe('retry', () => {
  it('sends the failed request again without duplicating it in the conversation', async () => {
    const notebook = new FakeNotebook();
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    const failing = new ScriptedModel([
      { error: Object.assign(new Error('401'), { status: 401 }) }
    ]);
    await session.send('Do it', { model: () => failing, notebook });
    expect(session.getSnapshot().error?.kind).toBe('auth');
    const working = new ScriptedModel([{ text: 'Done.' }]);
    await session.retry({ model: () => working, notebook });
    const users = working.requests[0].messages.filter(m => m.role === 'user');
    expect(users.map(m => m.content)).toEqual(['Do it']);
    expect(session.getSnapshot().error).toBeNull();
  });

  it('keeps one line for the question in the transcript, however often Retry is pressed', async () => {
    const notebook = new FakeNotebook();
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    const offline = () =>
      new ScriptedModel([{ error: new TypeError('Failed to fetch') }]);
    await session.send('Plot my data', { model: offline, notebook });
    await session.retry({ model: offline, notebook });
    await session.retry({ model: offline, notebook });
    const userLines = () =>
      session.getSnapshot().items.filter(item => item.kind === 'user');
    expect(userLines().map(item => item.kind === 'user' && item.text)).toEqual([
      'Plot my data'
    ]);
    expect(session.getSnapshot().error).not.toBeNull();
    const working = new ScriptedModel([{ text: 'Plotted.' }]);
    await session.retry({ model: () => working, notebook });
    expect(userLines()).toHaveLength(1);
    const items = session.getSnapshot().items;
    expect(items[items.length - 1]).toMatchObject({
      kind: 'assistant',
      text: 'Plotted.'
    });
    // The model sees the question once, not once per try.
    expect(
      working.requests[0].messages.filter(m => m.role === 'user')
    ).toHaveLength(1);
  });

  it('a Retry that cannot start leaves the conversation as it was', async () => {
    const notebook = new FakeNotebook();
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    const failing = new ScriptedModel([{ error: new Error('boom') }]);
    await session.send('Do it', { model: () => failing, notebook });
    const before = session.history.length;
    expect(session.retry({ model: () => failing, notebook: null })).toBeNull();
    expect(session.history).toHaveLength(before);
    expect(session.getSnapshot().error?.kind).toBe('no-notebook');
  });
});

describe('what the kernel says of mentioned variables', () => {
  it('gives type, shape and columns, a repr for what has no shape, and names what is missing', () => {
    expect(
      describeVariableRows([
        { name: 'n', type: 'builtins.int', repr: '42' },
        { name: 's', type: 'pandas.Series', shape: [5], repr: '0 1' },
        { name: 'gone', missing: true }
      ])
    ).toBe(
      '@n: builtins.int; 42\n@s: pandas.Series; shape (5,)\n@gone: not defined in the kernel'
    );
  });
});
