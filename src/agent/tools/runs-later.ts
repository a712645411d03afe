/**
 * Files that run, or steer the agent, later: the one rule of which paths
 * `write_file` may not create without asking. Creating a file is otherwise
 * an edit (no question in the default mode), but these act after the run,
 * where no approval card stands between them and what they do:
 *
 * - `always` (asked in every approval mode, "run everything" included):
 *   what runs outside the kernel the user handed to the agent, or in every
 *   later run — a `.pth` or `sitecustomize.py` (every Python start of the
 *   environment, the Jupyter server's own included), what the interpreter
 *   reads at start (`pyvenv.cfg`, `._pth`, `__pycache__/`), anything in an
 *   installed environment (`site-packages`, a venv's `lib/pythonX.Y`, its
 *   `bin/`, conda's `conda-meta/` and `etc/conda/`, the standard library's
 *   `pythonXY.zip`), the installers' own configuration (`pip.conf`/`pip.ini`,
 *   `condarc`, `uv.toml`, `npmrc`, the project files of PDM, Poetry,
 *   Pipenv, pixi and Hatch, and the lock files that fix what `uv sync`,
 *   `poetry install`, `pdm install`, `pixi install` or a PEP 751
 *   `pylock.toml` install fetches: the next install the user approves, whose
 *   card shows package names only, asks the index or URLs they name),
 *   Jupyter's and IPython's configuration, profiles, kernel specs and startup
 *   files, JupyterLab extensions and settings (user settings, overrides,
 *   page_config: the agent's own approval mode is one of them),
 *   `AGENTS.md` (read into every later run's prompt) and `mcp.json` (its
 *   commands run at the next listing);
 * - otherwise (asked in every mode but "run everything", where the agent
 *   may run any code in the kernel anyway): Python files that a plain
 *   `import` picks up before the library of the same name (next to the
 *   notebook, the kernel's first `sys.path` entry, or in the server root),
 *   any file under a folder there named like a namespace package
 *   (`google/`, `mpl_toolkits/`: {@link NAMESPACE_PACKAGES}), whose modules
 *   load from the first `sys.path` folder that has them,
 *   and the files that common tools find and run by themselves
 *   (`conftest.py` for pytest, `setup.py` and `pyproject.toml` for pip,
 *   `matplotlibrc` for matplotlib, whose backend line imports a module).
 *
 * `pyproject.toml` is in: its build-system table can point pip at code in
 * the folder (`backend-path`), and pytest reads plugins from it; so are
 * `setup.cfg` (setuptools' `cmdclass` and `setup_requires`) and pytest's
 * ini files, `pytest.toml` (pytest 9) among them (`-p plugin` in `addopts`
 * imports a module, as a conftest.py would run). Files that a tool reads
 * only when the user names them (`requirements.txt`, `environment.yml`,
 * `noxfile.py`, `Makefile`) are not. The installers' and Jupyter's file
 * names ask wherever they lie: where an environment or a configuration
 * folder is (`$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$XDG_CONFIG_HOME`,
 * `$JUPYTER_CONFIG_DIR`, `$IPYTHONDIR`) is not known here, and older IPython and jupyter_core read theirs from the
 * working folder. Hidden paths (`.bashrc`, `.condarc`, `.pypirc`, `.npmrc`,
 * `.ipython/`, `.jupyter/`, `.git/hooks`) are refused by the file tools
 * before this rule is read; it still names them, so the rule holds alone.
 *
 * Pure: paths only (relative to the server root, "/"-separated), no reads.
 * A folder that is a link (`helpers` → `proj`) is not seen here; the
 * caller judges the real place too (./write-landing.ts: the name given and
 * where it really leads, each against the notebook's folder as named and as
 * it really is).
 */
import { RULES_FILE } from '../context/project-rules';

/** Why a new file at a path acts later, and whether it asks in every mode. */
export interface IRunsLater {
  /** For the approval card, e.g. "Python runs it at every start". */
  reason: string;
  /** Asked in every approval mode, "run everything" included. */
  always: boolean;
}

/**
 * What `import` loads as a module: source, byte code and extension modules
 * (`name.so`, `name.cpython-311-x86_64-linux-gnu.so`, `name.abi3.so`,
 * `name.pyd`: CPython's `EXTENSION_SUFFIXES`). Group 1: the module's name.
 */
