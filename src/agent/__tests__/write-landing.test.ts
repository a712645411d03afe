/**
 * write_file judged where it really lands (#35 D7): a folder link inside
 * the root (`helpers -> proj`) leads a harmless name next to the notebook,
 * where `import requests` loads it before the library. The pure verdict
 * (tools/write-landing.ts), then the tool on a fake notebook whose port
 * says where paths really lead (the real ports ask the server:
 * src/headless/__tests__/write-through-link.test.ts).
 */
import type { ApprovalMode, IApprovalRequest } from '../loop/approval';
import { executeToolCall } from '../loop/tool-step';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { RunState } from '../tools/run-state';
import { runsLater } from '../tools/runs-later';
import { judgeLanding, type IRealPlaces } from '../tools/write-landing';

const NEXT_TO_NOTEBOOK =
  'a notebook in this folder imports it before the library of the same name';

/** Python code that no narrower rule names (tools/runs-later.ts). */
const PYTHON_CODE = runsLater('deep/er/module.py', 'n.ipynb')!.reason;

describe('judgeLanding', () => {
  const judge = (
    path: string,
    real: string | null,
    notebookPath = 'proj/analysis.ipynb',
    realNotebookFolder: string | null = null
  ) => judgeLanding({ path, real, notebookPath, realNotebookFolder });

  it('refuses a harmless name that a link leads next to the notebook, naming the real place', () => {
    const landing = judge('helpers/requests.py', 'proj/requests.py');
    expect(landing).toEqual({
      refused:
        `Refused: helpers/requests.py leads through a link to proj/requests.py, and ${NEXT_TO_NOTEBOOK}. ` +
        'Nothing was written; to write it there, use the path proj/requests.py, which the user is asked to approve.',
      later: { reason: NEXT_TO_NOTEBOOK, always: false }
    });
  });

  it.each([
    [
      'helpers/x.py',
      'venv/lib/python3.11/site-packages/x.py',
      /installed Python environment/
    ],
    ['notes/index.txt', 'venv/pip.conf', /pip reads it as its configuration/],
    ['cfg/channels.txt', 'env/condarc', /conda reads it as its configuration/]
  ])(
    'refuses %s, which a link leads to %s (asked in every mode)',
    (path, real, reason) => {
      const landing = judge(path, real);
      expect(landing).toMatchObject({ later: { always: true } });
      expect((landing as { refused: string }).refused).toContain(
        `Refused: ${path} leads through a link to ${real}, and `
      );
      expect((landing as { refused: string }).refused).toMatch(reason);
    }
  );

  it('a link to an ordinary place, or a name that already asks as much, is judged by its name', () => {
    expect(judge('data-link/new.csv', 'data/new.csv')).toEqual({ later: null });
    // Python code asks wherever it lies since the third re-check
    // (2026-12-08): the name and its real place ask alike.
    expect(judge('helpers/clean.py', 'lib2/clean.py')).toEqual({
      later: { reason: PYTHON_CODE, always: false }
    });
    // The name asks in every mode already: the card says why.
    expect(judge('venvlink/pip.conf', 'venv/pip.conf')).toEqual({
      later: runsLater('venvlink/pip.conf', 'proj/analysis.ipynb')
    });
    // Where the notebook is not, a module asks as any Python code does.
    expect(judge('helpers/requests.py', 'proj/requests.py', 'n.ipynb')).toEqual(
      { later: { reason: PYTHON_CODE, always: false } }
    );
    // Nothing known about the real place: the name alone.
    expect(judge('proj/requests.py', null)).toEqual({
      later: { reason: NEXT_TO_NOTEBOOK, always: false }
    });
  });

  it("judges against the notebook's real folder when the notebook is named through a link", () => {
    // The notebook is open as nblink/analysis.ipynb, nblink -> proj: its
    // kernel imports from proj/.
    expect(
      judge(
        'proj/requests.py',
        'proj/requests.py',
        'nblink/analysis.ipynb',
        'proj'
      )
    ).toEqual({ later: { reason: NEXT_TO_NOTEBOOK, always: false } });
    expect(
      judge(
        'proj/requests.py',
        'proj/requests.py',
        'nblink/analysis.ipynb',
        null
      )
    ).toEqual({ later: { reason: PYTHON_CODE, always: false } });
  });

  // The third re-check (2026-12-08): with any Python code asking, the name
  // and its real place ask alike; the card must still say what the real
  // place does.
  it('refuses a name that asks as much as its real place, but for another reason', () => {
    const landing = judge('helpers/requests.py', 'proj/requests.py');
    expect(landing).toMatchObject({
      refused: expect.stringContaining(
        'leads through a link to proj/requests.py, and a notebook in this folder imports it'
      ),
      later: { reason: NEXT_TO_NOTEBOOK, always: false }
    });
    expect(
      runsLater('helpers/requests.py', 'proj/analysis.ipynb')?.always
    ).toBe(false);
    expect(judge('notes/AGENTS.md', 'venv/bin/python3')).toMatchObject({
      refused: expect.stringMatching(/bin\/ folder run in place of commands/),
      later: { always: true }
    });
  });
});

