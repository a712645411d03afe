/**
 * Files that run or steer later (tools/runs-later.ts): which paths the rule
 * names and why, and what write_file does with them in each approval mode
 * — asked in every mode but "run everything", the `always` ones in every
 * mode, the card saying why — while an ordinary file is still created
 * without a question in the default mode.
 */
import {
  needsApproval,
  type ApprovalMode,
  type IApprovalRequest
} from '../loop/approval';
import { executeToolCall } from '../loop/tool-step';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { RunState } from '../tools/run-state';
import { runsLater } from '../tools/runs-later';

const NOTEBOOK = 'analysis/study.ipynb';

/** Asked in every mode, run-everything included. */
const ALWAYS: Array<[string, RegExp]> = [
  [
    'venv/lib/python3.11/site-packages/zz_agent.pth',
    /Python runs the code in a \.pth file at every start/
  ],
  ['zz_agent.pth', /\.pth file/],
  ['analysis/ZZ.PTH', /\.pth file/],
  ['venv/lib/python3.11/site-packages/evil.py', /installed Python environment/],
  ['env/Lib/site-packages/evil/__init__.py', /installed Python environment/],
  ['usr/lib/python3/dist-packages/x.py', /installed Python environment/],
  ['conda/lib/python3.12/pandas.py', /installed Python environment/],
  [
    'venv/lib/python3.11/sitecustomize.py',
    /Python runs this file at every start/
  ],
  ['sitecustomize.py', /Python runs this file at every start/],
  ['tools/usercustomize.py', /Python runs this file at every start/],
  ['venv/bin/python', /bin\/ folder run in place of commands/],
  ['bin/jupyter', /bin\/ folder/],
  ['venv/Scripts/pip.exe', /bin\/ folder/],
  ['jupyter_server_config.py', /Jupyter or IPython runs or loads it/],
  ['jupyter_notebook_config.json', /Jupyter or IPython/],
  ['analysis/ipython_config.py', /Jupyter or IPython/],
  ['ipython_kernel_config.py', /Jupyter or IPython/],
  ['venv/etc/jupyter/jupyter_server_config.d/evil.json', /Jupyter or IPython/],
  [
    'ipython/profile_default/startup/00-evil.py',
    /IPython runs its startup files at the start of every kernel/
  ],
  ['venv/share/jupyter/kernels/python3/kernel.json', /kernel spec/],
  ['kernels/k/kernel.json', /kernel spec/],
  [
    'venv/share/jupyter/lab/settings/overrides.json',
    /JupyterLab loads these settings/
  ],
  ['ext/labextensions/evil/static/remote.js', /JupyterLab loads extensions/],
  ['AGENTS.md', /steers every later run of the agent in this folder/],
  ['analysis/agents.md', /steers every later run/],
  ['deep/er/Agents.MD', /steers every later run/],
  ['mcp.json', /runs the commands an mcp\.json names/],
  ['config/notebook_agent/mcp.json', /mcp\.json/],
  // Installers' own configuration (#35 D2): pip reads `$VIRTUAL_ENV/pip.conf`
  // as its site configuration, conda `$CONDA_PREFIX/condarc` and
  // `condarc.d/`, wherever the environment lies under the root.
  ['venv/pip.conf', /pip reads it as its configuration/],
  ['venv/pip.ini', /pip reads it as its configuration/],
  ['env/pip.conf', /pip reads it as its configuration/],
  ['pip.conf', /pip reads it/],
  ['Library/Application Support/pip/pip.conf', /pip reads it/],
  ['xdg/pip/PIP.CONF', /pip reads it/],
  ['conda/condarc', /conda reads it as its configuration/],
  ['miniconda3/envs/work/condarc', /conda reads it/],
  ['conda/condarc.d/channels.yml', /conda reads it/],
  ['conda/mambarc', /mamba reads it as its configuration/],
  ['project/uv.toml', /uv reads it as its configuration/],
  ['node/etc/npmrc', /npm reads it as its configuration/],
  ['pydistutils.cfg', /setuptools reads it/],
  ['venv/lib/distutils.cfg', /installed Python environment|setuptools/],
  ['env/etc/conda/activate.d/evil.sh', /conda runs or reads it/],
  ['env/conda-meta/state', /conda runs or reads it/],
  ['etc/profile.d/evil.sh', /shells run the scripts in it/],
  // Other installers' project files (an outside re-check, 2026-12-06): the
  // sources they fetch from, the commands they run.
  ['proj/pdm.toml', /PDM reads it as its configuration/],
  ['poetry.toml', /Poetry reads it/],
  ['Pipfile', /Pipenv reads it/],
  ['proj/Pipfile.lock', /Pipenv reads it/],
  ['pixi.toml', /pixi reads it/],
  ['hatch.toml', /Hatch reads it/],
  // The same re-check: every form `import sitecustomize` loads, and the
  // standard library's zip, which comes before its folder on sys.path.
  ['pypath/sitecustomize.pyc', /Python runs this file at every start/],
  [
    'pypath/sitecustomize.cpython-311-x86_64-linux-gnu.so',
    /Python runs this file at every start/
  ],
  ['pypath/sitecustomize.abi3.so', /Python runs this file/],
  ['pypath/SiteCustomize.pyd', /Python runs this file/],
  ['pypath/usercustomize.pyc', /Python runs this file/],
  [
    'miniconda3/lib/python312.zip',
    /Python imports its standard library from this zip/
  ],
  ['python311.zip', /standard library from this zip/],
  ['env/lib/python313t.zip', /standard library from this zip/],
  ['jupyterhub_config.py', /Jupyter or IPython runs or loads it/],
  ['hub/jupyterhub_config.py', /Jupyter or IPython/],
  // What the interpreter reads at start besides .pth and sitecustomize.
  ['venv/pyvenv.cfg', /Python reads it at every start/],
  ['python311._pth', /Python reads it at every start/],
  [
    'analysis/__pycache__/pandas.cpython-311.pyc',
    /Python loads compiled code from __pycache__/
  ],
  ['helpers/__pycache__/clean.cpython-312.pyc', /__pycache__/],
  ['sitecustomize/__init__.py', /Python runs this file at every start/],
  // IPython's and Jupyter's, under any folder (older IPython and
  // jupyter_core read them from the working folder too).
  ['ipython/profile_default/startup/00-evil.ipy', /IPython runs its startup/],
  ['profile_work/ipython_config.json', /Jupyter or IPython/],
  ['ipydir/profile_work/extensions/ext.py', /IPython reads its profile/],
  ['venv/etc/ipython/extra.py', /Jupyter or IPython/],
  ['jupyter_lab_config.py', /Jupyter or IPython/],
  ['deep/er/jupyter_config.json', /Jupyter or IPython/],
  ['config/nbconfig/notebook.json', /Jupyter reads it/],
  ['config/labconfig/page_config.json', /Jupyter reads it/],
  ['kernels/python3/kernel.js', /kernel spec/],
  ['jupyter-config/custom/custom.js', /Jupyter's page loads it/],
  ['custom/custom.css', /Jupyter's page loads it/],
  // An outside review (2026-12-07): JupyterLab's settings, the agent's own
  // approval mode among them, were created with no question, and installers'
  // lock files (the URLs the next sync fetches) were silent.
  [
    'jupyter-config/lab/user-settings/jupyterlab-notebook-agent/plugin.jupyterlab-settings',
    /JupyterLab loads these settings \(the agent's own approval mode among them\) at its next start/
  ],
  ['cfg/lab/user-settings/@jupyterlab/x/notes.json', /JupyterLab loads these/],
  ['settings-dir/ext/plugin.jupyterlab-settings', /JupyterLab loads these/],
  ['PLUGIN.JupyterLab-Settings', /JupyterLab loads these/],
  ['app/lab/settings/overrides.json', /JupyterLab loads these settings/],
  ['lab/settings/overrides.json5', /JupyterLab loads these settings/],
  ['app/settings/overrides.d/agent.json', /JupyterLab loads these settings/],
  ['app/settings/page_config.json', /JupyterLab loads these settings/],
  ['uv.lock', /uv reads it/],
  ['proj/poetry.lock', /Poetry reads it/],
  ['pdm.lock', /PDM reads it/],
  ['pixi.lock', /pixi reads it/],
  ['pylock.toml', /\(uv, PDM\) reads it/],
  ['proj/pylock.dev.toml', /\(uv, PDM\) reads it/],
  // Asked unless everything may run until the third re-check (2026-12-08):
  // uv, Poetry, PDM, pixi and Hatch read their index from it at any install.
  ['pyproject.toml', /pip runs the build code it names/],
  // Refused as hidden by the file tools first; the rule names them too.
  ['.bashrc', /hidden files configure programs/],
  ['.ipython/profile_default/startup/x.py', /hidden files/],
  ['.jupyter/jupyter_server_config.py', /hidden files/],
  ['.condarc', /hidden files configure programs \(shells, pip, conda/],
  ['.pypirc', /hidden files/],
  ['.npmrc', /hidden files/],
  ['.config/pip/pip.conf', /hidden files/],
  ['.pip/pip.conf', /hidden files/]
];

/** The reason for Python code that no narrower rule names. */
const PYTHON_CODE =
  /^a kernel can import it: Python code here runs next to a notebook, in a package/;

/** Asked in every mode but run-everything. */
const UNLESS_RUN_EVERYTHING: Array<[string, RegExp]> = [
  [
    'analysis/jsonschema.py',
    /^a notebook in this folder imports it before the library of the same name$/
  ],
  ['analysis/pandas.py', /a notebook in this folder imports it/],
  ['analysis/numpy.pyc', /a notebook in this folder imports it/],
  [
    'numpy.py',
    /^Python started in the server root imports it before the library/
  ],
  [
    'analysis/pandas/__init__.py',
    /makes its folder a package that a notebook in this folder/
  ],
  [
    'requests/__init__.py',
    /makes its folder a package that Python started in the server root/
  ],
  // Extension modules load as a plain `import` does (re-check, 2026-12-06).
  [
    'analysis/requests.cpython-311-x86_64-linux-gnu.so',
    /a notebook in this folder imports it/
  ],
  ['analysis/yaml.abi3.so', /a notebook in this folder imports it/],
  ['analysis/numpy.pyd', /a notebook in this folder imports it/],
  ['scipy.so', /^Python started in the server root imports it/],
  // matplotlib reads it from the working folder; its backend line imports a module.
  [
    'analysis/matplotlibrc',
    /matplotlib reads it .* imports the backend module/
  ],
  ['matplotlibrc', /matplotlib reads it/],
  ['mplconfig/matplotlibrc', /matplotlib reads it/],
  ['analysis/pip.bat', /on Windows, a command run from this folder runs it/],
  ['conftest.py', /pytest runs it when tests run in this folder/],
  ['tests/conftest.py', /pytest runs it/],
  ['pkg/setup.py', /pip runs the build code it holds/],
  // setuptools reads setup.cfg when pip installs the folder (its cmdclass
  // and setup_requires name code and indexes); pytest's ini files name the
  // plugins it imports, as a conftest.py would.
  ['pkg/setup.cfg', /pip runs the build code it names/],
  ['pytest.ini', /pytest imports the plugins it names/],
  ['tests/tox.ini', /pytest imports the plugins it names/],
  // pytest 9 reads pytest.toml like pytest.ini (the same review).
  ['pytest.toml', /pytest imports the plugins it names/],
  ['tests/pytest.toml', /pytest imports the plugins it names/],
  // Namespace packages (PEP 420 or pkgutil-style) assemble their modules
  // from every sys.path folder in order: a folder next to the notebook named
  // like one comes before the installed modules (the same review). Since
  // the third re-check (2026-12-08), as any Python code: the list of their
  // names is gone.
  ['analysis/mpl_toolkits/mplot3d.py', PYTHON_CODE],
  ['analysis/google/protobuf/__init__.py', PYTHON_CODE],
  ['analysis/google/protobuf/message.pyc', PYTHON_CODE],
  ['analysis/nvidia/cudnn/lib/libcudnn.so.9', PYTHON_CODE],
  ['analysis/azure/core/__init__.py', PYTHON_CODE],
  ['analysis/jaraco/functools.py', PYTHON_CODE],
  ['analysis/sphinxcontrib/jsmath/x.py', PYTHON_CODE],
  ['analysis/backports/tarfile/__init__.py', PYTHON_CODE],
  ['analysis/zope/interface/__init__.py', PYTHON_CODE],
  ['analysis/opentelemetry/trace.py', PYTHON_CODE],
  ['google/protobuf/__init__.py', PYTHON_CODE],
  // Ordinary files until the third re-check (2026-12-08): any Python code
  // under the root asks now, wherever it lies (next to another notebook, in
  // a package, as an optional module a library imports when it is there).
  ['helpers/clean.py', PYTHON_CODE],
  ['analysis/helpers/clean.py', PYTHON_CODE],
  ['analysis/helpers/sub/__init__.py', PYTHON_CODE],
  ['analysis/pandas/core.py', PYTHON_CODE],
  ['helpers/config.py', PYTHON_CODE],
  ['analysis/helpers/my_config.py', PYTHON_CODE],
  ['data/startup.py', PYTHON_CODE],
  ['helpers/libfast.so', PYTHON_CODE],
  ['analysis/my.module.py', PYTHON_CODE],
  ['src/model.py', PYTHON_CODE],
  ['analysis/helpers/google/protobuf/__init__.py', PYTHON_CODE],
  ['helpers/mpl_toolkits/mplot3d.py', PYTHON_CODE],
  ['analysis/googleapi/client.py', PYTHON_CODE],
  ['analysis/numpy/core.py', PYTHON_CODE]
];

/** Created as before: an edit, no question in the default mode. */
const ORDINARY = [
  'data.csv',
  'notes.md',
  'analysis/notes.md',
  'analysis/results.json',
  'report.txt',
  'binary/data.csv',
  'lib/readme.md',
  'readme_AGENTS.md',
  // Near the names above, and ordinary (#35 D2: no question for these).
  'requirements.txt',
  'analysis/requirements-dev.txt',
  'environment.yml',
  'settings/app.conf',
  'notes/pip.md',
  'conda_notes.md',
  'kernels/matmul.cu',
  'kernels/notes.md',
  'profiles/user.csv',
  'custom/style.css',
  'etc/readme.md',
  'analysis/pycache_notes.txt',
  // Near the names the re-check added, and ordinary.
  'analysis/archive.zip',
  'data/python_notes.zip',
  'notes/matplotlib.md',
  'analysis/matplotlibrc.md',
  'analysis/pixi_notes.toml',
  'docs/poetry.md',
  // Near the names the 2026-12-07 review added, and ordinary.
  'notes/uv.lock.md',
  'analysis/pylock-notes.toml',
  'analysis/pytest_notes.toml',
  'settings/app.json',
  'lab/notes.md',
  'docs/jupyterlab-settings.md'
];

describe('runsLater', () => {
  it.each(ALWAYS)('%s always asks', (path, reason) => {
    const later = runsLater(path, NOTEBOOK);
    expect(later).not.toBeNull();
    expect(later!.reason).toMatch(reason);
    expect(later!.always).toBe(true);
  });

  it.each(UNLESS_RUN_EVERYTHING)(
    '%s asks unless everything may run',
    (path, reason) => {
      const later = runsLater(path, NOTEBOOK);
      expect(later).not.toBeNull();
      expect(later!.reason).toMatch(reason);
      expect(later!.always).toBe(false);
    }
  );

  it.each(ORDINARY)('%s is an ordinary file', path => {
    expect(runsLater(path, NOTEBOOK)).toBeNull();
  });

  it('a module next to a notebook in the root is next to the notebook', () => {
    expect(runsLater('jsonschema.py', 'n.ipynb')?.reason).toMatch(
      /^a notebook in this folder imports it/
    );
    expect(runsLater('/./analysis//pandas.py', NOTEBOOK)?.reason).toMatch(
      /a notebook in this folder/
    );
  });
});

describe('namespace packages next to the notebook (an outside review, 2026-12-07)', () => {
  it.each(['proj/mpl_toolkits/mplot3d.py', 'proj/google/protobuf/__init__.py'])(
    '%s (notebook proj/analysis.ipynb) asks unless everything may run',
    path => {
      const later = runsLater(path, 'proj/analysis.ipynb');
      expect(later?.always).toBe(false);
      expect(later?.reason).toMatch(PYTHON_CODE);
    }
  );

  // Ordinary work until the third re-check (2026-12-08): Python code asks
  // wherever it lies; data does not.
  it('a nested module elsewhere asks too; data there does not', () => {
    expect(runsLater('proj/helpers/clean.py', 'proj/analysis.ipynb')).toEqual({
      reason: expect.stringMatching(PYTHON_CODE),
      always: false
    });
    expect(runsLater('other/google/x.py', 'proj/analysis.ipynb')?.always).toBe(
      false
    );
    expect(runsLater('proj/google/x.json', 'proj/analysis.ipynb')).toBe(null);
  });
});

describe('the approval policy for files that run later', () => {
  const later = { reason: 'r', always: false };
  const alwaysLater = { reason: 'r', always: true };
  it.each([
    ['run-everything', false, true],
    ['ask-before-running', true, true],
    ['ask-before-edits', true, true]
  ] as Array<[ApprovalMode, boolean, boolean]>)(
    'in %s: asks %s, and %s for the always-names',
    (mode, asks, asksAlways) => {
      expect(needsApproval('edit', mode, later)).toBe(asks);
      expect(needsApproval('edit', mode, alwaysLater)).toBe(asksAlways);
      // Without a later effect, an edit is as before.
      expect(needsApproval('edit', mode, null)).toBe(
        mode === 'ask-before-edits'
      );
    }
  );
});

/** One write_file call through the loop's approval step, as the agent makes it. */
async function create(
  path: string,
  mode: ApprovalMode,
  options: { approve?: boolean; files?: Record<string, string> } = {}
) {
  const notebook = new FakeNotebook({ path: NOTEBOOK, files: options.files });
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
      return options.approve === false
        ? { approved: false, reason: 'no' }
        : { approved: true };
    }
  );
  return { result, asked, notebook };
}

const MODES: ApprovalMode[] = [
  'run-everything',
  'ask-before-running',
  'ask-before-edits'
];

describe('write_file and files that run later', () => {
  describe.each(MODES)('in %s', mode => {
    it.each(ALWAYS.filter(([path]) => !path.startsWith('.')))(
      'asks before creating %s, saying why',
      async path => {
        const { asked, notebook, result } = await create(path, mode);
        expect(asked).toHaveLength(1);
        const reason = runsLater(path, NOTEBOOK)!.reason;
        expect(asked[0].title).toBe(`Create ${path} (${reason})`);
        expect(asked[0].runsLater).toEqual({ reason, always: true });
        expect(asked[0].code).toBe('import os\n');
        expect(result.ok).toBe(true);
        expect(notebook.files.get(path)).toBe('import os\n');
      }
    );

    it.each(UNLESS_RUN_EVERYTHING)(
      `${mode === 'run-everything' ? 'creates' : 'asks before creating'} %s`,
      async path => {
        const { asked, notebook } = await create(path, mode);
        if (mode === 'run-everything') {
          expect(asked).toHaveLength(0);
        } else {
          expect(asked).toHaveLength(1);
          expect(asked[0].title).toBe(
            `Create ${path} (${runsLater(path, NOTEBOOK)!.reason})`
          );
          expect(asked[0].runsLater?.always).toBe(false);
        }
        expect(notebook.files.get(path)).toBe('import os\n');
      }
    );
  });

  it.each(ORDINARY)(
    'creates %s without asking in the default mode, as before',
    async path => {
      const { asked, notebook, result } = await create(
        path,
        'ask-before-running'
      );
      expect(asked).toHaveLength(0);
      expect(result.output).toMatch(/^Created /);
      expect(notebook.files.get(path)).toBe('import os\n');
    }
  );

  it('a rejected creation writes nothing', async () => {
    const { notebook, result } = await create(
      'analysis/jsonschema.py',
      'ask-before-running',
      { approve: false }
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/rejected this write_file call/);
    expect(notebook.files.has('analysis/jsonschema.py')).toBe(false);
  });

  it('hidden startup files are refused before anyone is asked', async () => {
    for (const path of [
      '.bashrc',
      '.ipython/profile_default/startup/x.py',
      '.jupyter/jupyter_server_config.py'
    ]) {
      const { asked, notebook, result } = await create(path, 'run-everything');
      expect(asked).toHaveLength(0);
      expect(result.output).toMatch(/^Refused: hidden files/);
      expect(notebook.files.size).toBe(0);
    }
  });

  it('replacing one says why too', async () => {
    const { asked } = await create('AGENTS.md', 'run-everything', {
      files: { 'AGENTS.md': 'old\n' }
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: 'replace',
      title: `Replace AGENTS.md (${runsLater('AGENTS.md', NOTEBOOK)!.reason})`
    });
  });

  it('a direct call (no approval step) never creates one', async () => {
    const notebook = new FakeNotebook({ path: NOTEBOOK });
    const registry = new ToolRegistry(agentTools());
    const call = (path: string) =>
      registry.call(
        {
          id: 'c',
          name: 'write_file',
          arguments: JSON.stringify({ path, content: 'x = 1\n' })
        },
        { notebook, signal: new AbortController().signal }
      );
    const refused = await call('venv/lib/python3.11/site-packages/a.pth');
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(
      /^Refused: creating venv\/lib\/python3\.11\/site-packages\/a\.pth needs the user's approval: /
    );
    expect(notebook.files.size).toBe(0);
    // Python code anywhere asks since the third re-check (2026-12-08).
    expect((await call('helpers/ok.py')).ok).toBe(false);
    expect((await call('helpers/ok.csv')).ok).toBe(true);
  });
});

/**
 * A third outside re-check (2026-12-08) created these with no question and
 * then watched them run: the Jupyter server rendered a template from its
 * folder at File > Save and Export As, `git status` ran a non-hidden
 * repository's fsmonitor command, a kernel imported modules from folders
 * the list of names did not cover, `%matplotlib inline` and `python -m
 * pytest` imported what a `*.dist-info` next to the notebook named, and
 * uv read its index from a pyproject.toml in "run everything".
 */
describe('the third outside re-check (2026-12-08)', () => {
  const NB = 'proj/analysis.ipynb';
  const verdict = (path: string, notebook = NB) => runsLater(path, notebook);

  it.each([
    // nbconvert looks for `<template>/` in the server's folder (the root) first.
    'lab/index.html.j2',
    'lab/base.html.j2',
    'classic/index.html.j2',
    'markdown/index.md.j2',
    'python/index.py.j2',
    'script/script.j2',
    'latex/index.tex.j2',
    'rst/index.rst.j2',
    'asciidoc/index.asciidoc.j2',
    'reveal/index.html.j2',
    'webpdf/index.pdf.j2',
    'base/display_priority.j2',
    'basic/index.html.tpl',
    'compatibility/full.tpl',
    'proj/lab/index.html.j2',
    'templates/page.jinja',
    'site/page.html.jinja2',
    'lab/conf.json',
    'mine/conf.json',
    'xdg/jupyter/nbconvert/templates/mine/conf.json'
  ])('%s (an nbconvert template) asks in every mode', path => {
    expect(verdict(path)).toEqual({
      reason: expect.stringMatching(
        /^the Jupyter server renders nbconvert templates from its folder when a notebook is exported/
      ),
      always: true
    });
  });

  it.each([
    'proj/HEAD',
    'proj/config',
    'HEAD',
    'config',
    'repo/Config',
    'proj/commondir',
    'proj/gitdir',
    'proj/packed-refs',
    'backup.git/hooks/post-receive',
    'proj/hooks/pre-commit',
    'proj/hooks/fsmonitor-watchman'
  ])(
    '%s (what makes or configures a git repository) asks in every mode',
    path => {
      expect(verdict(path)).toEqual({
        reason: expect.stringMatching(
          /^git takes a folder with HEAD, objects\/ and refs\/ for a repository/
        ),
        always: true
      });
    }
  );

  it.each([
    // IPython's traceback formatting imports astroid.nodes when it is there.
    'proj/astroid/nodes.py',
    // Next to another notebook of the user's (reports/monthly.ipynb).
    'reports/pandas.py',
    // A package wins over the user's module of the same name beside it.
    'proj/utils/helpers/__init__.py',
    'proj/utils/helpers/core.py',
    'deep/er/module.pyw',
    'deep/er/module.pyc',
    'deep/er/fast.cpython-311-x86_64-linux-gnu.so',
    'deep/er/fast.pyd',
    'other/nvidia/cublas/lib/libcublas.so.12',
    'other/google/protobuf/message.py',
    'other/lib/libfast.dylib',
    'other/bin-win/fast.dll',
    // Not importable by name, still Python code (runpy, `%run`, a loader).
    'proj/my.module.py'
  ])('%s (Python code anywhere) asks unless everything may run', path => {
    expect(verdict(path)).toEqual({
      reason: expect.any(String),
      always: false
    });
  });

  it.each([
    'proj/matplotlib_inline-99.0.dist-info/METADATA',
    'proj/matplotlib_inline-99.0.dist-info/entry_points.txt',
    'proj/evil-1.0.dist-info/entry_points.txt',
    'proj/evil-1.0.dist-info/RECORD',
    'proj/evil.egg-info/entry_points.txt',
    'proj/evil.egg-info/PKG-INFO',
    'proj/evil.egg-link',
    'reports/entry_points.txt',
    'Evil-1.0.DIST-INFO/METADATA'
  ])('%s (package metadata) asks unless everything may run', path => {
    expect(verdict(path)).toEqual({
      reason: expect.stringMatching(
        /^Python reads package metadata from the folders it imports from: the entry points it names are imported/
      ),
      always: false
    });
  });

  it.each(['pyproject.toml', 'proj/pyproject.toml', 'deep/er/PyProject.toml'])(
    "%s (uv's, Poetry's, PDM's, pixi's and Hatch's configuration) asks in every mode",
    path => {
      expect(verdict(path)).toEqual({
        reason: expect.stringMatching(
          /^installers \(uv, Poetry, PDM, pixi, Hatch\) read the index and the commands it names/
        ),
        always: true
      });
    }
  );

  it('setup.cfg, which pip reads no index from, still asks unless everything may run', () => {
    expect(verdict('proj/setup.cfg')?.always).toBe(false);
  });

  it.each([
    // Windows drops trailing dots and spaces, and writes `name::$DATA` to
    // `name`; it matches names in any case.
    ['venv/pip.ini.', 'venv/pip.ini'],
    ['venv/pip.ini ', 'venv/pip.ini'],
    ['venv/pip.ini . .', 'venv/pip.ini'],
    ['venv/pip.ini::$DATA', 'venv/pip.ini'],
    ['venv/pip.ini:x', 'venv/pip.ini'],
    ['sitecustomize.py.', 'sitecustomize.py'],
    ['proj/requests.py ', 'proj/requests.py'],
    [
      'venv./lib/python3.11/site-packages/x.py',
      'venv/lib/python3.11/site-packages/x.py'
    ],
    ['proj/HEAD.', 'proj/HEAD'],
    ['lab/index.html.j2::$DATA', 'lab/index.html.j2'],
    ['env/scripts/pip.bat', 'env/Scripts/pip.bat'],
    ['venv/SCRIPTS/pip.bat', 'venv/Scripts/pip.bat'],
    ['venv/scripts/Activate.ps1', 'venv/Scripts/Activate.ps1'],
    ['env/scripts/jupyter-script.py', 'env/Scripts/jupyter-script.py'],
    ['env/Lib/os.py', 'env/lib/os.py'],
    ['env/Lib/Site-Packages/x.py', 'env/lib/site-packages/x.py']
  ])('%s asks as %s does', (path, plain) => {
    const later = verdict(path);
    expect(later).not.toBeNull();
    expect(later).toEqual(verdict(plain));
  });

  it('a name is judged as given too: on Linux `x:y.py` is Python code', () => {
    expect(verdict('proj/x:y.py')?.always).toBe(false);
    expect(verdict('notes/a.txt:b.py')?.always).toBe(false);
  });

  it.each([
    // Data under a namespace package's name is no code.
    'proj/google/protobuf/descriptor.proto',
    'analysis/google/data.json',
    // A user's own scripts/ folder: only what Windows runs from an
    // environment's Scripts/ asks there.
    'scripts/run.sh',
    'scripts/README.md',
    // React's hooks, not git's.
    'src/hooks/useData.ts',
    'proj/hooks/pre-commit.md',
    // Named like git's files, with an extension.
    'config.yaml',
    'proj/config.json',
    'notes/HEAD.md',
    'templates/page.html',
    'proj/sub/conf.json',
    'proj/METADATA',
    'proj/dist-info.txt'
  ])('%s stays ordinary', path => {
    expect(verdict(path)).toBeNull();
  });
});