const PYTHON_MODULE =
  /^([^.]+)(?:\.(?:py|pyw|pyc)|(?:\.[\w-]+)?\.(?:so|pyd))$/i;

/** The module a file name makes importable (lower case), or null. */
function moduleOf(name: string): string | null {
  return PYTHON_MODULE.exec(name)?.[1] ?? null;
}

/** Programs Windows' shell finds in the current folder before those on PATH. */
const WINDOWS_COMMAND = /\.(bat|cmd|exe|com)$/i;

/**
 * `jupyter_server_config.py`, `ipython_kernel_config.json`, `jupyter_config.py`,
 * `jupyterhub_config.py` (JupyterHub reads it from the folder it starts in)…
 */
const JUPYTER_CONFIG =
  /^(jupyter|jupyterhub|ipython)(_\w+)?_config\.(py|json)$/i;

/** Where IPython keeps startup files of a profile. */
const PROFILE = /^profile_/i;

/**
 * The installers' configuration files, by name: pip's (`pip.conf`, on
 * Windows `pip.ini`: global, user, and `$VIRTUAL_ENV/pip.conf` per
 * environment), conda's (`condarc` in `/etc/conda`, `$CONDA_ROOT`,
 * `$XDG_CONFIG_HOME/conda`, `~/.conda`, `$CONDA_PREFIX`) and mamba's,
 * uv's (`uv.toml` in the project or any folder above it), npm's global
 * `$PREFIX/etc/npmrc`, and distutils'/setuptools' (`pydistutils.cfg`,
 * `distutils.cfg`: the index that `setup_requires` asks).
 */
const INSTALLER_CONFIG: Array<[RegExp, string]> = [
  [/^pip\.(conf|ini)$/, 'pip'],
  [/^condarc$/, 'conda'],
  [/^mambarc$/, 'mamba'],
  [/^uv\.toml$/, 'uv'],
  [/^npmrc$/, 'npm'],
  // The project files other installers read in the folder they run in: the
  // sources (indexes) they fetch from, and commands they run (pixi's
  // activation scripts, hatch's pre-install commands).
  [/^pdm\.toml$/, 'PDM'],
  [/^poetry\.toml$/, 'Poetry'],
  [/^pipfile(\.lock)?$/, 'Pipenv'],
  [/^pixi\.toml$/, 'pixi'],
  [/^hatch\.toml$/, 'Hatch'],
  // Lock files: `uv sync`, `poetry install`, `pdm install` and `pixi install`
  // fetch the URLs (and indexes) a lock names, not what the card shows; PEP
  // 751's `pylock.toml` or `pylock.<name>.toml` is read by uv and PDM (pip
  // writes it with `pip lock`).
  [/^uv\.lock$/, 'uv'],
  [/^poetry\.lock$/, 'Poetry'],
  [/^pdm\.lock$/, 'PDM'],
  [/^pixi\.lock$/, 'pixi'],
  [/^pylock(\.[^./]+)?\.toml$/, 'an installer (uv, PDM)']
];

/**
 * Top-level names of well-known namespace packages. A namespace package
 * has no single folder: a PEP 420 one (no `__init__.py`) loads each module
 * from the first `sys.path` folder that has it, so a `google/protobuf/` or
 * `mpl_toolkits/mplot3d.py` next to the notebook (the kernel's first
 * `sys.path` entry) is what `import google.protobuf` or `from
 * mpl_toolkits.mplot3d import Axes3D` loads, before the installed one; a
 * pkgutil-style one (`extend_path` in its `__init__.py`) adds that folder
 * after its own, and the modules it lacks load from there. A regular
 * package (numpy, with its `__init__.py` in site-packages) is not shadowed
 * this way: it wins over namespace portions, so nested folders named like
 * it are ordinary work. The rule is pure and cannot ask the
 * kernel which names are namespace packages in its environment, hence a
 * list. Checked (2026-12-06) by looking for `<name>/__init__.py` in the
 * installed or PyPI wheels (`pip download --no-deps`): none in protobuf
 * 7.36 and googleapis-common-protos 1.76 (google), matplotlib 3.11
 * (mpl_toolkits), azure-core 1.41 (azure), jaraco.functools 4.6 (jaraco),
 * sphinxcontrib-jsmath 2.0 (sphinxcontrib), zope.interface 8.7 (zope),
 * nvidia-nvtx-cu12 12.9 (nvidia; torch also looks for CUDA libraries in
 * `nvidia/<library>/lib/` of every `sys.path` folder), opentelemetry-api 1.45
 * (opentelemetry); backports.tarfile 1.2's is pkgutil's `extend_path`
 * (backports).
 */
