/**
 * The walk: the product's user paths, in order, as a user meets them with a
 * real small model (playwright.walk.config.js says how to run it):
 *
 *   1. ask      — in a new notebook: load sales.csv, revenue per region
 *   2. followup — the same chat: which region has the highest revenue
 *   3. fix      — a broken cell, run; right-click it → Fix This Cell; Accept
 *   4. generate — palette → Generate notebook (a new notebook)
 *   5. reload   — the agent runs a slow cell; the page is reloaded mid-run
 *
 * Each step ends with a screenshot (WALK_OUT/0N-<step>.png: 01-ask.png,
 * 02-followup.png, 03-fix.png (and 03-fix-review.png), 04-generate.png,
 * 05-reload.png (and 05-before-reload.png)) and one JSON
 * line in WALK_OUT/walk.jsonl: the answer, the cells and their outputs, the
 * approvals given, the timings, and a verdict on the step's expectation.
 * The model's quality is recorded, never asserted: every step runs. The
 * test fails only for the harness (the page or the sidebar did not come
 * up: at once; a step that threw: at the end, after all five ran).
 *
 * The user approves what the agent asks to run (the default approval mode),
 * and otherwise leaves every setting as it is.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { APIRequestContext, Locator } from '@playwright/test';
import { scriptAt } from '../tests/scripted-model';
import { SIDEBAR } from '../tests/sidebar';
import { openEmptyNotebook } from '../tests/notebook-files';

test.use({ kernels: null, sessions: null });

const OUT = process.env.WALK_OUT || '/tmp/walk';
const ROOT = process.env.WALK_ROOT ?? '';
const BASE_URL = process.env.WALK_RESOLVED_BASE_URL ?? '';
const MODEL = process.env.WALK_RESOLVED_MODEL ?? '';
/** The scripted model server's root in the harness check (WALK_SCRIPTED=1). */
const SCRIPTED = process.env.WALK_SCRIPTED_ROOT ?? '';
const BUDGET_S = Number(process.env.WALK_BUDGET_MIN ?? 15) * 60;
const RUN_ID = new Date().toISOString();

// ---------------------------------------------------------------- the data

const REGIONS = ['North', 'South', 'East', 'West'];
/** How often each region comes up: distinct totals, one clearly highest. */
const REGION_WEIGHTS = [0.36, 0.27, 0.21, 0.16];
const PRODUCTS: ReadonlyArray<[string, number]> = [
  ['Widget', 19.99],
  ['Gadget', 34.5],
  ['Gizmo', 12.75],
  ['Doohickey', 7.25],
  ['Sprocket', 49.0],
  ['Thingamajig', 24.99]
];

interface ISale {
  order_id: number;
  date: string;
  region: string;
  product: string;
  units: number;
  /** In cents: sums stay exact. */
  cents: number;
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 200 orders of the first half of 2024, always the same. */
function sales(): ISale[] {
  const next = random(20240607);
  const start = Date.UTC(2024, 0, 1);
  const rows = Array.from({ length: 200 }, () => {
    const day = Math.floor(next() * 182);
    let pick = next();
    let region = REGIONS[REGIONS.length - 1];
    for (let i = 0; i < REGIONS.length; i++) {
      if (pick < REGION_WEIGHTS[i]) {
        region = REGIONS[i];
        break;
      }
      pick -= REGION_WEIGHTS[i];
    }
    const [product, price] = PRODUCTS[Math.floor(next() * PRODUCTS.length)];
    return {
      order_id: 0,
      date: new Date(start + day * 86400000).toISOString().slice(0, 10),
      region,
      product,
      units: 1 + Math.floor(next() * 12),
      cents: Math.round(price * 100)
    };
  });
  rows.sort((a, b) => a.date.localeCompare(b.date));
  rows.forEach((row, i) => (row.order_id = 10001 + i));
  return rows;
}

const SALES = sales();
const CSV = [
  'order_id,date,region,product,units,unit_price',
  ...SALES.map(
    s =>
      `${s.order_id},${s.date},${s.region},${s.product},${s.units},${(s.cents / 100).toFixed(2)}`
  )
].join('\n');

/** Revenue (units × unit_price) summed by `key`, in currency units, largest first. */
function revenueBy(key: (s: ISale) => string): Array<[string, number]> {
  const cents = new Map<string, number>();
  for (const s of SALES) {
    cents.set(key(s), (cents.get(key(s)) ?? 0) + s.units * s.cents);
  }
  return [...cents.entries()]
    .map(([k, c]): [string, number] => [k, c / 100])
    .sort((a, b) => b[1] - a[1]);
}

const BY_REGION = revenueBy(s => s.region);
const BY_MONTH = revenueBy(s => s.date.slice(0, 7)).sort((a, b) =>
  a[0].localeCompare(b[0])
);
const BY_PRODUCT = revenueBy(s => s.product);
const TOP_REGION = BY_REGION[0][0];

// ------------------------------------------------------------ the records

interface IOutput {
  type: string;
  text: string;
  images?: string[];
}

interface ICell {
  index: number;
  id: string;
  type: string;
  source: string;
  execution_count: number | null;
  outputs: IOutput[];
}

interface IItem {
  kind: string;
  text: string;
  tool?: string;
  status?: string;
}

interface IApproval {
  at_s: number;
  title: string;
  code: string | null;
}

interface IRun {
  outcome: string;
  seconds: number;
  approvals: IApproval[];
  /** When the transcript changed: seconds since the run began, and its newest entry. */
  timeline: Array<{ t_s: number; kind: string; text: string }>;
}

type StepRecord = Record<string, unknown> & {
  verdict?: 'pass' | 'fail';
  why?: string;
  screenshot?: string;
};

/** A problem of the harness: the walk cannot go on. */
class HarnessError extends Error {}

function harness(condition: unknown, message: string): asserts condition {
  if (!condition) {
    throw new HarnessError(message);
  }
}

function record(line: Record<string, unknown>): void {
  fs.appendFileSync(
    path.join(OUT, 'walk.jsonl'),
    JSON.stringify({ run_id: RUN_ID, ...line }) + '\n'
  );
}

const clip = (text: string, max = 3000) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

/** The numbers a text states ("12,345.67" → 12345.67). */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)]
    .map(match => Number(match[0].replace(/,/g, '')))
    .filter(Number.isFinite);
}