const HARD_LINK =
  'Refused: notes/hl.txt is a hard link: the file has 2 names, and the others, which write_file cannot see ' +
  '(one may be a configuration file elsewhere, such as a pip.conf), would change with it. Nothing was written; ' +
  'write a new file under another name, or remove the link first if this one must change.';

describe('judgeLanding and hard links (an outside review, 2026-12-07)', () => {
  const judge = (path: string, links: number | null) =>
    judgeLanding({
      path,
      real: path,
      notebookPath: 'proj/analysis.ipynb',
      realNotebookFolder: null,
      links
    });

  it('refuses a file with more than one name, whatever its own name asks', () => {
    expect(judge('notes/hl.txt', 2)).toEqual({
      refused: HARD_LINK,
      later: null
    });
    // Its own name asks too: still refused, with that reason kept.
    expect(judge('proj/requests.py', 3)).toMatchObject({
      refused: expect.stringMatching(
        /^Refused: proj\/requests\.py is a hard link: the file has 3 names/
      ),
      later: { reason: NEXT_TO_NOTEBOOK, always: false }
    });
    // One name, or a server that does not say (an older one, no file yet):
    // judged as before.
    expect(judge('notes/hl.txt', 1)).toEqual({ later: null });
    expect(judge('notes/hl.txt', null)).toEqual({ later: null });
    expect(
      judgeLanding({
        path: 'notes/hl.txt',
        real: 'notes/hl.txt',
        notebookPath: 'proj/analysis.ipynb',
        realNotebookFolder: null
      })
    ).toEqual({ later: null });
  });
});

/** A fake notebook whose port says where paths really lead, through folder links. */
class LinkedNotebook extends FakeNotebook implements IRealPlaces {
  constructor(
    path: string,
    private readonly _links: Record<string, string>
  ) {
    super({ path });
  }

  async realPlace(path: string): Promise<string | null> {
    const parts = path.split('/').filter(Boolean);
    for (let depth = parts.length; depth > 0; depth--) {
      const head = parts.slice(0, depth).join('/');
      if (head in this._links) {
        return [this._links[head], ...parts.slice(depth)].join('/');
      }
    }
    return parts.join('/');
  }

  override async writeFile(path: string, text: string): Promise<void> {
    // Where the write lands on disk: the real place.
    await super.writeFile((await this.realPlace(path)) ?? path, text);
  }
}

async function writeThrough(
  notebook: FakeNotebook,
  path: string,
  mode: ApprovalMode
) {
  const asked: IApprovalRequest[] = [];
  const result = await executeToolCall(
    {
      id: 'c1',
      name: 'write_file',
      arguments: JSON.stringify({ path, content: 'import os\n' })
    },
    {
      config: { tools: new ToolRegistry(agentTools()), approvalMode: mode },
      turn: { notebook, signal: new AbortController().signal },
      state: new RunState()
    },
    async request => {
      asked.push(request);
      return { approved: true };
    }
  );
  return { result, asked };
}

