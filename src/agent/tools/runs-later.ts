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
 *   `bin/` or `Scripts/`, conda's `conda-meta/` and `etc/conda/`, the
 *   standard library's `pythonXY.zip`), the installers' own configuration
 *   (`pip.conf`/`pip.ini`, `condarc`, `uv.toml`, `npmrc`, `pyproject.toml`
 *   (uv's, Poetry's, PDM's, pixi's and Hatch's tables name the index and
 *   commands), the project files of PDM, Poetry, Pipenv, pixi and Hatch,
 *   and the lock files that fix what `uv sync`, `poetry install`, `pdm
 *   install`, `pixi install` or a PEP 751 `pylock.toml` install fetches:
 *   the next install the user approves, whose card shows package names
 *   only, asks the index or URLs they name), Jupyter's and IPython's
 *   configuration, profiles, kernel specs and startup files, JupyterLab
 *   extensions and settings (user settings, overrides, page_config: the
 *   agent's own approval mode is one of them), nbconvert's templates (Jinja
 *   files anywhere, a template folder's `conf.json`: the Jupyter server
 *   renders them at File > Save and Export As, and a template runs any
 *   code there), what makes a folder a git repository or configures one
 *   (`HEAD`, `config`, `commondir`, a hook: git runs the commands a config
 *   names, `core.fsmonitor` at every `git status`), `AGENTS.md` (read into
 *   every later run's prompt) and `mcp.json` (its commands run at the next
 *   listing);
 * - otherwise (asked in every mode but "run everything", where the agent
 *   may run any code in the kernel anyway): Python code — any `.py`,
 *   `.pyw`, `.pyc`, extension module (`.so`, `.pyd`) or native library
 *   (`libx.so.9`, `.dylib`, `.dll`) anywhere under the root. A kernel
 *   imports from its notebook's folder first, and every folder holds, or
 *   may later hold, some notebook; a package folder wins over a module of
 *   the same name (`utils/helpers/__init__.py` over `utils/helpers.py`); a
 *   namespace package (`google/`, `mpl_toolkits/`) takes its modules from
 *   every `sys.path` folder; and libraries import optional modules when
 *   they are there (IPython's tracebacks `astroid.nodes`). No list of
 *   names keeps up with that, so the rule is structural. Besides code:
 *   package metadata (anything in a `*.dist-info/` or `*.egg-info/`
 *   folder, `*.egg-link`, `entry_points.txt`: `importlib.metadata` takes
 *   the first distribution of a name on `sys.path`, and the entry points
 *   it names are imported by matplotlib's backends and pytest's plugins),
 *   and the files that common tools find and run by themselves
 *   (`conftest.py` for pytest, `setup.py` and `setup.cfg` for pip,
 *   pytest's ini files, `matplotlibrc` for matplotlib, whose backend line
 *   imports a module).
 *
 * `setup.cfg` is in because setuptools reads its `cmdclass` and
 * `setup_requires` when this folder is built (not at other installs: pip
 * reads no index from it, so it is not an `always` name); so are pytest's
 * ini files, `pytest.toml` (pytest 9) among them (`-p plugin` in `addopts`
 * imports a module, as a conftest.py would run). Files that a tool reads
 * only when the user names them (`requirements.txt`, `environment.yml`,
 * `Makefile`) are not. The installers', Jupyter's and git's file names ask
 * wherever they lie: where an environment, a repository or a configuration
 * folder is (`$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$XDG_CONFIG_HOME`,
 * `$JUPYTER_CONFIG_DIR`, `$IPYTHONDIR`) is not known here, and older
 * IPython and jupyter_core read theirs from the working folder. Hidden
 * paths (`.bashrc`, `.condarc`, `.pypirc`, `.npmrc`, `.ipython/`,
 * `.jupyter/`, `.git/`) are refused by the file tools before this rule is
 * read; it still names them, so the rule holds alone.
 *
 * Windows reaches one file by more names than Linux: it drops trailing dots
 * and spaces from each name (`pip.ini.`, `sitecustomize.py `), writes
 * `pip.ini::$DATA` to `pip.ini` (an NTFS stream; `pip.ini:x` to a stream
 * of it), and matches names in any case. A path is judged as given and in
 * that form, the stronger verdict kept, and folder names match in any case
 * (`venv/SCRIPTS/`, `env/Lib/Site-Packages/`): `Scripts/`, as Windows'
 * environments spell it, asks for anything in it, and in another case for
 * what Windows runs from there (`pip.bat`, `Activate.ps1`), so that a
 * user's own `scripts/` folder stays ordinary.
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

/**
 * Code a Python process may load, whatever the rest of its name: source,
 * byte code, extension modules, and native libraries (`libcudnn.so.9`,
 * which torch loads from `nvidia/<library>/lib/` of any `sys.path` folder;
 * `.dylib`, `.dll`).
 */
const PYTHON_CODE = /\.(py|pyw|pyc|pyd|so(\.\d+)*|dylib|dll)$/i;

/** Programs Windows' shell finds in the current folder before those on PATH. */
const WINDOWS_COMMAND = /\.(bat|cmd|exe|com)$/i;

/**
 * What runs from a Windows environment's `Scripts/` folder: its commands
 * (`pip.exe`, `activate.bat`, `Activate.ps1`) and the scripts that conda's
 * launchers run (`jupyter.exe` runs `jupyter-script.py`).
 */
const SCRIPTS_COMMAND = /(\.(bat|cmd|exe|com|ps1)|-script\.pyw?)$/i;

/**
 * `jupyter_server_config.py`, `ipython_kernel_config.json`, `jupyter_config.py`,
 * `jupyterhub_config.py` (JupyterHub reads it from the folder it starts in)…
 */
const JUPYTER_CONFIG =
  /^(jupyter|jupyterhub|ipython)(_\w+)?_config\.(py|json)$/i;

/** Where IPython keeps startup files of a profile. */
const PROFILE = /^profile_/i;

/**
 * Jinja templates: nbconvert's (`index.html.j2`, and 5.x's `.tpl`), and
 * whatever else renders them (`.jinja`, `.jinja2`).
 */
const JINJA_TEMPLATE = /\.(j2|tpl|jinja2?)$/i;

/**
 * The files that make a folder a git repository or point git elsewhere
 * (git takes a folder with a valid `HEAD`, `objects/` and `refs/` for one,
 * `commondir` standing for the last two), and its configuration (`config`:
 * `core.fsmonitor`, `core.hooksPath`, aliases and filters run commands).
 */
const GIT_FILE = /^(head|config|commondir|gitdir|packed-refs)$/;

/** The hooks git runs from a repository's `hooks/` folder, by name. */
const GIT_HOOK =
  /^(applypatch-msg|pre-applypatch|post-applypatch|pre-commit|pre-merge-commit|prepare-commit-msg|commit-msg|post-commit|pre-rebase|post-checkout|post-merge|pre-push|pre-receive|update|proc-receive|post-receive|post-update|reference-transaction|push-to-checkout|pre-auto-gc|post-rewrite|sendemail-validate|fsmonitor-watchman|p4-changelist|p4-prepare-changelist|p4-post-changelist|p4-pre-submit|post-index-change)$/;

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

/** A rule: the paths it names, and why they act later. */
type Rule = [test: (place: IPlace) => boolean, reason: string];

/** Whether a folder named like `test` is in the path, with the one before it named like `before`. */
function nested(place: IPlace, before: RegExp, test: RegExp): boolean {
  return place.folders.some(
    (f, i) => test.test(f) && before.test(place.folders[i - 1] ?? '')
  );
}

const inFolder = (place: IPlace, test: RegExp) =>
  place.folders.some(f => test.test(f));

/** The name of the folder the file is in ("" in the root). */
const parentOf = (place: IPlace) =>
  place.folders[place.folders.length - 1] ?? '';

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
    // `[tool.uv]` (index-url, extra-index-url, sources), `[[tool.poetry.source]]`,
    // `[[tool.pdm.source]]`, `[tool.pixi]`, `[tool.hatch.envs]`: read by
    // those installers in this folder and below, at any install.
    p => p.name === 'pyproject.toml',
    'installers (uv, Poetry, PDM, pixi, Hatch) read the index and the commands it names at every install in this folder and below, and pip runs the build code it names when this folder is installed'
  ],
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
    // `bin/` in any case; `Scripts/` as Windows' environments spell it, and
    // in any other case (Windows matches names in any case) for what runs
    // from there, so that a user's own `scripts/` folder stays ordinary.
    p =>
      inFolder(p, /^bin$/i) ||
      inFolder(p, /^Scripts$/) ||
      (inFolder(p, /^scripts$/i) && SCRIPTS_COMMAND.test(p.name)),
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
      (/^settings$/i.test(parentOf(p)) &&
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
    p => /^custom\.(js|css)$/.test(p.name) && /^custom$/i.test(parentOf(p)),
    "Jupyter's page loads it at its next start, when it lies in Jupyter's configuration folder"
  ],
  [
    p => inFolder(p, /^(lab|nb)extensions$/i),
    'JupyterLab loads extensions into the page at its next start'
  ],
  [
    // nbconvert looks for a template `<name>/` in the server's working
    // folder (the root: `extra_template_basedirs`) before its own, and in
    // `nbconvert/templates/` of Jupyter's data folders; Jinja2 is not
    // sandboxed there, and a template folder's conf.json names
    // preprocessors, which nbconvert imports.
    p =>
      JINJA_TEMPLATE.test(p.name) ||
      (p.name === 'conf.json' &&
        (p.folders.length === 1 || nested(p, /^nbconvert$/i, /^templates$/i))),
    'the Jupyter server renders nbconvert templates from its folder when a notebook is exported (File > Save and Export As, Download), and a template runs any code there'
  ],
  [
    // Not hidden: a folder with HEAD, objects/ and refs/ is a repository to
    // git run there (or below), which runs the commands its config names.
    p =>
      GIT_FILE.test(p.name) ||
      (/^hooks$/i.test(parentOf(p)) && GIT_HOOK.test(p.name)),
    'git takes a folder with HEAD, objects/ and refs/ for a repository, and runs the commands its config or hooks name (core.fsmonitor at every git status)'
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
    p => p.name === 'setup.cfg',
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
    // importlib.metadata finds distributions in every sys.path folder, the
    // notebook's first, and keeps the first of a name: `%matplotlib inline`
    // imports the backend a `matplotlib_inline-*.dist-info` here names,
    // `python -m pytest` the plugins of any `[pytest11]` here.
    p =>
      inFolder(p, /\.(dist|egg)-info$/i) ||
      p.name.endsWith('.egg-link') ||
      p.name === 'entry_points.txt',
    'Python reads package metadata from the folders it imports from: the entry points it names are imported by the tools that look them up (matplotlib backends, pytest plugins), in place of the installed packages'
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
    // Anywhere else: next to another notebook (each kernel imports from its
    // own folder first), in a package (a package folder wins over a module
    // of the same name), in a namespace package's folder (`google/`,
    // `mpl_toolkits/`, `nvidia/<library>/lib/`), or a module a library
    // imports only when it is there.
    p => PYTHON_CODE.test(p.name),
    'a kernel can import it: Python code here runs next to a notebook, in a package, or as a module or library that another library looks for, in place of the code of that name'
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
 * `helpers/clean.txt`). `notebookPath`: the open notebook's path, whose
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
 * leads): a module next to any of them is next to the notebook. The path
 * is judged as given and as Windows reads it (trailing dots and spaces
 * dropped, an NTFS stream cut off), the stronger verdict kept.
 */
