import { chatToMarkdown } from '../chat-record';
import { messageTokens } from '../context/history';
import {
  contextView,
  isSummaryRequest,
  planSummary,
  summaryLimits
} from '../context/summary';
import { systemPrompt } from '../context/system-prompt';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { BUILTIN_MODELS } from '../model/local/catalogue';
import { LocalModelClient } from '../model/local/local-client';
import type {
  WorkerEvent,
  WorkerRequest
} from '../model/local/worker-protocol';
import type { IChatRequest } from '../model/types';
import type { CellOutput } from '../ports';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';

/** A window whose history budget is the 2000-token floor: trigger 1500, keep 400. */
const WINDOW = 8000;

/** About 700 tokens of output. */
function bigOutput(tag: string): CellOutput[] {
  const lines = Array.from(
    { length: 110 },
    (_, i) => `${tag} row ${i}: value ${i * 7} ok`
  );
  return [{ type: 'stream', name: 'stdout', text: `${lines.join('\n')}\n` }];
}

/** c1 and c2 with large outputs, c3 with a small one. */
function notebook(): FakeNotebook {
  return new FakeNotebook({
    cells: ['c1', 'c2', 'c3'].map((id, i) => ({
      id,
      source: `part${i + 1}()`,
      executionCount: i + 1,
      outputs:
        id === 'c3'
          ? [{ type: 'stream', name: 'stdout', text: 'done\n' }]
          : bigOutput(id)
    }))
  });
}

const read = (id: string): ScriptedTurn => ({
  toolCalls: [{ name: 'read_cell', arguments: { cell_id: id } }]
});
const edit = (id: string, source: string): ScriptedTurn => ({
  toolCalls: [{ name: 'edit_cell', arguments: { cell_id: id, source } }]
});
const SUMMARY: ScriptedTurn = {
  text: 'The user wants parts 1 and 2 checked. Cell c1 printed rows 0–109 of part 1; cell c2 is being read.'
};

function setup(turns: ScriptedTurn[], nb = notebook()) {
  const model = new ScriptedModel(turns);
  const events: AgentEvent[] = [];
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt({ notebookPath: 'parts.ipynb' }) },
    { role: 'user', content: 'Check parts 1 and 2.' }
  ];
  const controller = new AbortController();
  const slot = { summary: null };
  const run = () =>
    runAgent(
      runConfig({
        model,
        tools: new ToolRegistry(agentTools()),
        approvalMode: 'run-everything',
        contextTokens: WINDOW
      }),
      {
        notebook: nb,
        conversation: arrayConversation(messages),
        signal: controller.signal,
        onEvent: e => events.push(e),
        summary: slot
      }
    );
  return { model, events, messages, controller, slot, run, nb };
}

/** The earlier request, unchanged, is the start of the later one (a prompt-cache hit). */
function extendsRequest(prev: IChatRequest, cur: IChatRequest): boolean {
  const same = (a: unknown, b: unknown) =>
    JSON.stringify(a) === JSON.stringify(b);
  return (
    same(prev.tools, cur.tools) &&
    prev.messages.length <= cur.messages.length &&
    prev.messages.every((m, i) => same(m, cur.messages[i]))
  );
}

const notices = (events: AgentEvent[]) =>
  events.flatMap(e => (e.type === 'notice' ? [e.text] : []));

describe('planSummary (when and where to summarise)', () => {
  const limits = summaryLimits(2000);
  const big = 'x'.repeat(4000);
  const history: ChatMessage[] = [
    { role: 'system', content: 'system' },
    { role: 'user', content: 'the request' },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'a', name: 'read_cell', arguments: '{}' }]
    },
    { role: 'tool', toolCallId: 'a', content: big },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'b', name: 'read_cell', arguments: '{}' }]
    },
    { role: 'tool', toolCallId: 'b', content: big }
  ];

  it('does nothing while the view is under the trigger', () => {
    expect(planSummary(history.slice(0, 4), null, 1, limits)).toBeNull();
  });

  it('cuts before the last assistant turn, keeps the request verbatim, never starts on a tool result', () => {
    const plan = planSummary(history, null, 1, limits);
    expect(plan).toMatchObject({ covers: 4, kept: [1] });
    expect(history[plan!.covers].role).toBe('assistant');
    const view = contextView(history, { text: 'S', covers: 4, kept: [1] });
    expect(view.map(m => m.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool'
    ]);
    expect(view[2]).toBe(history[1]);
  });

  it('does not summarise again until a chunk worth replacing has built up', () => {
    const summary = { text: 'S', covers: 4, kept: [1] };
    const next: ChatMessage[] = [
      ...history.slice(0, 5),
      { role: 'tool', toolCallId: 'b', content: 'small' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c', name: 'read_cell', arguments: '{}' }]
      },
      { role: 'tool', toolCallId: 'c', content: 'z'.repeat(6400) }
    ];
    // Over the trigger, but only the old summary and a small turn could go:
    // the large result is the latest, which the model has not read yet.
    const plan = planSummary(next, summary, 1, limits);
    expect(plan).toBeNull();
    expect(
      contextView(next, summary).reduce((sum, m) => sum + messageTokens(m), 0)
    ).toBeGreaterThan(limits.trigger);
  });
});

