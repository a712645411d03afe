import { capabilitiesFor } from '../model/capabilities';
import {
  TEXT_PROTOCOL_INSTRUCTIONS,
  toTextProtocol
} from '../loop/text-protocol-messages';
import { extractCodeBlocks } from '../loop/code-blocks';
import { TextProtocolClient } from '../loop/text-protocol-client';
import type { IChatChunk, IModelClient } from '../model/types';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

describe('text protocol for models without tool calling', () => {
  it('extracts python and untagged fenced blocks, not other languages', () => {
    const text =
      'Plan:\n```python\nx = 1\n```\nthen\n```\nprint(x)\n```\n```bash\nls\n```';
    expect(extractCodeBlocks(text)).toEqual(['x = 1', 'print(x)']);
    expect(extractCodeBlocks('The answer is 42.')).toEqual([]);
  });

  it('runs each code block as a new cell, feeds the output back as a user message, and stops on plain text', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'u', source: 'secret = 6', executionCount: 1 }],
      execute: source => [
        {
          type: 'stream',
          name: 'stdout',
          text: source.includes('* 7') ? '42\n' : '?\n'
        }
      ]
    });
    const model = new ScriptedModel([
      { text: 'Let me compute it.\n```python\nprint(secret * 7)\n```' },
      { text: 'The value is **42**.' }
    ]);
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything',
      toolProtocol: () => 'text'
    });
    const outcome = await session.send('secret times seven?', {
      model: () => model,
      notebook
    });
    expect(outcome).toMatchObject({ reason: 'completed', steps: 2 });
    expect(notebook.cells.map(c => c.source)).toEqual([
      'secret = 6',
      'print(secret * 7)'
    ]);
    expect(notebook.cells[1].executionCount).toBe(1);
    // The model never receives tool definitions or tool messages.
    for (const request of model.requests) {
      expect(request.tools).toEqual([]);
      expect(request.messages.some(m => m.role === 'tool')).toBe(false);
    }
    const second = model.requests[1].messages;
    expect(second[0].content).toContain(TEXT_PROTOCOL_INSTRUCTIONS);
    expect(second[second.length - 1]).toMatchObject({ role: 'user' });
    expect(second[second.length - 1].content).toMatch(
      /^Output of the code you ran:[\s\S]*42/
    );
    expect(second[second.length - 2]).toMatchObject({ role: 'assistant' });
    const state = session.getSnapshot();
    expect(state.items.map(i => i.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant'
    ]);
  });

  it('a model that writes the same block again gets one cell, is told why, and is stopped', async () => {
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '3\n' }]
    });
    const again = { text: 'Let me check.\n```python\nprint(len(df))\n```' };
    const model = new ScriptedModel([again, again, again, { text: 'never' }]);
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything',
      toolProtocol: () => 'text'
    });
    const outcome = await session.send('how many rows?', {
      model: () => model,
      notebook
    });
    expect(outcome).toMatchObject({ reason: 'repeated-step', steps: 3 });
    expect(notebook.cells.map(c => c.source)).toEqual(['print(len(df))']);
    const third = model.requests[2].messages;
    expect(third[third.length - 1]).toMatchObject({
      role: 'user',
      content:
        'Not run: this code already ran, and its output was:\n3\n' +
        'If that answers the request, answer now with those values and no code; otherwise try something different.'
    });
    const notices = session
      .getSnapshot()
      .items.filter(i => i.kind === 'notice')
      .map(i => (i as { text: string }).text);
    expect(notices.join(' ')).toMatch(/same code again/);
  });

  it('merges consecutive outputs into one user message', () => {
    const messages = toTextProtocol([
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: 'two blocks', toolCalls: [] },
      { role: 'tool', toolCallId: 'a', content: 'one' },
      { role: 'tool', toolCallId: 'b', content: 'two' }
    ]);
    expect(messages).toHaveLength(3);
    expect(messages[2].content).toBe(
      'Output of the code you ran:\none\n\nOutput of the code you ran:\ntwo'
    );
  });

  it('knows which well-known models need it', () => {
    expect(capabilitiesFor('SmolLM2-135M-Instruct').tools).toBe('text');
    expect(capabilitiesFor('gpt-4o-mini')).toMatchObject({
      tools: 'native',
      vision: true,
      contextTokens: 128000
    });
    expect(capabilitiesFor('qwen2.5:7b').tools).toBe('native');
    expect(capabilitiesFor('some-new-model')).toMatchObject({
      tools: 'native',
      vision: false,
      contextTokens: 32768
    });
  });

  it('joins only string content, as the proxy that filters a key sent in pieces does', async () => {
    const KEY = 'sk-proj-AbC123xyz-0123456789ABCDEF';
    const sent: unknown[] = [
      "```python\nkey = 'x sk-proj-AbC1",
      ['23xyz-0123456789ABCDEF'],
      23,
      "'\n```"
    ];
    const inner: IModelClient = {
      model: 'm',
      async *streamChat() {
        for (const content of sent) {
          yield { choices: [{ index: 0, delta: { content } }] } as IChatChunk;
        }
      }
    };
    const client = new TextProtocolClient(inner);
    for (const prefill of [undefined, '```python\n']) {
      const chunks: IChatChunk[] = [];
      for await (const chunk of client.streamChat(
        { messages: [{ role: 'user', content: 'hi' }], tools: [], prefill },
        new AbortController().signal
      )) {
        chunks.push(chunk);
      }
      const contents = chunks.map(c => c.choices?.[0]?.delta?.content ?? '');
      expect(contents.every(c => typeof c === 'string')).toBe(true);
      expect(contents.join('')).toBe("```python\nkey = 'x sk-proj-AbC1'\n```");
      const [call] =
        chunks[chunks.length - 1].choices?.[0]?.delta?.tool_calls ?? [];
      expect(call.function?.arguments).toBe(
        JSON.stringify({ source: "key = 'x sk-proj-AbC1'" })
      );
      expect(JSON.stringify(chunks)).not.toContain(KEY);
    }
  });
});