const NAMESPACE_PACKAGES: ReadonlySet<string> = new Set([
  'google',
  'mpl_toolkits',
  'azure',
  'jaraco',
  'sphinxcontrib',
  'backports',
  'zope',
  'nvidia',
  'opentelemetry'
]);

/**
 * The namespace package a file is under, next to the notebook or in the
 * root: the first folder below that place, when it is one of
 * {@link NAMESPACE_PACKAGES}; null otherwise. `nearNotebook`: whether that
 * place is the notebook's folder (else the root).
 */
function namespaceOf(
  place: IPlace
): { name: string; nearNotebook: boolean } | null {
  const bases: Array<[string, boolean]> = [
    ...place.notebookFolders.map((folder): [string, boolean] => [folder, true]),
    ['', false]
  ];
  for (const [base, nearNotebook] of bases) {
    const baseParts = base ? base.split('/') : [];
    const first = place.folders[baseParts.length];
    if (
      first !== undefined &&
      baseParts.every((part, i) => place.folders[i] === part) &&
      // Lower case: a case-insensitive file system (macOS, Windows) imports
      // a `Google/` folder as `google`.
      NAMESPACE_PACKAGES.has(first.toLowerCase())
    ) {
      return { name: first.toLowerCase(), nearNotebook };
    }
  }
  return null;
}

/** A venv's or conda's library folder, e.g. `lib/python3.11`. */
const PYTHON_LIB = /^python\d+(\.\d+)*t?$/i;

/** A path taken apart: its folders, its name, and the notebook's folder. */
interface IPlace {
  folders: string[];
  /** The file name in lower case. */
  name: string;
  /** The folder the file is in ("" for the root). */
  folder: string;
  /**
   * The notebook's folder: as named, and where it really is when a link
   * leads there (the kernel imports from the real one).
   */
  notebookFolders: readonly string[];
}

/** A rule: the paths it names, and why they act later (maybe naming what the path holds). */
type Rule = [
  test: (place: IPlace) => boolean,
  reason: string | ((place: IPlace) => string)
];

/** Whether a folder named like `test` is in the path, with the one before it named like `before`. */
function nested(place: IPlace, before: RegExp, test: RegExp): boolean {
  return place.folders.some(
    (f, i) => test.test(f) && before.test(place.folders[i - 1] ?? '')
  );
}

const inFolder = (place: IPlace, test: RegExp) =>
  place.folders.some(f => test.test(f));