describe('runAgent with a summary of older steps', () => {
  it('summarises once near the window: the summary request and the steps after it extend the previous requests', async () => {
    const { run, model, events, slot } = setup([
      read('c1'),
      read('c2'),
      SUMMARY,
      read('c3'),
      { text: 'Done.' }
    ]);
    const outcome = await run();
    expect(outcome.reason).toBe('completed');
    const requests = model.requests;
    expect(requests.map(r => isSummaryRequest(r))).toEqual([
      false,
      false,
      true,
      false,
      false
    ]);
    // The summary request is the previous request plus the new turn plus the
    // instruction, with the same tools (cached prefix); no tool may be called.
    expect(extendsRequest(requests[1], requests[2])).toBe(true);
    expect(requests[2].toolChoice).toBe('none');
    // After it, the prefix (system, summary, request, latest turn) stays put.
    expect(extendsRequest(requests[2], requests[3])).toBe(false);
    expect(extendsRequest(requests[3], requests[4])).toBe(true);
    const after = requests[3].messages;
    expect(after[1].content).toContain('Earlier steps, summarised');
    expect(after[1].content).toContain('Cell c1 printed rows 0–109 of part 1');
    expect(after[2]).toEqual({ role: 'user', content: 'Check parts 1 and 2.' });
    expect(JSON.stringify(after)).not.toContain('c1 row 5: value 35');
    expect(JSON.stringify(after)).toContain('c2 row 5: value 35');
    expect(slot.summary).toMatchObject({ covers: 4, kept: [1] });
    const summaryEvent = events.find(e => e.type === 'context-summary');
    expect(summaryEvent).toMatchObject({ replaced: 2 });
    expect(notices(events)).toEqual([]);
  });

  it('counts cells read before the summary as unseen: an edit needs a fresh read', async () => {
    const nb = notebook();
    const { run, messages } = setup(
      [
        read('c1'),
        read('c2'),
        SUMMARY,
        edit('c1', 'changed1()'),
        edit('c2', 'changed2()'),
        { text: 'Done.' }
      ],
      nb
    );
    await run();
    const tools = messages.filter(m => m.role === 'tool');
    expect(tools[2].content).toMatch(/^Refused: you have not seen/);
    expect(tools[3].content).toMatch(/^Edited cell_id: c2/);
    expect(nb.cells.map(c => c.source)).toEqual([
      'part1()',
      'changed2()',
      'part3()'
    ]);
  });

  it('falls back to eliding when the summary call fails, says so, and does not try again in that run', async () => {
    const { run, model, events, slot } = setup([
      read('c1'),
      read('c2'),
      { error: new Error('connect ECONNREFUSED 127.0.0.1:9') },
      read('c1'),
      { text: 'Done.' }
    ]);
    const outcome = await run();
    expect(outcome.reason).toBe('completed');
    expect(slot.summary).toBeNull();
    expect(model.requests.filter(r => isSummaryRequest(r))).toHaveLength(1);
    expect(notices(events)).toHaveLength(1);
    expect(notices(events)[0]).toMatch(
      /^Earlier steps not summarised \(.+\): older tool outputs are elided instead/
    );
    const last = JSON.stringify(model.requests[model.requests.length - 1]);
    expect(last).toContain('elided to save context');
  });

  it('falls back when the answer holds no summary (only a tool call), running nothing', async () => {
    const nb = notebook();
    const { run, model, events, slot } = setup(
      [
        read('c1'),
        read('c2'),
        { toolCalls: [{ name: 'delete_cell', arguments: { cell_id: 'c3' } }] },
        { text: 'Done.' }
      ],
      nb
    );
    expect((await run()).reason).toBe('completed');
    expect(slot.summary).toBeNull();
    expect(notices(events)[0]).toContain('the model’s answer held no summary');
    expect(nb.cells).toHaveLength(3);
    expect(model.requests).toHaveLength(4);
  });

  it('Stop during the summary call ends the run as stopped, with a valid history and a notice', async () => {
    const { run, model, events, messages, controller, slot } = setup([
      read('c1'),
      read('c2'),
      { text: 'A summary that is never finished because the user stops it.' },
      { text: 'never' }
    ]);
    model.onChunk = index => {
      if (model.requests.length === 3 && index === 2) {
        controller.abort();
      }
    };
    const outcome = await run();
    expect(outcome.reason).toBe('stopped');
    expect(slot.summary).toBeNull();
    expect(notices(events)[0]).toMatch(
      /^Earlier steps not summarised \(stopped\)/
    );
    expect(messages[messages.length - 1].role).toBe('tool');
    expect(model.requests).toHaveLength(3);
  });
});

