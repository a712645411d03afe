/**
 * write_file on the fake notebook: the model's path is untrusted (the
 * tool's own checks; the server's real-path check is tested on the
 * headless port), creating is an edit (unless the file runs later:
 * runs-later.test.ts), replacing asks whatever the mode
 * with a diff, a file changed between the approval and the write is not
 * overwritten, and one Undo restores the content (or removes the file the
 * agent created).
 */
import type { IApprovalRequest } from '../loop/approval';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { RunState } from '../tools/run-state';
import { fileDiff, MAX_WRITE_CHARS } from '../tools/write-file-tool';
import type { ChatMessage } from '../types';

const write = (path: string, content: string) => ({
  toolCalls: [{ name: 'write_file', arguments: { path, content } }]
});

function run(
  turns: ScriptedTurn[],
  notebook: FakeNotebook,
  mode: 'run-everything' | 'ask-before-running' = 'ask-before-running',
  answer: (r: IApprovalRequest) => boolean = () => true
) {
  const requests: IApprovalRequest[] = [];
  const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const done = runAgent(
    runConfig({
      model: new ScriptedModel(turns),
      tools: new ToolRegistry(agentTools()),
      approvalMode: mode
    }),
    {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: () => undefined,
      approve: async request => {
        requests.push(request);
        return answer(request)
          ? { approved: true }
          : { approved: false, reason: 'keep mine' };
      }
    }
  );
  const tools = () =>
    messages.filter(m => m.role === 'tool').map(m => m.content as string);
  return { done, requests, tools };
}

describe('write_file', () => {
  // A new file that is not code (Python code anywhere asks since the third
  // outside re-check, 2026-12-08: runs-later.test.ts).
  it('creates a new file without asking in the default mode', async () => {
    const notebook = new FakeNotebook();
    const { done, requests, tools } = run(
      [write('notes/plan.md', '# Plan\n\n1. clean\n'), { text: 'ok' }],
      notebook
    );
    await done;
    expect(requests).toHaveLength(0);
    expect(notebook.files.get('notes/plan.md')).toBe('# Plan\n\n1. clean\n');
    expect(tools()[0]).toMatch(/^Created notes\/plan\.md \(/);
  });

  it('asks before creating a module a notebook would import instead of a library, saying why', async () => {
    const notebook = new FakeNotebook({ path: 'analysis/study.ipynb' });
    const { done, requests } = run(
      [write('analysis/jsonschema.py', 'import os\n'), { text: 'ok' }],
      notebook
    );
    await done;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: 'edit',
      title:
        'Create analysis/jsonschema.py (a notebook in this folder imports it ' +
        'before the library of the same name)',
      code: 'import os\n'
    });
  });

  it('asks before replacing a file, even in run-everything, showing the diff', async () => {
    const notebook = new FakeNotebook({
      files: { 'notes.md': 'alpha\nbeta\ngamma\n' }
    });
    const { done, requests } = run(
      [write('notes.md', 'alpha\nBETA\ngamma\n'), { text: 'ok' }],
      notebook,
      'run-everything'
    );
    await done;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: 'replace',
      title: 'Replace notes.md',
      code: null
    });
    expect(requests[0].diff).toContain('-beta');
    expect(requests[0].diff).toContain('+BETA');
    expect(requests[0].diff).toContain(' alpha');
    expect(notebook.files.get('notes.md')).toBe('alpha\nBETA\ngamma\n');
  });

  it('a rejected replacement leaves the file as it was', async () => {
    const notebook = new FakeNotebook({ files: { 'notes.md': 'mine\n' } });
    const { done, tools } = run(
      [write('notes.md', 'theirs\n'), { text: 'ok' }],
      notebook,
      'ask-before-running',
      () => false
    );
    await done;
    expect(notebook.files.get('notes.md')).toBe('mine\n');
    expect(tools()[0]).toMatch(/rejected this write_file call.*keep mine/);
  });

  it('refuses to overwrite a file that changed after the approval showed it', async () => {
    const notebook = new FakeNotebook({ files: { 'notes.md': 'v1\n' } });
    const { done, tools } = run(
      [write('notes.md', 'agent\n'), { text: 'ok' }],
      notebook,
      'ask-before-running',
      () => {
        // The user saves the file while the approval card is open.
        notebook.files.set('notes.md', 'user v2\n');
        return true;
      }
    );
    await done;
    expect(notebook.files.get('notes.md')).toBe('user v2\n');
    expect(tools()[0]).toMatch(
      /^Refused: notes\.md changed since the user was shown it/
    );
  });

  it('refuses hostile paths before touching anything', async () => {
    const notebook = new FakeNotebook({ files: { '.env': 'KEY=secret' } });
    const hostile = [
      '../outside.txt',
      'data/../../etc/passwd',
      '..\\outside.txt',
      '~/.bashrc',
      '.env',
      'data/.git/config',
      './.ssh/authorized_keys',
      'C:\\Windows\\win.ini',
      'file:///etc/passwd',
      'a\u0000b.txt',
      'analysis.ipynb',
      ''
    ];
    const state = new RunState();
    const registry = new ToolRegistry(agentTools());
    for (const path of hostile) {
      const result = await registry.call(
        {
          id: 'c',
          name: 'write_file',
          arguments: JSON.stringify({ path, content: 'pwned' })
        },
        { notebook, signal: new AbortController().signal, state }
      );
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(/Refused/);
    }
    expect([...notebook.files.keys()]).toEqual(['.env']);
    expect(notebook.files.get('.env')).toBe('KEY=secret');
  });

  it('an absolute path means the same path under the root', async () => {
    const notebook = new FakeNotebook();
    const { done } = run(
      [write('/out/report.txt', 'r\n'), { text: 'ok' }],
      notebook
    );
    await done;
    expect([...notebook.files.keys()]).toEqual(['out/report.txt']);
  });

  it('a direct call (no approval step) never replaces a file', async () => {
    const notebook = new FakeNotebook({ files: { 'a.txt': 'keep\n' } });
    const result = await new ToolRegistry(agentTools()).call(
      {
        id: 'c',
        name: 'write_file',
        arguments: JSON.stringify({ path: 'a.txt', content: 'x' })
      },
      { notebook, signal: new AbortController().signal }
    );
    expect(result.ok).toBe(false);
    expect(notebook.files.get('a.txt')).toBe('keep\n');
  });

  it('refuses content over the size cap (checked in the tool, not the schema)', async () => {
    const notebook = new FakeNotebook();
    const tools = new ToolRegistry(agentTools());
    const spec = tools.specs.find(t => t.name === 'write_file')!;
    // A million-repetition bound would become a huge grammar on llama.cpp.
    expect(JSON.stringify(spec.parameters)).not.toContain('maxLength');
    const result = await tools.call(
      {
        id: 'c',
        name: 'write_file',
        arguments: JSON.stringify({
          path: 'big.txt',
          content: 'x'.repeat(MAX_WRITE_CHARS + 1)
        })
      },
      { notebook, signal: new AbortController().signal }
    );
    expect(result.output).toMatch(/^Refused: \d+ characters is more than/);
    expect(notebook.files.has('big.txt')).toBe(false);
  });

  it('the diff is a unified diff of the change', () => {
    expect(fileDiff('a.txt', 'one\ntwo\n', 'one\n2\n')).toBe(
      ['--- a.txt', '+++ a.txt', '@@ -1,2 +1,2 @@', ' one', '-two', '+2'].join(
        '\n'
      )
    );
  });
});