/** Whether `numbers` hold `value`, as written to cents, rounded, or to 0.05 %. */
function states(numbers: number[], value: number): boolean {
  const tolerance = Math.max(0.51, Math.abs(value) * 0.0005);
  return numbers.some(n => Math.abs(n - value) <= tolerance);
}

// ----------------------------------------------------------- page helpers

const sidebar = (page: IJupyterLabPageFixture) => page.locator(`#${SIDEBAR}`);

const visible = (locator: Locator) => locator.isVisible().catch(() => false);

/** Open the sidebar (the public command, idempotent); resolves with the prompt box. */
async function openSidebar(page: IJupyterLabPageFixture) {
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  for (let i = 0; i < 3 && !(await visible(prompt)); i++) {
    await page
      .evaluate(() => window.jupyterapp.commands.execute('notebook-agent:open'))
      .catch(() => undefined);
    await prompt.waitFor({ state: 'visible', timeout: 20000 }).catch(() => {});
  }
  harness(await visible(prompt), 'the Notebook Agent sidebar did not open');
  return prompt;
}

/** The execution state of the kernel of the notebook at `name` (server side). */
function kernelState(page: IJupyterLabPageFixture, name: string) {
  return page.evaluate(async name => {
    const sessions = (await (await fetch('/api/sessions')).json()) as Array<{
      path: string;
      kernel: { execution_state: string } | null;
    }>;
    const own = sessions.find(
      s => s.path === name || s.path.endsWith(`/${name}`)
    );
    return own?.kernel?.execution_state ?? 'none';
  }, name);
}

/**
 * A new notebook at the root, next to sales.csv, open with its kernel up.
 * (Uploaded, then opened: Galata's createNew renames "Untitled.ipynb" while
 * its session starts, and a reload would not find that kernel by path.)
 */
async function newNotebook(page: IJupyterLabPageFixture, name: string) {
  await openEmptyNotebook(page, name);
  await page.notebook.activate(name);
  await expect
    .poll(() => kernelState(page, name), { timeout: 90000 })
    .toBe('idle')
    .catch(() => {
      throw new HarnessError(`the kernel of ${name} did not start`);
    });
}

/** Make the notebook at `name` the current widget (true when it is open). */
function activate(page: IJupyterLabPageFixture, name: string) {
  return page.evaluate(name => {
    const app = window.jupyterapp;
    for (const widget of Array.from(app.shell.widgets('main'))) {
      const context = (widget as unknown as { context?: { path: string } })
        .context;
      if (context?.path === name) {
        app.shell.activateById(widget.id);
        return true;
      }
    }
    return false;
  }, name);
}

/** The cells of the notebook at `name` (else of the current one), with their outputs. */
async function cellsOf(
  page: IJupyterLabPageFixture,
  name?: string
): Promise<{ path: string; cells: ICell[] }> {
  const found = await page.evaluate(name => {
    interface IJsonOutput {
      output_type: string;
      text?: string | string[];
      ename?: string;
      evalue?: string;
      data?: Record<string, string | string[]>;
    }
    interface IPanel {
      context?: { path: string };
      content?: {
        model?: {
          cells: {
            length: number;
            get(i: number): {
              id: string;
              type: string;
              sharedModel: { getSource(): string };
              toJSON(): {
                execution_count?: number | null;
                outputs?: IJsonOutput[];
              };
            };
          };
        };
      };
    }
    const app = window.jupyterapp;
    const widgets = Array.from(app.shell.widgets('main')) as unknown[];
    const panel = (
      name
        ? widgets.find(w => (w as IPanel).context?.path === name)
        : app.shell.currentWidget
    ) as IPanel | undefined;
    const model = panel?.content?.model;
    if (!model) {
      return { path: panel?.context?.path ?? '', cells: [] };
    }
    const join = (value: string | string[] | undefined) =>
      Array.isArray(value) ? value.join('') : (value ?? '');
    const cells = [];
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
      const json = cell.toJSON();
      const outputs = (json.outputs ?? []).map(o => {
        if (o.output_type === 'stream') {
          return { type: 'stream', text: join(o.text) };
        }
        if (o.output_type === 'error') {
          return { type: 'error', text: `${o.ename}: ${o.evalue}` };
        }
        const data = o.data ?? {};
        return {
          type: o.output_type,
          text: join(data['text/plain']),
          images: Object.keys(data).filter(k => k.startsWith('image/'))
        };
      });
      cells.push({
        index: i,
        id: cell.id,
        type: cell.type,
        source: cell.sharedModel.getSource(),
        execution_count: json.execution_count ?? null,
        outputs
      });
    }
    return { path: panel?.context?.path ?? '', cells };
  }, name);
  for (const cell of found.cells) {
    cell.source = clip(cell.source);
    for (const output of cell.outputs) {
      output.text = clip(output.text);
    }
  }
  return found;
}