describe('write_file through a folder link', () => {
  it.each(['ask-before-running', 'run-everything'] as ApprovalMode[])(
    'in %s: refuses helpers/requests.py (really proj/requests.py, next to the notebook) before anyone is asked',
    async mode => {
      const notebook = new LinkedNotebook('proj/analysis.ipynb', {
        helpers: 'proj'
      });
      const { result, asked } = await writeThrough(
        notebook,
        'helpers/requests.py',
        mode
      );
      expect(asked).toHaveLength(0);
      expect(result.ok).toBe(false);
      expect(result.output).toBe(
        `Refused: helpers/requests.py leads through a link to proj/requests.py, and ${NEXT_TO_NOTEBOOK}. ` +
          'Nothing was written; to write it there, use the path proj/requests.py, which the user is asked to approve.'
      );
      expect(notebook.files.size).toBe(0);
    }
  );

  it('the real path is then asked about, saying why', async () => {
    const notebook = new LinkedNotebook('proj/analysis.ipynb', {
      helpers: 'proj'
    });
    const { result, asked } = await writeThrough(
      notebook,
      'proj/requests.py',
      'ask-before-running'
    );
    expect(asked).toHaveLength(1);
    expect(asked[0].title).toBe(
      `Create proj/requests.py (${NEXT_TO_NOTEBOOK})`
    );
    expect(result.ok).toBe(true);
    expect(notebook.files.get('proj/requests.py')).toBe('import os\n');
  });

  it("asks about a module next to the notebook's real folder when the notebook is named through a link", async () => {
    const notebook = new LinkedNotebook('nblink/analysis.ipynb', {
      nblink: 'proj'
    });
    const { asked } = await writeThrough(
      notebook,
      'proj/requests.py',
      'ask-before-running'
    );
    expect(asked).toHaveLength(1);
    expect(asked[0].runsLater).toEqual({
      reason: NEXT_TO_NOTEBOOK,
      always: false
    });
  });

  it('a link to an ordinary folder writes as before, without a question', async () => {
    const notebook = new LinkedNotebook('proj/analysis.ipynb', {
      'data-link': 'data'
    });
    const { result, asked } = await writeThrough(
      notebook,
      'data-link/new.csv',
      'ask-before-running'
    );
    expect(asked).toHaveLength(0);
    expect(result.ok).toBe(true);
    expect(notebook.files.get('data/new.csv')).toBe('import os\n');
  });

  it('a direct call (no approval step) is refused with the real place too', async () => {
    const notebook = new LinkedNotebook('proj/analysis.ipynb', {
      helpers: 'proj'
    });
    const result = await new ToolRegistry(agentTools()).call(
      {
        id: 'c',
        name: 'write_file',
        arguments: JSON.stringify({
          path: 'helpers/requests.py',
          content: 'x = 1\n'
        })
      },
      { notebook, signal: new AbortController().signal }
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(
      /^Refused: helpers\/requests\.py leads through a link to proj\/requests\.py/
    );
    expect(notebook.files.size).toBe(0);
  });
});

/** A fake notebook whose port says how many names each file has (hard links). */
class HardLinkedNotebook extends LinkedNotebook {
  constructor(
    path: string,
    files: Record<string, string>,
    private readonly _names: Record<string, number>
  ) {
    super(path, {});
    for (const [name, text] of Object.entries(files)) {
      this.files.set(name, text);
    }
  }

  async fileLinks(path: string): Promise<number | null> {
    return this.files.has(path) ? (this._names[path] ?? 1) : null;
  }
}

describe('write_file and a hard link (an outside review, 2026-12-07)', () => {
  it.each(['ask-before-running', 'run-everything'] as ApprovalMode[])(
    'in %s: replacing notes/hl.txt (one file with venv/pip.conf) is refused before anyone is asked',
    async mode => {
      const notebook = new HardLinkedNotebook(
        'proj/analysis.ipynb',
        { 'notes/hl.txt': '[global]\n', 'notes/plain.txt': 'old\n' },
        { 'notes/hl.txt': 2 }
      );
      const { result, asked } = await writeThrough(
        notebook,
        'notes/hl.txt',
        mode
      );
      expect(asked).toHaveLength(0);
      expect(result.ok).toBe(false);
      expect(result.output).toBe(HARD_LINK);
      expect(notebook.files.get('notes/hl.txt')).toBe('[global]\n');
      // A file with one name is replaced as before, the diff asked about.
      const plain = await writeThrough(notebook, 'notes/plain.txt', mode);
      expect(plain.asked.map(request => request.title)).toEqual([
        'Replace notes/plain.txt'
      ]);
      expect(plain.result.ok).toBe(true);
      // A port that cannot tell (an older server): as today.
      const old = new LinkedNotebook('proj/analysis.ipynb', {});
      old.files.set('notes/hl.txt', '[global]\n');
      expect((await writeThrough(old, 'notes/hl.txt', mode)).result.ok).toBe(
        true
      );
    }
  );
});