describe('Undo of a written file', () => {
  async function session(notebook: FakeNotebook, turns: ScriptedTurn[]) {
    const s = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    const unsubscribe = s.subscribe(() => {
      if (s.getSnapshot().pendingApproval) {
        s.resolveApproval({ approved: true });
      }
    });
    await s.send('write it', {
      model: () => new ScriptedModel(turns),
      notebook
    });
    unsubscribe();
    return s;
  }
  const cardOf = (s: AgentSession, name = 'write_file') =>
    s.getSnapshot().items.find(i => i.kind === 'tool' && i.name === name)!;

  it('one Undo restores the previous content', async () => {
    const notebook = new FakeNotebook({ files: { 'cfg.ini': 'a=1\n' } });
    const s = await session(notebook, [
      write('cfg.ini', 'a=2\n'),
      { text: 'ok' }
    ]);
    const card = cardOf(s);
    expect(card).toMatchObject({ file: { path: 'cfg.ini', created: false } });
    expect(s.canUndoFile(card.id)).toBe(true);
    expect(await s.undoFile(card.id)).toBe(true);
    expect(notebook.files.get('cfg.ini')).toBe('a=1\n');
    expect(cardOf(s)).toMatchObject({ file: { undone: true } });
    expect(s.canUndoFile(card.id)).toBe(false);
    const notices = s.getSnapshot().items.filter(i => i.kind === 'notice');
    expect(JSON.stringify(notices)).toContain(
      'Restored cfg.ini as it was before the agent replaced it.'
    );
  });

  it('Undo removes a file the agent created', async () => {
    const notebook = new FakeNotebook();
    const s = await session(notebook, [
      write('new.py', 'x = 1\n'),
      { text: 'ok' }
    ]);
    const card = cardOf(s);
    expect(card).toMatchObject({ file: { created: true } });
    await s.undoFile(card.id);
    expect(notebook.files.has('new.py')).toBe(false);
  });

  it('Undo leaves alone a file the user changed since', async () => {
    const notebook = new FakeNotebook({ files: { 'cfg.ini': 'a=1\n' } });
    const s = await session(notebook, [
      write('cfg.ini', 'a=2\n'),
      { text: 'ok' }
    ]);
    notebook.files.set('cfg.ini', 'a=3 (user)\n');
    expect(await s.undoFile(cardOf(s).id)).toBe(false);
    expect(notebook.files.get('cfg.ini')).toBe('a=3 (user)\n');
    expect(JSON.stringify(s.getSnapshot().items)).toContain(
      'changed since the agent wrote it'
    );
  });

  it('a new chat forgets what it could undo', async () => {
    const notebook = new FakeNotebook();
    const s = await session(notebook, [write('n.txt', 'n\n'), { text: 'ok' }]);
    const id = cardOf(s).id;
    s.newChat();
    expect(s.canUndoFile(id)).toBe(false);
  });
});