/** Asked in every mode: they act outside the kernel, or in every later run. */
const ALWAYS: Rule[] = [
  [
    // Shell startup files, ~/.ipython, ~/.jupyter, .git/hooks.
    p => [...p.folders, p.name].some(part => part.startsWith('.')),
    'hidden files configure programs (shells, pip, conda, npm, IPython, Jupyter, git) that read or run them at their next start'
  ],
  [
    p => p.name === RULES_FILE.toLowerCase(),
    'AGENTS.md steers every later run of the agent in this folder and below'
  ],
  [
    p => p.name === 'mcp.json',
    'the Jupyter server runs the commands an mcp.json names when it lists MCP tools'
  ],
  ...INSTALLER_CONFIG.map(([name, installer]): Rule => [
    p =>
      name.test(p.name) ||
      (installer === 'conda' && inFolder(p, /^condarc\.d$/i)),
    `${installer} reads it as its configuration at every install: the index and the packages it names are what the next install fetches`
  ]),
  [
    p => /^(pydistutils|distutils)\.cfg$/.test(p.name),
    'setuptools reads it when pip builds a package, with the index it names'
  ],
  [
    p => p.name.endsWith('.pth'),
    'Python runs the code in a .pth file at every start of its environment'
  ],
  [
    // Any form `import sitecustomize` loads: source, byte code, an extension
    // module, a package.
    p =>
      moduleOf(p.name) === 'sitecustomize' ||
      moduleOf(p.name) === 'usercustomize' ||
      inFolder(p, /^(site|user)customize$/i),
    'Python runs this file at every start of the environment that holds it'
  ],
  [
    // `lib/python311.zip` (Windows: next to python.exe) is on sys.path before
    // the standard library's folder, so its modules (`encodings` first) load
    // in place of the library's at every start.
    p => /^python\d+t?\.zip$/.test(p.name),
    "Python imports its standard library from this zip, before the library's own folder, at every start of the environment that holds it"
  ],
  [
    // pyvenv.cfg names the interpreter's home; a `._pth` file replaces sys.path.
    p => p.name === 'pyvenv.cfg' || p.name.endsWith('._pth'),
    'Python reads it at every start to decide where its standard library and packages are'
  ],
  [
    p => inFolder(p, /^__pycache__$/i),
    'Python loads compiled code from __pycache__ in place of the module next to it'
  ],
  [
    p =>
      inFolder(p, /^(site|dist)-packages$/i) ||
      nested(p, /^lib(64)?$/i, PYTHON_LIB),
    'it is inside an installed Python environment, whose programs (the Jupyter server among them) import from there'
  ],
  [
    // activate.d/ scripts, env_vars.d/, conda-meta/state (the environment's variables).
    p => inFolder(p, /^conda-meta$/i) || nested(p, /^etc$/i, /^conda$/i),
    'conda runs or reads it at every activation of, or install into, the environment'
  ],
  [
    p => nested(p, /^etc$/i, /^profile\.d$/i),
    'shells run the scripts in it at every login'
  ],
  [
    p => inFolder(p, /^([bB][iI][nN]|Scripts)$/),
    'programs in a bin/ folder run in place of commands of the same name (python, pip, jupyter)'
  ],
  [
    p =>
      JUPYTER_CONFIG.test(p.name) ||
      inFolder(p, /_config\.d$/i) ||
      nested(p, /^etc$/i, /^ipython$/i),
    'Jupyter or IPython runs or loads it at its next start'
  ],
  [
    p => nested(p, PROFILE, /^startup$/i),
    'IPython runs its startup files at the start of every kernel'
  ],
  [
    p => inFolder(p, PROFILE),
    'IPython reads its profile (configuration, startup files, extensions) at the start of every kernel'
  ],
  [
    // `$JUPYTER_CONFIG_DIR/lab/user-settings/` (or `$JUPYTERLAB_SETTINGS_DIR`,
    // anywhere: its files end in `.jupyterlab-settings`), and the app
    // directory's `settings/` (`overrides.json`, `overrides.d/`,
    // `page_config.json`): jupyterlab_server reads them, and the page applies
    // them, the agent's approval mode included, at the next load.
    p =>
      nested(p, /^lab$/i, /^user-settings$/i) ||
      p.name.endsWith('.jupyterlab-settings') ||
      (/^settings$/i.test(p.folders[p.folders.length - 1] ?? '') &&
        /^(overrides|page_config)\.json5?$/.test(p.name)) ||
      nested(p, /^settings$/i, /^overrides\.d$/i),
    "JupyterLab loads these settings (the agent's own approval mode among them) at its next start"
  ],
  [
    p =>
      p.name === 'kernel.json' ||
      (p.name === 'kernel.js' && nested(p, /^kernels$/i, /./)) ||
      nested(p, /^(etc|share)$/i, /^jupyter$/i) ||
      inFolder(p, /^(nb|lab)config$/i),
    'Jupyter reads it at its next start (a kernel spec names the command that starts a kernel)'
  ],
  [
    p =>
      /^custom\.(js|css)$/.test(p.name) &&
      /^custom$/i.test(p.folders[p.folders.length - 1] ?? ''),
    "Jupyter's page loads it at its next start, when it lies in Jupyter's configuration folder"
  ],
  [
    p => inFolder(p, /^(lab|nb)extensions$/i),
    'JupyterLab loads extensions into the page at its next start'
  ]
];