export function runsLaterNear(
  path: string,
  notebookFolders: readonly string[]
): IRunsLater | null {
  const parts = segments(path);
  const asGiven = judge(parts, notebookFolders.map(segments));
  const windowsParts = parts.map(windowsName);
  if (windowsParts.every((part, i) => part === parts[i])) {
    return asGiven;
  }
  const onWindows = judge(
    windowsParts,
    notebookFolders.map(folder => segments(folder).map(windowsName))
  );
  return askRank(onWindows) > askRank(asGiven) ? onWindows : asGiven;
}

/** The verdict for a path's parts, with the notebook's folders' parts. */
function judge(
  parts: string[],
  notebookFolders: string[][]
): IRunsLater | null {
  if (!parts.length) {
    return null;
  }
  const folders = parts.slice(0, -1);
  const place: IPlace = {
    folders,
    name: parts[parts.length - 1].toLowerCase(),
    folder: folders.join('/'),
    notebookFolders: notebookFolders.map(folder => folder.join('/'))
  };
  for (const [rules, always] of [
    [ALWAYS, true],
    [UNLESS_RUN_EVERYTHING, false]
  ] as const) {
    const rule = rules.find(([test]) => test(place));
    if (rule) {
      return { reason: rule[1], always };
    }
  }
  return null;
}

/**
 * A name as Windows resolves it: an NTFS stream cut off (`pip.ini::$DATA`
 * is `pip.ini`; `pip.ini:x` is a stream of it), then trailing dots and
 * spaces dropped (`pip.ini.`, `pip.ini `). `..` and names of dots alone are
 * kept as they are.
 */
function windowsName(part: string): string {
  const name = part.replace(/:.*$/s, '').replace(/[. ]+$/, '');
  return name === '' ? part : name;
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