const outputText = (cells: ICell[]) =>
  cells.flatMap(c => c.outputs.map(o => o.text)).join('\n');
const hasError = (cell: ICell | undefined) =>
  !!cell?.outputs.some(o => o.type === 'error');

/** The sidebar's entries, in order: messages, tool cards, notes, errors, reviews. */
async function transcript(page: IJupyterLabPageFixture): Promise<IItem[]> {
  const items = await page.evaluate(id => {
    const root = document.getElementById(id);
    if (!root) {
      return [];
    }
    // A guess the compute check sent back is folded away (a closed
    // <details>): its own kind, with its folded text, never the answer.
    const kinds: Array<[string, string]> = [
      ['jp-AgentSidebar-guess', 'guess'],
      ['jp-AgentSidebar-user', 'user'],
      ['jp-AgentSidebar-assistant', 'assistant'],
      ['jp-AgentSidebar-tool', 'tool'],
      ['jp-AgentSidebar-approval', 'approval'],
      ['jp-AgentSidebar-review', 'review'],
      ['jp-AgentSidebar-error', 'error'],
      ['jp-AgentSidebar-plan', 'plan'],
      ['jp-AgentSidebar-note', 'note']
    ];
    const selector = kinds.map(([name]) => `.${name}`).join(', ');
    const found = [];
    for (const node of Array.from(root.querySelectorAll(selector))) {
      const outer = node.parentElement?.closest(selector);
      if (outer && root.contains(outer)) {
        continue;
      }
      const kind = kinds.find(([name]) => node.classList.contains(name))![1];
      found.push({
        kind,
        text: (kind === 'guess'
          ? (node.textContent ?? '')
          : (node as HTMLElement).innerText
        ).trim(),
        tool: node.getAttribute('data-tool') ?? undefined,
        status: node.getAttribute('data-status') ?? undefined
      });
    }
    return found;
  }, SIDEBAR);
  return items.map(item => ({ ...item, text: clip(item.text, 4000) }));
}

/** The entries after the last user line that `isMine` accepts (all, if none). */
function afterUser(items: IItem[], isMine: (text: string) => boolean) {
  let at = -1;
  items.forEach((item, i) => {
    if (item.kind === 'user' && isMine(item.text)) {
      at = i;
    }
  });
  return items.slice(at + 1);
}

const answerOf = (items: IItem[]) =>
  items
    .filter(item => item.kind === 'assistant')
    .map(item => item.text)
    .join('\n\n');

/**
 * Drive a run to its end as a user would: approve what the agent asks to
 * run, wait; at `deadline` press Stop. `until` ends the wait early (the
 * run goes on).
 */
async function drive(
  page: IJupyterLabPageFixture,
  deadline: number,
  options: {
    startWithinMs?: number;
    settleMs?: number;
    until?: () => Promise<boolean>;
  } = {}
): Promise<IRun> {
  const began = Date.now();
  const seconds = () => Math.round((Date.now() - began) / 100) / 10;
  const bar = sidebar(page);
  const stop = bar.getByRole('button', { name: 'Stop', exact: true }).first();
  const send = bar.getByRole('button', { name: 'Send', exact: true });
  const card = bar.locator('.jp-AgentSidebar-approval').first();
  const baseline = (await transcript(page)).length;
  const run: IRun = { outcome: '', seconds: 0, approvals: [], timeline: [] };
  let seen = baseline;
  let started = false;
  let quietSince = 0;
  let lastLook = 0;
  const finish = (outcome: string) => {
    run.outcome = outcome;
    run.seconds = seconds();
    return run;
  };
  const accept = card.locator('.jp-AgentSidebar-actions button.jp-mod-accept');
  for (;;) {
    if (Date.now() <= deadline && (await visible(accept))) {
      started = true;
      quietSince = 0;
      const title = ((await card.locator('strong').first().textContent()) ?? '')
        .trim()
        .slice(0, 300);
      const code = await card
        .locator('textarea')
        .first()
        .inputValue({ timeout: 1000 })
        .catch(() => null);
      run.approvals.push({ at_s: seconds(), title, code });
      await accept
        .first()
        .click({ timeout: 5000 })
        .catch(() => undefined);
      await card
        .waitFor({ state: 'detached', timeout: 5000 })
        .catch(() => undefined);
      continue;
    }
    if (Date.now() - lastLook > 1000) {
      lastLook = Date.now();
      const items = await transcript(page);
      if (items.length !== seen && items.length > 0) {
        seen = items.length;
        const newest = items[items.length - 1];
        run.timeline.push({
          t_s: seconds(),
          kind: newest?.kind ?? '',
          text: (newest?.text ?? '').slice(0, 160)
        });
      }
      // The user's line and something more: a run so quick that Stop was never seen.
      if (items.length >= baseline + 2) {
        started = true;
      }
    }
    const running = await visible(stop);
    if (running) {
      started = true;
      quietSince = 0;
    }
    if (options.until && (await options.until())) {
      return finish('condition met (the run goes on)');
    }
    if (!running && (await visible(send))) {
      if (started || Date.now() - began > (options.startWithinMs ?? 30000)) {
        quietSince ||= Date.now();
        if (Date.now() - quietSince >= (options.settleMs ?? 2000)) {
          return finish(started ? 'ended' : 'did not start');
        }
      }
    }
    if (Date.now() > deadline) {
      if (running) {
        await stop.click({ timeout: 5000 }).catch(() => undefined);
        await send
          .waitFor({ state: 'visible', timeout: 30000 })
          .catch(() => undefined);
      }
      return finish(
        running ? 'stopped by the walk at its deadline' : 'deadline passed'
      );
    }
    await page.waitForTimeout(500);
  }
}