describe('a chat with a summary (session, save and reopen)', () => {
  it('shows "Earlier steps summarised", saves the summary, and a reopened chat sends it first', async () => {
    const options = {
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything' as const,
      contextTokens: () => WINDOW
    };
    const session = new AgentSession(options);
    const nb = notebook();
    await session.send('Check parts 1 and 2.', {
      model: () =>
        new ScriptedModel([read('c1'), read('c2'), SUMMARY, { text: 'Ok.' }]),
      notebook: nb
    });
    const note = session
      .getSnapshot()
      .items.find(i => i.kind === 'notice' && i.summary !== undefined);
    expect(note).toMatchObject({
      text: expect.stringMatching(/^Earlier steps summarised: /),
      summary: SUMMARY.text
    });
    const saved = JSON.parse(JSON.stringify(session.record()));
    expect(chatToMarkdown(saved)).toContain(`> ${SUMMARY.text}`);
    expect(saved.summary).toMatchObject({ text: SUMMARY.text, covers: 4 });

    const reopened = new AgentSession(options);
    expect(reopened.restore(saved)).toBe(true);
    const model = new ScriptedModel([{ text: 'Still here.' }]);
    await reopened.send('And part 3?', { model: () => model, notebook: nb });
    const first = model.requests[0].messages;
    expect(first[1].content).toContain(SUMMARY.text);
    expect(first[2]).toEqual({ role: 'user', content: 'Check parts 1 and 2.' });
    expect(JSON.stringify(first)).not.toContain('c1 row 5: value 35');
    expect(first[first.length - 1]).toEqual({
      role: 'user',
      content: 'And part 3?'
    });
    expect(reopened.record().summary).toEqual(saved.summary);
  });
});

describe('the in-browser model', () => {
  it('summarises through the worker too: the summary request offers no tools, and the next request carries the summary', async () => {
    const generated: Array<Extract<WorkerRequest, { type: 'generate' }>> = [];
    const answers = [
      '<tool_call>{"name": "read_cell", "arguments": {"cell_id": "c1"}}</tool_call>',
      '<tool_call>{"name": "read_cell", "arguments": {"cell_id": "c2"}}</tool_call>',
      'Cells c1 and c2 print 110 rows each.',
      'Both read.'
    ];
    const listeners = new Set<(event: WorkerEvent) => void>();
    const emit = (events: WorkerEvent[]) =>
      setTimeout(() => events.forEach(e => listeners.forEach(l => l(e))), 0);
    const model = new LocalModelClient({
      entry: BUILTIN_MODELS[0],
      source: { allowRemote: true },
      plan: async () => ({
        rungs: [{ device: 'wasm', dtype: 'q4' }],
        warning: null
      }),
      createWorker: () => ({
        post(request: WorkerRequest) {
          if (request.type === 'load') {
            emit([
              {
                type: 'loaded',
                id: request.id,
                rung: { device: 'wasm', dtype: 'q4' },
                seconds: 1,
                startsInThinking: false,
                endTokens: ['<|im_end|>']
              }
            ]);
          } else if (request.type === 'generate') {
            generated.push(request);
            const text = answers[generated.length - 1] ?? 'no more';
            emit([
              { type: 'token', id: request.id, text },
              {
                type: 'done',
                id: request.id,
                reason: 'stop',
                promptTokens: 100,
                completionTokens: 10,
                reusedTokens: 0,
                seconds: 1,
                firstTokenSeconds: 0.5
              }
            ]);
          }
        },
        listen(listener: (event: WorkerEvent) => void) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        terminate: () => undefined
      })
    });
    const { events, messages, slot } = setup([]);
    const outcome = await runAgent(
      runConfig({
        model,
        tools: new ToolRegistry(agentTools()),
        approvalMode: 'run-everything',
        // The small local models' window (SmolLM2 in the catalogue).
        contextTokens: 8192
      }),
      {
        notebook: notebook(),
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: e => events.push(e),
        summary: slot
      }
    );
    expect(outcome.reason).toBe('completed');
    expect(generated).toHaveLength(4);
    expect(generated.map(g => g.tools.length > 0)).toEqual([
      true,
      true,
      false,
      true
    ]);
    const summaryPrompt = generated[2].messages;
    expect(summaryPrompt[summaryPrompt.length - 1].content).toMatch(
      /^Context is running out/
    );
    expect(slot.summary).toMatchObject({
      text: 'Cells c1 and c2 print 110 rows each.'
    });
    expect(JSON.stringify(generated[3].messages[1])).toContain(
      'Cells c1 and c2 print 110 rows each.'
    );
    expect(notices(events)).toEqual([]);
  });
});