/** Asked in every mode but "run everything": they run when the user's own code or tools do. */
const UNLESS_RUN_EVERYTHING: Rule[] = [
  [
    p => p.name === 'conftest.py',
    'pytest runs it when tests run in this folder or below'
  ],
  [
    p => p.name === 'setup.py',
    'pip runs the build code it holds when this folder is installed'
  ],
  [
    p => p.name === 'pyproject.toml' || p.name === 'setup.cfg',
    'pip runs the build code it names when this folder is installed'
  ],
  [
    p => /^(pytest\.ini|pytest\.toml|tox\.ini)$/.test(p.name),
    'pytest imports the plugins it names when tests run in this folder or below'
  ],
  [
    // Read from the working folder (the notebook's) or $MPLCONFIGDIR; a
    // `backend: module://name` line imports that module.
    p => p.name === 'matplotlibrc',
    'matplotlib reads it when a notebook imports it, and imports the backend module it names'
  ],
  [
    p => p.notebookFolders.includes(p.folder) && moduleOf(p.name) !== null,
    'a notebook in this folder imports it before the library of the same name'
  ],
  [
    p => p.folder === '' && moduleOf(p.name) !== null,
    'Python started in the server root imports it before the library of the same name'
  ],
  [
    p =>
      p.name === '__init__.py' &&
      p.notebookFolders.includes(p.folders.slice(0, -1).join('/')),
    'it makes its folder a package that a notebook in this folder imports before the library of the same name'
  ],
  [
    p => p.name === '__init__.py' && p.folders.length === 1,
    'it makes its folder a package that Python started in the server root imports before the library of the same name'
  ],
  [
    // Any file, not only modules: a namespace package's resources and
    // libraries are found through its folders too.
    p => namespaceOf(p) !== null,
    p => {
      const { name, nearNotebook } = namespaceOf(p)!;
      return (
        `${name} is a namespace package, assembled from every folder named ${name} on sys.path: ` +
        (nearNotebook
          ? `a notebook next to this ${name}/ folder can import ${name}'s modules from it in place of the installed ones`
          : `Python started in the server root can import ${name}'s modules from this ${name}/ folder in place of the installed ones`)
      );
    }
  ],
  [
    p =>
      (p.notebookFolders.includes(p.folder) || p.folder === '') &&
      WINDOWS_COMMAND.test(p.name),
    'on Windows, a command run from this folder runs it in place of the program of the same name'
  ]
];

/**
 * Whether a new file at `path` (relative to the server root) would run or
 * steer later, and why; null for an ordinary file (`data.csv`, `notes.md`,
 * `helpers/clean.py`). `notebookPath`: the open notebook's path, whose
 * folder is the kernel's first import path.
 */
export function runsLater(
  path: string,
  notebookPath: string
): IRunsLater | null {
  return runsLaterNear(path, [folderOf(notebookPath)]);
}

/**
 * {@link runsLater} with the notebook's folder given, maybe more than one
 * name for it (`link/` as the notebook is named, `proj/` where the link
 * leads): a module next to any of them is next to the notebook.
 */
export function runsLaterNear(
  path: string,
  notebookFolders: readonly string[]
): IRunsLater | null {
  const parts = segments(path);
  if (!parts.length) {
    return null;
  }
  const folders = parts.slice(0, -1);
  const place: IPlace = {
    folders,
    name: parts[parts.length - 1].toLowerCase(),
    folder: folders.join('/'),
    notebookFolders: notebookFolders.map(folder => segments(folder).join('/'))
  };
  for (const [rules, always] of [
    [ALWAYS, true],
    [UNLESS_RUN_EVERYTHING, false]
  ] as const) {
    const rule = rules.find(([test]) => test(place));
    if (rule) {
      const [, reason] = rule;
      return {
        reason: typeof reason === 'string' ? reason : reason(place),
        always
      };
    }
  }
  return null;
}

/** How strongly a verdict asks: not at all, unless everything may run, always. */
export function askRank(later: IRunsLater | null): 0 | 1 | 2 {
  return later === null ? 0 : later.always ? 2 : 1;
}

/** The folder of a root-relative path ("" for the root). */
export function folderOf(path: string): string {
  return segments(path).slice(0, -1).join('/');
}

/** "/a//b/./c" → ["a", "b", "c"] (paths here are already checked by `rootPath`). */
function segments(path: string): string[] {
  return path.split(/[\\/]+/).filter(part => part !== '' && part !== '.');
}