/** Ask in the sidebar: type `text`, press Enter. */
async function ask(page: IJupyterLabPageFixture, text: string) {
  const prompt = await openSidebar(page);
  await prompt.fill(text);
  await prompt.press('Enter');
}

/** Run the cell `id` of the current notebook as the user does (Ctrl+Enter); resolves with it. */
async function runCell(
  page: IJupyterLabPageFixture,
  name: string,
  id: string
): Promise<ICell | undefined> {
  await page.evaluate(async id => {
    const app = window.jupyterapp;
    const panel = app.shell.currentWidget as unknown as {
      content: {
        widgets: Array<{ model: { id: string } }>;
        activeCellIndex: number;
        deselectAll(): void;
      };
    };
    panel.content.activeCellIndex = panel.content.widgets.findIndex(
      cell => cell.model.id === id
    );
    panel.content.deselectAll();
    await app.commands.execute('notebook:run-cell');
  }, id);
  await expect
    .poll(
      async () => {
        const cell = (await cellsOf(page, name)).cells.find(c => c.id === id);
        return (
          cell?.execution_count !== null &&
          (await kernelState(page, name)) === 'idle'
        );
      },
      { timeout: 90000 }
    )
    .toBe(true)
    .catch(() => undefined);
  return (await cellsOf(page, name)).cells.find(c => c.id === id);
}

async function screenshot(page: IJupyterLabPageFixture, file: string) {
  await page
    .screenshot({ path: path.join(OUT, file), fullPage: true })
    .catch(() => undefined);
  return file;
}

/** Load a script into the scripted model server (the harness check only). */
async function scriptFor(request: APIRequestContext, turns: unknown[]) {
  if (SCRIPTED) {
    await scriptAt(SCRIPTED, request, turns);
  }
}

// ---------------------------------------------------------------- the walk

const ANALYSIS = 'walk-analysis.ipynb';
const RELOAD = 'walk-reload.ipynb';
const ASK =
  'Load sales.csv and tell me the total revenue (units × unit_price) per region.';
const FOLLOW_UP = 'Which of those regions has the highest revenue?';
const GENERATE =
  'Analyse sales.csv: revenue by region and by month, a bar chart of the top products by revenue, and a short summary.';
const SLOW = "Run `import time; time.sleep(40); print('done')` in a new cell";
const LOAD = "import pandas as pd\ndf = pd.read_csv('sales.csv')";
const BROKEN = "df.groupby('regoin')['units'].sum()";

/** Each step's longest wait (s), and what the steps after it are kept (s). */
const STEPS = {
  ask: { cap: 240, reserve: 0 },
  followup: { cap: 180, reserve: 60 },
  fix: { cap: 240, reserve: 90 },
  generate: { cap: 600, reserve: 150 },
  reload: { cap: 240, reserve: 120 }
};
type StepName = keyof typeof STEPS;
const ORDER: StepName[] = ['ask', 'followup', 'fix', 'generate', 'reload'];

