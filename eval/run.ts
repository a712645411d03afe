/**
 * Run an evaluation task set headless against a model endpoint and write
 * the results table (results.json, results.md, and the executed notebooks).
 *
 *   npx tsx eval/run.ts --base-url http://127.0.0.1:8000/v1 --model NAME \
 *     [--tasks eval/tasks/builtin.json | set.jsonl [--answers labels.jsonl]] \
 *     [--only id1,id2 | --limit N] [--concurrency 2] [--timeout 300] \
 *     [--max-steps 20] [--context 32768] [--protocol native|text] \
 *     [--api-key-env OPENAI_API_KEY] [--data-dir DIR] [--prices prices.json] \
 *     [--server URL [--connect-timeout S]] [--out eval/results/<timestamp>]
 *     [--profile auto|small|standard] [--agent agent|plain] [--runs N]
 *     [--first-call required|auto]
 *     [--set qa|followup|fix|generate] [--holdout]
 *
 * --profile: the prompt profile (auto: from the model's name, as the
 * sidebar chooses it). --agent plain: the one-tool interpreter loop
 * (src/plain-loop.ts), the comparison for small models. --runs N: the set N
 * times; per task the median (src/repeat.ts); each run in run-K/.
 *
 * --server: run the tasks' notebooks and kernels on that Jupyter server
 * (local or remote; its token from $JUPYTER_TOKEN, never the command line,
 * where `ps` shows it), each task in notebook-agent-eval/<run>/<task>/.
 *
 * --set: which entry point is measured (default qa, the Q&A set below);
 * followup, fix and generate run their sets (eval/tasks/<set>.json) through
 * the product's AgentSession (src/sets/). --holdout: the set's held-out
 * part (eval/tasks/holdout.json, <set>-holdout.json). --tasks FILE names a
 * set file instead; its "kind" says which entry point it measures.
 *
 * Defaults: the built-in set, OPENAI_BASE_URL / NOTEBOOK_AGENT_MODEL from
 * the environment. The exit status is 0 when the run finished (whatever the
 * score), 1 when the harness itself failed.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { capabilitiesFor } from '../src/agent/model/capabilities';
import { OpenAIChatClient } from '../src/agent/model/openai-client';
import { loadTaskSet } from './src/load';
import {
  DEFAULT_PRICES,
  priceOf,
  type IPrice
} from '../src/agent/model/prices';
import { buildReport, perCell, writeReport } from './src/report';
import { repeatMarkdown, summariseRuns } from './src/repeat';
import { runTaskSet, type ITaskResult } from './src/runner';
import { writeFile } from 'node:fs/promises';
import { runSetCli } from './src/sets/cli';
import { isSetKind, setFile, setKindOf } from './src/sets/load';

// @jupyterlab/services logs every kernel status change at debug level.
console.debug = () => undefined;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tasks: { type: 'string' },
      set: { type: 'string', default: 'qa' },
      holdout: { type: 'boolean', default: false },
      answers: { type: 'string' },
      'base-url': { type: 'string', default: process.env.OPENAI_BASE_URL },
      model: {
        type: 'string',
        default: process.env.NOTEBOOK_AGENT_MODEL ?? ''
      },
      'api-key-env': { type: 'string', default: 'OPENAI_API_KEY' },
      only: { type: 'string' },
      limit: { type: 'string' },
      concurrency: { type: 'string', default: '2' },
      timeout: { type: 'string', default: '300' },
      'max-steps': { type: 'string', default: '20' },
      context: { type: 'string' },
      protocol: { type: 'string', default: 'auto' },
      'data-dir': { type: 'string' },
      prices: { type: 'string' },
      server: { type: 'string' },
      'connect-timeout': { type: 'string', default: '10' },
      out: { type: 'string' },
      profile: { type: 'string', default: 'auto' },
      agent: { type: 'string', default: 'agent' },
      runs: { type: 'string', default: '1' },
      'first-call': { type: 'string', default: 'required' },
      'server-label': { type: 'string' }
    }
  });
  const baseUrl = values['base-url'];
  if (!baseUrl) {
    throw new Error('give --base-url (or set OPENAI_BASE_URL)');
  }
  if (!isSetKind(values.set)) {
    throw new Error('--set must be qa, followup, fix or generate');
  }
  if (values.tasks && values.holdout) {
    throw new Error('give --tasks FILE or --holdout, not both');
  }
  values.tasks ??= setFile(values.set, values.holdout!);
  const kind = await setKindOf(values.tasks);
  if (values.set !== 'qa' && kind !== values.set) {
    throw new Error(
      `--set ${values.set}, but ${values.tasks} is a ${kind} set`
    );
  }
  if (kind !== 'qa') {
    const model = values.model ?? '';
    await runSetCli(
      {
        file: values.tasks,
        endpoint: {
          baseUrl,
          model,
          apiKey: process.env[values['api-key-env']!] ?? ''
        },
        dataDir: values['data-dir'],
        only: values.only,
        limit: values.limit,
        runs: Math.max(1, Number(values.runs) || 1),
        concurrency: Number(values.concurrency),
        timeoutS: Number(values.timeout),
        maxSteps: Number(values['max-steps']),
        server: values.server
          ? {
              url: values.server,
              token: process.env.JUPYTER_TOKEN ?? '',
              connectTimeoutMs: Number(values['connect-timeout']) * 1000
            }
          : undefined,
        out: resolve(
          values.out ??
            join(
              __dirname,
              'results',
              new Date().toISOString().replace(/[:.]/g, '-')
            )
        ),
        label:
          values['server-label'] ?? `${model || '(default)'} at ${baseUrl}`,
        qaOnly: [
          values.protocol !== 'auto' ? '--protocol' : '',
          values.profile !== 'auto' ? '--profile' : '',
          values.agent !== 'agent' ? '--agent' : '',
          values.context ? '--context' : '',
          values.answers ? '--answers' : '',
          values.prices ? '--prices' : '',
          values['first-call'] !== 'required' ? '--first-call' : ''
        ].filter(Boolean)
      },
      say
    );
    return;
  }
  const protocol =
    values.protocol === 'text' || values.protocol === 'native'
      ? values.protocol
      : capabilitiesFor(values.model ?? '').tools;
  const profile =
    values.profile === 'small' || values.profile === 'standard'
      ? values.profile
      : capabilitiesFor(values.model ?? '').profile;
  const agent = values.agent === 'plain' ? 'plain' : 'agent';
  const runs = Math.max(1, Number(values.runs) || 1);
  const set = await loadTaskSet(values.tasks!, {
    answersFile: values.answers,
    dataDir: values['data-dir']
  });
  if (values.only) {
    const keep = new Set(values.only.split(','));
    set.tasks = set.tasks.filter(t => keep.has(t.id));
  }
  if (values.limit) {
    set.tasks = set.tasks.slice(0, Number(values.limit));
  }
  const prices: Record<string, IPrice> = values.prices
    ? JSON.parse(await readFile(values.prices, 'utf8'))
    : DEFAULT_PRICES;
  const model = values.model ?? '';
  const concurrency = Number(values.concurrency);
  const timeoutS = Number(values.timeout);
  const maxSteps = Number(values['max-steps']);
  const startedAt = new Date().toISOString();
  const out = resolve(
    values.out ?? join(__dirname, 'results', startedAt.replace(/[:.]/g, '-'))
  );
  const server = values.server
    ? {
        url: values.server,
        token: process.env.JUPYTER_TOKEN ?? '',
        connectTimeoutMs: Number(values['connect-timeout']) * 1000
      }
    : undefined;
  say(
    `${set.tasks.length} tasks from ${set.name} (data in ${set.dataDir}); model ${model || '(default)'} at ${baseUrl}` +
      (server ? `; Jupyter server ${server.url}` : '')
  );
  const label =
    values['server-label'] ?? `${model || '(default)'} at ${baseUrl}`;
  say(
    agent === 'plain'
      ? `agent: the plain one-tool loop (${protocol})`
      : `agent: Notebook Agent, ${profile} profile, ${protocol} protocol`
  );
  const all: ITaskResult[][] = [];
  for (let run = 1; run <= runs; run++) {
    const dir = runs > 1 ? join(out, `run-${run}`) : out;
    const started = Date.now();
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    if (runs > 1) {
      say(`run ${run} of ${runs}`);
    }
    const results = await runTaskSet(set, {
      model: () =>
        new OpenAIChatClient({
          baseURL: baseUrl,
          model,
          apiKey: process.env[values['api-key-env']!] ?? ''
        }),
      concurrency,
      timeoutS,
      maxSteps,
      contextTokens: values.context ? Number(values.context) : undefined,
      protocol,
      profile,
      agent,
      forceFirstCall: values['first-call'] !== 'auto',
      server,
      runId: stamp,
      notebooksDir: join(dir, 'notebooks'),
      onResult: r =>
        say(
          `${r.success ? 'PASS' : 'FAIL'} ${r.id} (${r.end}, ${r.steps} steps, ${r.cellsRun} cells run, ${r.wallS.toFixed(1)} s): ${r.detail}`
        )
    });
    all.push(results);
    const report = buildReport(
      {
        taskSet: set.name,
        model,
        baseUrl,
        protocol: `${protocol}; ${agent === 'plain' ? 'plain loop' : `${profile} profile`}`,
        concurrency,
        timeoutS,
        maxSteps,
        startedAt,
        wallS: (Date.now() - started) / 1000,
        price: priceOf(model, prices),
        jupyterServer: server?.url
      },
      results
    );
    const files = await writeReport(dir, report);
    say(
      `success ${report.summary.succeeded}/${report.summary.tasks}; ` +
        `model calls per executed cell ${perCell(report.summary.callsPerCell)}; ` +
        `wrote ${files.markdown} and ${files.json}`
    );
  }
  if (runs > 1) {
    const summary = summariseRuns(all);
    const title =
      `${set.name}: ${label}; ` +
      `${agent === 'plain' ? 'plain one-tool loop' : `Notebook Agent (${profile} profile)`}, ` +
      `${protocol} protocol; ${startedAt.slice(0, 10)}`;
    await writeFile(join(out, 'results.md'), repeatMarkdown(title, summary));
    await writeFile(
      join(out, 'results.json'),
      JSON.stringify({ label, profile, agent, protocol, summary }, null, 2)
    );
    say(
      `median of ${runs} runs: ${summary.succeeded}/${summary.tasks.length}; wrote ${join(out, 'results.md')}`
    );
  }
}

main().then(
  () => process.exit(0),
  error => {
    console.error(error);
    process.exit(1);
  }
);
