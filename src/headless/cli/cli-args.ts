/**
 * The command line of `notebook-agent`: parsing and validation, kept apart
 * from running so it can be tested without a server.
 */
import { parseArgs } from 'node:util';

/** Usage, printed for --help and after a mistake. */
export const USAGE = `Usage:
  notebook-agent generate "PROMPT" --out analysis.ipynb [--attach data.csv ...] [--kernel python3] [--force]
  notebook-agent fix NOTEBOOK.ipynb --cell CELL_ID [--attempts 3]
  notebook-agent mcp --server URL   (an MCP stdio server for outside agents: notebook-agent mcp --help)

Model (defaults from the environment):
  --base-url URL     OpenAI-compatible endpoint ($OPENAI_BASE_URL, else https://api.openai.com/v1)
  --model NAME       model name ($NOTEBOOK_AGENT_MODEL)
  --api-key KEY      key ($OPENAI_API_KEY; prefer the environment: arguments show in ps)
Jupyter server (default: a private one, started for the run and stopped after,
serving the output notebook's directory):
  --server URL       an existing Jupyter server; paths are then relative to its root
  --token TOKEN      its token ($JUPYTER_TOKEN; prefer the environment)
  --connect-timeout S  how long the model endpoint and --server may take to
                     answer before the run gives up, seconds (default 10)
Run:
  --max-steps N      model calls per turn (default 30)
  --timeout S        hard timeout of one cell, seconds (default 600)
  --no-rules         leave out the project rules (the AGENTS.md files from the
                     notebook's folder up to the server root)`;

/** A parsed command. */
export type CliCommand =
  | {
      command: 'generate';
      prompt: string;
      out: string;
      attach: string[];
      kernel?: string;
      force: boolean;
      common: ICommonOptions;
    }
  | {
      command: 'fix';
      notebook: string;
      cell: string;
      attempts: number;
      common: ICommonOptions;
    }
  | { command: 'help' };

/** Options of every command. */
export interface ICommonOptions {
  baseUrl: string;
  model: string;
  apiKey: string;
  server?: string;
  token: string;
  /** How long a server may take to answer the first request, ms. */
  connectTimeoutMs: number;
  maxSteps: number;
  timeoutSeconds: number;
  /** Whether the project rules (AGENTS.md) go into the system prompt. */
  rules: boolean;
}

/** A mistake on the command line; its message says what to change. */
export class CliUsageError extends Error {}

/** Parse `argv` (without node and the script); `env` supplies the defaults. */
export function parseCli(
  argv: string[],
  env: Record<string, string | undefined> = {}
): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string', short: 'o' },
        attach: { type: 'string', multiple: true },
        kernel: { type: 'string' },
        force: { type: 'boolean' },
        cell: { type: 'string' },
        attempts: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key': { type: 'string' },
        server: { type: 'string' },
        token: { type: 'string' },
        'connect-timeout': { type: 'string' },
        'max-steps': { type: 'string' },
        timeout: { type: 'string' },
        'no-rules': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    });
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, subject] = positionals;
  if (values.help || !command) {
    return { command: 'help' };
  }
  const common: ICommonOptions = {
    baseUrl: httpUrl(
      values['base-url'] ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      values['base-url'] !== undefined ? '--base-url' : '$OPENAI_BASE_URL'
    ),
    model: values.model ?? env.NOTEBOOK_AGENT_MODEL ?? '',
    apiKey: values['api-key'] ?? env.OPENAI_API_KEY ?? '',
    server:
      values.server === undefined
        ? undefined
        : httpUrl(values.server, '--server'),
    token: values.token ?? env.JUPYTER_TOKEN ?? '',
    connectTimeoutMs:
      positiveInt(values['connect-timeout'], 10, '--connect-timeout') * 1000,
    maxSteps: positiveInt(values['max-steps'], 30, '--max-steps'),
    timeoutSeconds: positiveInt(values.timeout, 600, '--timeout'),
    rules: !values['no-rules']
  };
  if (!common.model) {
    throw new CliUsageError(
      'No model: pass --model NAME or set NOTEBOOK_AGENT_MODEL.'
    );
  }
  if (positionals.length > 2) {
    throw new CliUsageError(
      `Unexpected arguments: ${positionals.slice(2).join(' ')} (quote the prompt).`
    );
  }
  if (command === 'generate') {
    if (!subject?.trim()) {
      throw new CliUsageError(
        'generate needs a prompt: notebook-agent generate "…" --out x.ipynb'
      );
    }
    if (!values.out?.endsWith('.ipynb')) {
      throw new CliUsageError('generate needs --out NAME.ipynb.');
    }
    return {
      command,
      prompt: subject,
      out: values.out,
      attach: values.attach ?? [],
      kernel: values.kernel,
      force: values.force ?? false,
      common
    };
  }
  if (command === 'fix') {
    if (!subject?.endsWith('.ipynb')) {
      throw new CliUsageError(
        'fix needs a notebook: notebook-agent fix x.ipynb --cell ID'
      );
    }
    if (!values.cell) {
      throw new CliUsageError(
        "fix needs --cell CELL_ID (the cell's id in the notebook file)."
      );
    }
    return {
      command,
      notebook: subject,
      cell: values.cell,
      attempts: positiveInt(values.attempts, 3, '--attempts'),
      common
    };
  }
  throw new CliUsageError(`Unknown command "${command}": use generate or fix.`);
}

/** `url` when it is an http(s) URL; otherwise a usage error naming it. */
function httpUrl(url: string, name: string): string {
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    // Not a URL at all: said below.
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new CliUsageError(
      `${name} must be an http:// or https:// URL, not "${url}".`
    );
  }
  return url;
}

function positiveInt(
  value: string | undefined,
  fallback: number,
  name: string
): number {
  if (value === undefined) {
    return fallback;
  }
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new CliUsageError(
      `${name} must be a positive integer, not "${value}".`
    );
  }
  return number;
}