test('the walk: ask, follow up, Fix This Cell, Generate notebook, reload mid-run', async ({
  page,
  request
}) => {
  fs.mkdirSync(OUT, { recursive: true });
  harness(
    ROOT,
    'WALK_ROOT is not set: run the walk with -c playwright.walk.config.js'
  );
  fs.writeFileSync(path.join(ROOT, 'sales.csv'), CSV + '\n');
  harness(
    await page.contents.fileExists('sales.csv'),
    `the Jupyter server does not serve ${ROOT}/sales.csv`
  );
  const walkStart = Date.now();
  const problems: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', message => {
    if (message.type() === 'error') {
      consoleErrors.push(message.text().slice(0, 500));
    }
  });
  page.on('pageerror', error =>
    consoleErrors.push(String(error).slice(0, 500))
  );
  // The reload's "Leave site?" question: leave.
  page.on('dialog', dialog => void dialog.accept().catch(() => undefined));

  record({
    step: 0,
    name: 'start',
    mode: SCRIPTED ? 'scripted model server (harness check)' : 'model',
    base_url: BASE_URL,
    model: MODEL,
    root: ROOT,
    out: OUT,
    budget_s: BUDGET_S,
    data: {
      rows: SALES.length,
      revenue_by_region: Object.fromEntries(BY_REGION),
      top_region: TOP_REGION,
      revenue_by_month: Object.fromEntries(BY_MONTH),
      top_products: BY_PRODUCT.slice(0, 5)
    }
  });

  /** When step `name` must end: its cap, or sooner, to keep the later steps' time. */
  const deadlineOf = (name: StepName) => {
    const later = ORDER.slice(ORDER.indexOf(name) + 1).reduce(
      (sum, next) => sum + STEPS[next].reserve,
      0
    );
    const byBudget = walkStart + (BUDGET_S - later) * 1000;
    return Math.max(
      Math.min(Date.now() + STEPS[name].cap * 1000, byBudget),
      Date.now() + 60000
    );
  };

  /** Run one step: record it whatever happens; only a harness problem stops the walk. */
  const step = async (
    n: number,
    name: StepName,
    body: (rec: StepRecord, deadline: number) => Promise<void>
  ) => {
    const rec: StepRecord = {
      step: n,
      name,
      started_at: new Date().toISOString()
    };
    const began = Date.now();
    const errorsBefore = consoleErrors.length;
    const deadline = deadlineOf(name);
    rec.deadline_s = Math.round((deadline - began) / 1000);
    await test.step(`${n}. ${name}`, async () => {
      try {
        await body(rec, deadline);
      } catch (error) {
        if (error instanceof HarnessError) {
          rec.harness_error = error.message;
          throw error;
        }
        rec.error = clip(String(error), 2000);
        rec.verdict = 'fail';
        rec.why = `the step threw: ${String(error).split('\n')[0]}`;
        problems.push(`${n}. ${name}: ${String(error).split('\n')[0]}`);
      } finally {
        rec.duration_s = Math.round((Date.now() - began) / 1000);
        rec.console_errors = consoleErrors.slice(errorsBefore);
        rec.screenshot ??= await screenshot(
          page,
          `${String(n).padStart(2, '0')}-${name}.png`
        );
        rec.verdict ??= 'fail';
        record(rec);
        test.info().annotations.push({
          type: `${n}. ${name}`,
          description: `${rec.verdict}${rec.why ? `: ${rec.why}` : ''}`
        });
        process.stdout.write(
          `[walk] ${n}. ${name}: ${rec.verdict} in ${String(rec.duration_s)} s${rec.why ? ` (${rec.why})` : ''}\n`
        );
      }
    });
  };

  // Files land next to sales.csv: the file browser at the root.
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('filebrowser:go-to-path', {
      path: '/',
      dontShowBrowser: true
    })
  );

  // 1. Ask, in a new notebook.
  await step(1, 'ask', async (rec, deadline) => {
    await newNotebook(page, ANALYSIS);
    const before = new Set(
      (await cellsOf(page, ANALYSIS)).cells.map(c => c.id)
    );
    await scriptFor(request, [
      {
        content: 'I will load the file and sum the revenue per region.',
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: `${LOAD}\ndf['revenue'] = df['units'] * df['unit_price']\nfor region, total in df.groupby('region')['revenue'].sum().items():\n    print(f'{region}: {total:.2f}')`,
              run: true
            }
          }
        ]
      },
      {
        content: `Total revenue per region: ${BY_REGION.map(([r, v]) => `**${r}** ${v.toFixed(2)}`).join(', ')}.`
      }
    ]);
    rec.prompt = ASK;
    await ask(page, ASK);
    const run = await drive(page, deadline);
    const items = afterUser(await transcript(page), t =>
      t.includes('sales.csv')
    );
    const { cells } = await cellsOf(page, ANALYSIS);
    const inserted = cells.filter(c => !before.has(c.id));
    const answer = answerOf(items);
    const inAnswer = numbersIn(answer);
    // (All cells: a model may write into the notebook's empty first cell.)
    const inOutputs = numbersIn(outputText(cells));
    const totals = BY_REGION.map(([region, value]) => ({
      region,
      expected: value,
      in_answer: states(inAnswer, value),
      in_outputs: states(inOutputs, value)
    }));
    Object.assign(rec, {
      run,
      answer,
      transcript: items,
      cells_inserted: inserted.map(c => c.id),
      cells,
      totals,
      usage: await sidebar(page)
        .locator('.jp-AgentSidebar-usage')
        .first()
        .textContent({ timeout: 1000 })
        .catch(() => null),
      expectation:
        'the answer states the total revenue of every region, and a cell the agent ran printed them'
    });
    const ok =
      totals.every(t => t.in_answer) && totals.every(t => t.in_outputs);
    rec.verdict = ok ? 'pass' : 'fail';
    rec.why = ok
      ? 'all four totals in the answer and in an output'
      : `totals in the answer: ${totals.filter(t => t.in_answer).length}/4, in outputs: ${totals.filter(t => t.in_outputs).length}/4; run ${run.outcome}`;
  });

  // 2. A follow-up in the same chat.
  await step(2, 'followup', async (rec, deadline) => {
    harness(await activate(page, ANALYSIS), `${ANALYSIS} is not open`);
    const before = new Set(
      (await cellsOf(page, ANALYSIS)).cells.map(c => c.id)
    );
    await scriptFor(request, [
      { content: `**${TOP_REGION}** has the highest revenue.` }
    ]);
    rec.prompt = FOLLOW_UP;
    await ask(page, FOLLOW_UP);
    const run = await drive(page, deadline);
    const all = await transcript(page);
    const items = afterUser(all, t => t.includes('highest revenue'));
    const answer = answerOf(items);
    const { cells } = await cellsOf(page, ANALYSIS);
    const mentions = REGIONS.map(region => ({
      region,
      at: answer.search(new RegExp(`\\b${region}\\b`, 'i'))
    }))
      .filter(m => m.at >= 0)
      .sort((a, b) => a.at - b.at)
      .map(m => m.region);
    Object.assign(rec, {
      run,
      answer,
      transcript: items,
      same_chat: all.some(
        item => item.kind === 'user' && item.text.includes('sales.csv')
      ),
      cells_inserted: cells.filter(c => !before.has(c.id)),
      regions_named: mentions,
      // First answers sent back as guesses: folded away, not the answer.
      guesses: items.filter(item => item.kind === 'guess').map(i => i.text),
      expected_top_region: TOP_REGION,
      expectation: `the answer names ${TOP_REGION} first (the highest revenue), in the chat of step 1`
    });
    const ok = mentions[0] === TOP_REGION;
    rec.verdict = ok ? 'pass' : 'fail';
    rec.why = ok
      ? `${TOP_REGION} named first`
      : `regions named, in order: ${mentions.join(', ') || 'none'}; run ${run.outcome}`;
  });

  // 3. A broken cell, run; right-click it → Fix This Cell; Accept.
  await step(3, 'fix', async (rec, deadline) => {
    harness(await activate(page, ANALYSIS), `${ANALYSIS} is not open`);
    if ((await kernelState(page, ANALYSIS)) === 'busy') {
      rec.kernel_was_busy = true;
      await page.evaluate(() =>
        window.jupyterapp.commands.execute('notebook:interrupt-kernel')
      );
    }
    const ids = await page.evaluate(
      sources => {
        const panel = window.jupyterapp.shell.currentWidget as unknown as {
          content: {
            model: {
              cells: { length: number; get(i: number): { id: string } };
              sharedModel: {
                insertCell(
                  i: number,
                  cell: { cell_type: string; source: string }
                ): void;
              };
            };
          };
        };
        const model = panel.content.model;
        return sources.map(source => {
          const at = model.cells.length;
          model.sharedModel.insertCell(at, { cell_type: 'code', source });
          return model.cells.get(at).id;
        });
      },
      [LOAD, BROKEN]
    );
    const [loadId, brokenId] = ids;
    const loaded = await runCell(page, ANALYSIS, loadId);
    const broken = await runCell(page, ANALYSIS, brokenId);
    rec.broken_cell = { before: broken };
    if (hasError(loaded) || !hasError(broken)) {
      throw new Error(
        `the broken cell did not fail as it should (load: ${JSON.stringify(loaded?.outputs)}, broken: ${JSON.stringify(broken?.outputs)})`
      );
    }
    await scriptFor(request, [
      {
        tool_calls: [
          {
            name: 'edit_cell',
            arguments: {
              cell_id: brokenId,
              source: "df.groupby('region')['units'].sum()"
            }
          }
        ]
      },
      { tool_calls: [{ name: 'run_cell', arguments: { cell_id: brokenId } }] },
      { content: "A typo in the column name: 'regoin' → 'region'." }
    ]);
    // Right-click THAT cell (not the active one) → Fix This Cell.
    const panelId = await page.evaluate(
      () => window.jupyterapp.shell.currentWidget!.id
    );
    const index = (await cellsOf(page, ANALYSIS)).cells.findIndex(
      c => c.id === brokenId
    );
    const cell = page
      .locator(`[id="${panelId}"] .jp-Notebook .jp-Cell`)
      .nth(index);
    await cell.scrollIntoViewIfNeeded();
    await cell.locator('.jp-InputArea-prompt').click({ button: 'right' });
    const entry = page.getByRole('menuitem', { name: /^Fix This Cell/ });
    rec.menu_entry = (await entry.first().textContent())?.trim();
    await entry.first().click();
    const run = await drive(page, deadline, { settleMs: 2500 });
    const review = sidebar(page).getByRole('region', {
      name: 'Review the fix'
    });
    const reviewed = await review
      .last()
      .waitFor({ state: 'visible', timeout: 15000 })
      .then(() => true)
      .catch(() => false);
    const headline = reviewed
      ? ((await review.last().locator('strong').first().textContent()) ?? '')
      : null;
    rec.review = {
      shown: reviewed,
      headline,
      text: reviewed ? clip(await review.last().innerText(), 4000) : null,
      buttons: reviewed
        ? await review.last().getByRole('button').allInnerTexts()
        : []
    };
    rec.screenshot_review = await screenshot(page, '03-fix-review.png');
    const accept = review.last().getByRole('button', { name: 'Accept' });
    let decision = 'none offered';
    if (reviewed && (await visible(accept))) {
      await accept.click();
      decision = 'accepted';
    } else if (
      reviewed &&
      (await visible(review.last().getByRole('button', { name: 'Dismiss' })))
    ) {
      await review.last().getByRole('button', { name: 'Dismiss' }).click();
      decision = 'dismissed (no Accept offered)';
    }
    await page.waitForTimeout(1000);
    const after = (await cellsOf(page, ANALYSIS)).cells.find(
      c => c.id === brokenId
    );
    // The user runs it again to see.
    const rerun = after ? await runCell(page, ANALYSIS, brokenId) : undefined;
    const items = afterUser(await transcript(page), t =>
      t.startsWith('Fix cell')
    );
    Object.assign(rec, {
      run,
      transcript: items,
      user_line: (await transcript(page))
        .filter(i => i.kind === 'user')
        .map(i => i.text)
        .pop(),
      decision,
      cell_after_fix: after,
      clean_after_fix: after ? !hasError(after) : null,
      rerun_by_user: rerun,
      rerun_clean: rerun
        ? !hasError(rerun) && rerun.execution_count !== null
        : null,
      expectation:
        'the review shows a diff with Accept, says the cell runs without error; after Accept the cell runs clean'
    });
    const ok =
      decision === 'accepted' &&
      !!headline?.startsWith('The cell runs without error now') &&
      rec.rerun_clean === true;
    rec.verdict = ok ? 'pass' : 'fail';
    rec.why = ok
      ? `fixed and accepted: ${after?.source.split('\n')[0] ?? ''}`
      : `review: ${headline ?? 'none'}; ${decision}; rerun clean: ${String(rec.rerun_clean)}; run ${run.outcome}`;
  });

  // 4. Palette → Generate notebook.
  await step(4, 'generate', async (rec, deadline) => {
    await page.evaluate(() =>
      window.jupyterapp.commands.execute('filebrowser:go-to-path', {
        path: '/',
        dontShowBrowser: true
      })
    );
    rec.file_browser_folder = await page.filebrowser
      .getCurrentDirectory()
      .catch(() => null);
    const first = BY_REGION[0];
    const plot =
      "import matplotlib.pyplot as plt\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\ndf['revenue'] = df['units'] * df['unit_price']\ntop = df.groupby('product')['revenue'].sum().nlargest(5)\ntop.plot.bar(title='Top products by revenue')\nplt.tight_layout()\nplt.show()";
    await scriptFor(request, [
      {
        tool_calls: [
          {
            name: 'update_plan',
            arguments: {
              steps: [
                { title: 'Revenue by region' },
                { title: 'Revenue by month' },
                { title: 'Top products chart' }
              ]
            }
          }
        ]
      },
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              cell_type: 'markdown',
              source:
                '# Sales analysis\nRevenue by region and month, top products.'
            }
          }
        ]
      },
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: `${LOAD}\ndf['revenue'] = df['units'] * df['unit_price']\nfor region, total in df.groupby('region')['revenue'].sum().sort_values(ascending=False).items():\n    print(f'{region}: {total:.2f}')`,
              run: true
            }
          }
        ]
      },
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source:
                "df['month'] = df['date'].str[:7]\nprint(df.groupby('month')['revenue'].sum().round(2).to_string())",
              run: true
            }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'insert_cell', arguments: { source: plot, run: true } }
        ]
      },
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              cell_type: 'markdown',
              source: `## Summary\n${first[0]} has the highest revenue: ${first[1].toFixed(2)}.`
            }
          }
        ]
      },
      { content: 'The notebook is ready.' }
    ]);
    await page.keyboard.press('Control+Shift+C');
    await page
      .getByRole('textbox', { name: 'SEARCH' })
      .fill('Generate Notebook');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.jp-Dialog');
    await dialog
      .getByRole('textbox', { name: 'What should the notebook do?' })
      .fill(GENERATE);
    const name = await dialog
      .getByRole('textbox', { name: 'File name' })
      .inputValue();
    rec.prompt = GENERATE;
    rec.file_name = name;
    rec.run_without_asking = await dialog
      .getByRole('checkbox')
      .first()
      .isChecked()
      .catch(() => null);
    await dialog.getByRole('button', { name: 'Generate' }).click();
    const run = await drive(page, deadline, {
      startWithinMs: 120000,
      settleMs: 4000
    });
    const items = await transcript(page);
    const notes = items.filter(i => i.kind === 'note').map(i => i.text);
    const status =
      [...notes]
        .reverse()
        .find(t => /^(Verified|Built, not verified)/.test(t)) ?? null;
    const found = (await cellsOf(page, name)).cells.length
      ? await cellsOf(page, name)
      : await cellsOf(page);
    const saved = await page.contents.fileExists(name).catch(() => false);
    Object.assign(rec, {
      run,
      status_line: status,
      notes,
      plan: items.filter(i => i.kind === 'plan').map(i => i.text),
      errors: items.filter(i => i.kind === 'error').map(i => i.text),
      answer: answerOf(items),
      notebook: found.path,
      saved,
      cells: found.cells,
      code_cells: found.cells.filter(c => c.type === 'code').length,
      cells_with_errors: found.cells.filter(hasError).length,
      shows_a_plot: found.cells.some(c =>
        c.outputs.some(o => (o.images ?? []).length > 0)
      ),
      expectation:
        'the sidebar ends on "Verified: …" and the notebook has the revenue by region and month, a bar chart and a summary'
    });
    const ok = !!status?.startsWith('Verified');
    rec.verdict = ok ? 'pass' : 'fail';
    rec.why = status ?? `no verdict line; run ${run.outcome}`;
  });

  // 5. The agent runs a slow cell; the page is reloaded mid-run.
  await step(5, 'reload', async (rec, deadline) => {
    await newNotebook(page, RELOAD);
    await scriptFor(request, [
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: "import time; time.sleep(40); print('done')",
              run: true
            }
          }
        ]
      },
      { content: 'It printed done.' }
    ]);
    rec.prompt = SLOW;
    await ask(page, SLOW);
    const sleeping = (cells: ICell[]) =>
      cells.find(c => /time\.sleep\(\s*40\s*\)/.test(c.source));
    let runningSince = 0;
    const run = await drive(page, deadline, {
      until: async () => {
        const cell = sleeping((await cellsOf(page, RELOAD)).cells);
        const busy = (await kernelState(page, RELOAD)) === 'busy';
        runningSince = cell && busy ? runningSince || Date.now() : 0;
        // A few seconds into the cell's run.
        return runningSince > 0 && Date.now() - runningSince > 3000;
      }
    });
    rec.run = run;
    rec.cell_before_reload = sleeping((await cellsOf(page, RELOAD)).cells);
    rec.expectation =
      "after the reload the agent's cell is still in the notebook and the sidebar says the kernel is busy, with Interrupt";
    if (!run.outcome.startsWith('condition met')) {
      rec.transcript = await transcript(page);
      rec.verdict = 'fail';
      rec.why = `the agent did not run the slow cell (run ${run.outcome}); no reload`;
      return;
    }
    rec.screenshot_before = await screenshot(page, '05-before-reload.png');
    const reloadedAt = Date.now();
    // The browser's reload ("Leave site?" is accepted above). Galata's waits
    // for JupyterLab and its helpers; not for the Launcher, which a layout
    // with notebooks open does not show.
    await page.reload({ timeout: 120000, waitForIsReady: false } as Parameters<
      typeof page.reload
    >[0]);
    await page
      .locator('#jupyterlab-splash')
      .waitFor({ state: 'detached', timeout: 90000 });
    await page
      .locator('.jp-NotebookPanel')
      .first()
      .waitFor({ state: 'attached', timeout: 60000 });
    rec.reload_s = Math.round((Date.now() - reloadedAt) / 1000);
    if (!(await activate(page, RELOAD))) {
      rec.reopened = true;
      await page.notebook.openByPath(RELOAD);
    }
    await openSidebar(page);
    await expect
      .poll(async () => !!sleeping((await cellsOf(page, RELOAD)).cells), {
        timeout: 20000
      })
      .toBe(true)
      .catch(() => undefined);
    const kept = sleeping((await cellsOf(page, RELOAD)).cells);
    const busy = sidebar(page).locator('.jp-AgentSidebar-kernelBusy');
    const offered = await busy
      .waitFor({ state: 'visible', timeout: 30000 })
      .then(() => true)
      .catch(() => false);
    const interrupt = busy.getByRole('button', { name: 'Interrupt' });
    const hasInterrupt = offered && (await visible(interrupt));
    Object.assign(rec, {
      seconds_after_reload: Math.round((Date.now() - reloadedAt) / 1000),
      kernel_state: await kernelState(page, RELOAD),
      cell_kept: kept ?? null,
      busy_line: offered ? await busy.innerText() : null,
      interrupt_offered: hasInterrupt,
      says_interrupted: ((await sidebar(page).innerText()).match(
        /[^\n]*interrupted \(page reloaded\)[^\n]*/
      ) ?? [null])[0],
      transcript: await transcript(page)
    });
    rec.screenshot = await screenshot(page, '05-reload.png');
    if (hasInterrupt) {
      await interrupt.click();
      rec.kernel_after_interrupt = await expect
        .poll(() => kernelState(page, RELOAD), { timeout: 20000 })
        .toBe('idle')
        .then(() => 'idle')
        .catch(() => 'still busy');
    }
    const ok = !!kept && hasInterrupt;
    rec.verdict = ok ? 'pass' : 'fail';
    rec.why = ok
      ? `cell kept; "${String(rec.busy_line).split('\n')[0]}"`
      : `cell kept: ${String(!!kept)}; busy line: ${String(rec.busy_line)}; kernel ${String(rec.kernel_state)}`;
  });

  const seconds = Math.round((Date.now() - walkStart) / 1000);
  record({ step: 6, name: 'end', walk_s: seconds, problems });
  process.stdout.write(
    `[walk] ${seconds} s; records in ${path.join(OUT, 'walk.jsonl')}\n`
  );
  expect.soft(problems, 'steps that threw (see walk.jsonl)').toEqual([]);
});
