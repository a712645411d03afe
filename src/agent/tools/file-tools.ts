/**
 * Files and shell, scoped to the Jupyter server's root directory: the
 * contents API cannot reach outside it, and shell commands run in the
 * notebook's kernel (its working directory and environment), with a timeout.
 */
import { formatOutputs, truncateMiddle } from '../context/observations';
import { defineTool } from './registry';

/** Characters of a file `read_file` returns by default. */
const FILE_BUDGET = 8000;

const OUTSIDE_ROOT =
  'Refused: paths must stay inside the server root (no "..", no drive letter or URL).';
const HOME =
  'Refused: "~" is not expanded here; paths are relative to the server root. ' +
  'Files outside it are not for the agent to read.';
const HIDDEN =
  'Refused: hidden files and folders (names starting with ".", such as .ssh, .env or ' +
  '.git) often hold secrets. Ask the user if one is needed.';

/**
 * A path relative to the server root, or why it is refused. "/a/b" and
 * "./a/b" mean "a/b". Refused: ".." anywhere (with "/" or "\\"), "~",
 * a Windows drive or a URL ("C:\\", "file://"), control
 * characters, and hidden names, which the server hides too unless it was
 * told otherwise (and which are where keys live).
 */
export function rootPath(
  path: string | undefined
): { path: string } | { refused: string } {
  const raw = path ?? '';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    return { refused: OUTSIDE_ROOT };
  }
  if (/^\s*~/.test(raw)) {
    return { refused: HOME };
  }
  if (/^[A-Za-z]:[\\/]|^[A-Za-z][\w+.-]*:\/\//.test(raw)) {
    return { refused: OUTSIDE_ROOT };
  }
  const parts = raw.split(/[\\/]+/).filter(part => part !== '' && part !== '.');
  if (parts.includes('..')) {
    return { refused: OUTSIDE_ROOT };
  }
  if (parts.some(part => part.startsWith('.'))) {
    return { refused: HIDDEN };
  }
  return { path: parts.join('/') };
}

/** `list_files`: a directory listing. */
export const listFiles = defineTool<{ path?: string }>({
  name: 'list_files',
  title: 'List the files',
  kind: 'read',
  description:
    "List files in a directory of the Jupyter server's root (default: the root). " +
    'Paths are relative to that root.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Directory, e.g. "" or "data".' }
    },
    additionalProperties: false
  },
  async execute(args, { notebook }) {
    const checked = rootPath(args.path);
    if ('refused' in checked) {
      return { ok: false, output: checked.refused };
    }
    const { path } = checked;
    const entries = await notebook.listFiles(path);
    if (!entries.length) {
      return { ok: true, output: `${path || '(root)'} is empty.` };
    }
    const lines = entries
      .slice(0, 500)
      .map(
        e =>
          `${e.type === 'directory' ? 'dir ' : 'file'} ${e.path}${e.size ? ` (${e.size} bytes)` : ''}`
      );
    return {
      ok: true,
      output: `${path || '(root)'}:\n${lines.join('\n')}${entries.length > 500 ? `\n… ${entries.length - 500} more` : ''}`
    };
  }
});

/** `read_file`: the head of a text file. */
export const readFile = defineTool<{ path: string; max_chars?: number }>({
  name: 'read_file',
  title: 'Read a file',
  kind: 'read',
  description:
    'Read a text file (CSV, JSON, code…) relative to the server root; long files are ' +
    'cut to their head and tail. For data, prefer loading it with pandas in a cell.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      max_chars: { type: 'integer', minimum: 200, maximum: 50000 }
    },
    required: ['path'],
    additionalProperties: false
  },
  async execute(args, { notebook }) {
    const checked = rootPath(args.path);
    if ('refused' in checked) {
      return { ok: false, output: checked.refused };
    }
    const { path } = checked;
    const text = await notebook.readFile(path);
    return {
      ok: true,
      output: `${path} (${text.length} characters):\n${truncateMiddle(text, args.max_chars ?? FILE_BUDGET)}`
    };
  }
});

/** Python that runs one shell command with a timeout and prints its result. */
export function shellCode(command: string, timeoutS: number): string {
  return [
    'def _notebook_agent_shell(command, timeout):',
    '    import subprocess',
    '    try:',
    '        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)',
    "        print(done.stdout, end='')",
    "        print(done.stderr, end='')",
    "        print(f'[exit code {done.returncode}]')",
    '    except subprocess.TimeoutExpired:',
    "        print(f'[timed out after {timeout} s]')",
    `_notebook_agent_shell(${JSON.stringify(command)}, ${timeoutS})`,
    'del _notebook_agent_shell'
  ].join('\n');
}

/** `run_shell`: a shell command in the kernel's environment. */
export const runShell = defineTool<{ command: string; timeout_s?: number }>({
  name: 'run_shell',
  kind: 'run',
  title: 'Run this shell command',
  reachesOutside: true,
  codeArgument: 'command',
  description:
    "Run a shell command in the notebook kernel's working directory and environment " +
    '(e.g. "ls -la data", "head -5 data.csv", "wc -l *.csv"), with a timeout (default 60 s).',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      timeout_s: { type: 'integer', minimum: 1, maximum: 600 }
    },
    required: ['command'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal }) {
    const timeout = args.timeout_s ?? 60;
    const result = await notebook.executeCode(
      shellCode(args.command, timeout),
      {
        signal,
        silent: true,
        hardTimeoutMs: (timeout + 10) * 1000
      }
    );
    const text = formatOutputs(result.outputs);
    return {
      ok: result.status === 'ok' && /\[exit code 0\]\s*$/.test(text),
      output: text
    };
  }
});
