/**
 * XSS (issues #9 and #7): a corpus of payloads in every place the sidebar
 * or the notebook shows model-steered text. None may run script, open a
 * dialog, navigate, or run a JupyterLab command; the sidebar may not load
 * any remote resource (a markdown image is how injected prompts exfiltrate
 * data), and no element in it may carry an on* handler or a javascript: URL.
 *
 * Surfaces (the canary URLs name them):
 *   reply       the model's streamed markdown answer
 *   plan        update_plan step titles (the plan checklist)
 *   code        a cell's source in a tool card (insert_cell)
 *   filecontent read_file's observation in its card
 *   files       file names (list_files' card; the files exist in the root)
 *   nbhtml …    outputs of an untrusted notebook on disk (text/html,
 *               text/markdown, image/svg+xml, application/javascript,
 *               text/latex, an error), read back by read_notebook
 *   out         outputs of a cell the agent ran (display(HTML/Markdown/SVG/
 *               Javascript/Latex) and print), and its run_cell card
 *   mdcell      a markdown cell the agent inserted
 *   error       an endpoint's error message in the sidebar's error banner
 *   approval    the approval card's code (ask-before-running), and a
 *               rejection reason
 *   diff        the Fix-this-cell review (before/after diff)
 *   title       the user's prompt (the chat's title in History)
 * and again after a reload, from the chat saved on the server.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import { SIDEBAR, finished, setAgentSettings } from '../tests/sidebar';
import {
  CANARY_ROOT,
  Watcher,
  findings,
  reloadLab,
  report,
  scan,
  script
} from './harness';
import {
  PAYLOAD_COUNT,
  corpus,
  fileNamePayloads,
  scriptFor,
  type IPayload
} from './payloads';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

const SIDEBAR_ONLY = [
  'reply',
  'plan',
  'filecontent',
  'files',
  'error',
  'approval',
  'title'
];

/** Markdown a model writes every day: it must still render as such. */
const BENIGN = [
  'Result **bold** and `inline code`, see [the docs](https://jupyter.org/).',
  '| column | value |\n| --- | --- |\n| a | 1 |',
  '```python\nimport pandas as pd\nprint(pd.__version__)\n```',
  'Euler: $e^{i\\pi} + 1 = 0$',
  '- [x] loaded\n- [ ] plotted',
  '<span style="color: red">red text</span>'
].join('\n\n');

const texts = (payloads: IPayload[]) => payloads.map(p => p.text);
const join = (payloads: IPayload[]) => texts(payloads).join('\n\n');
/** Python source lines that keep each payload in a comment. */
const asComments = (payloads: IPayload[]) =>
  payloads.map(p => `# ${p.text.replace(/\n/g, ' ')}`).join('\n');

/** An untrusted notebook (no signature) whose outputs carry the payloads. */
function untrustedNotebook(): Record<string, unknown> {
  const html = corpus(CANARY_ROOT, 'nbhtml');
  const markdown = corpus(CANARY_ROOT, 'nbmd');
  const latex = corpus(CANARY_ROOT, 'nblatex');
  const errors = corpus(CANARY_ROOT, 'nberr');
  const js = scriptFor(CANARY_ROOT, 'nbjs', 'javascript');
  const svgJs = scriptFor(CANARY_ROOT, 'nbsvg', 'svg');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" onload="${svgJs}"><script>${svgJs}</script>` +
    `<image href="${CANARY_ROOT}/canary/nbsvg/svg/res" width="10" height="10"/></svg>`;
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3',
        language: 'python'
      }
    },
    cells: [
      {
        cell_type: 'code',
        id: 'data-cell',
        metadata: {},
        execution_count: 1,
        source: 'report = load_report()  # outputs saved by someone else',
        outputs: [
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'text/html': join(html), 'text/plain': 'html' }
          },
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'text/markdown': join(markdown), 'text/plain': 'md' }
          },
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'image/svg+xml': svg, 'text/plain': 'svg' }
          },
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'application/javascript': js, 'text/plain': 'js' }
          },
          {
            output_type: 'execute_result',
            execution_count: 1,
            metadata: {},
            data: { 'text/latex': join(latex), 'text/plain': 'latex' }
          }
        ]
      },
      {
        cell_type: 'code',
        id: 'broken-cell',
        metadata: {},
        execution_count: 2,
        source: `${asComments(corpus(CANARY_ROOT, 'diff'))}\nraise ValueError("boom")`,
        outputs: [
          {
            output_type: 'error',
            ename: 'ValueError',
            evalue: join(errors),
            traceback: texts(errors)
          }
        ]
      }
    ]
  };
}

/** Python that displays every payload in every rich form, and prints them. */
function displayCode(payloads: IPayload[]): string {
  const svgJs = scriptFor(CANARY_ROOT, 'out', 'svg');
  return [
    'import json',
    'from IPython.display import HTML, SVG, Javascript, Latex, Markdown, display',
    `P = json.loads(${JSON.stringify(JSON.stringify(texts(payloads)))})`,
    'for p in P:',
    '    display(HTML(p))',
    "display(Markdown('\\n\\n'.join(P)))",
    "display(Latex('\\n'.join(P)))",
    `display(Javascript(${JSON.stringify(scriptFor(CANARY_ROOT, 'out', 'javascript'))}))`,
    `display(SVG(${JSON.stringify(`<svg xmlns="http://www.w3.org/2000/svg" onload="${svgJs}"><script>${svgJs}</script></svg>`)}))`,
    "print('\\n'.join(P))"
  ].join('\n');
}

/**
 * Use the sidebar the way a user would: open every tool card, and click and
 * hover everything the rendered markdown offers (links, buttons, summaries).
 */
async function interact(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(sel => {
    for (const header of Array.from(
      document.querySelectorAll<HTMLElement>(
        `${sel} .jp-AgentSidebar-toolHeader`
      )
    )) {
      if (header.getAttribute('aria-expanded') === 'false') {
        header.click();
      }
    }
    for (const el of Array.from(
      document.querySelectorAll<HTMLElement>(
        `${sel} .jp-AgentSidebar-markdown *`
      )
    )) {
      if (el.closest('.jp-AgentSidebar-codeActions')) {
        continue; // the sidebar's own Copy / Insert as cell buttons
      }
      const href = el.getAttribute('href') ?? '';
      if (/^\s*(https?:)?\/\//i.test(href)) {
        continue; // following a web link is the user's choice
      }
      for (const type of ['mouseover', 'mouseenter', 'focus']) {
        el.dispatchEvent(new Event(type, { bubbles: true }));
      }
      if (el.matches('a, button, summary, input, label, area')) {
        el.click();
      }
    }
  }, `#${SIDEBAR}`);
}

test('no payload runs, navigates or loads from the sidebar, in any surface', async ({
  page,
  context,
  request,
  tmpPath
}) => {
  const started = Date.now();
  // The notebook and the files with payload names, written as someone else would.
  const files = fileNamePayloads(CANARY_ROOT, 'files');
  for (const file of files) {
    const response = await request.put(
      `/api/contents/${tmpPath}/${encodeURIComponent(file.text)}`,
      { data: { type: 'file', format: 'text', content: 'a,b\n1,2\n' } }
    );
    expect(response.ok(), file.text).toBe(true);
  }
  const contentPayloads = corpus(CANARY_ROOT, 'filecontent');
  await request.put(`/api/contents/${tmpPath}/report.txt`, {
    data: { type: 'file', format: 'text', content: join(contentPayloads) }
  });
  await request.put(`/api/contents/${tmpPath}/xss.ipynb`, {
    data: { type: 'notebook', format: 'json', content: untrustedNotebook() }
  });

  const watcher = await Watcher.attach(page, context);
  // The transcript changes (New chat clears it): scan it at each stage.
  const sidebarFindings: string[] = [];
  let sidebarElements = 0;
  const checkpoint = async () => {
    await interact(page);
    await watcher.collect();
    const result = await scan(page, `#${SIDEBAR}`);
    sidebarElements += result.elements;
    sidebarFindings.push(...findings(result));
  };
  await page.filebrowser.open('xss.ipynb');
  await page.waitForSelector('.jp-Notebook .jp-Cell');
  await setAgentSettings(page, { approvalMode: 'run-everything' });

  const plan = corpus(CANARY_ROOT, 'plan');
  const steps = [];
  for (let i = 0; i < plan.length; i += 5) {
    steps.push({
      title: texts(plan.slice(i, i + 5)).join(' '),
      status: ['pending', 'in-progress', 'done'][i % 3]
    });
  }
  const reply = corpus(CANARY_ROOT, 'reply');
  const out = corpus(CANARY_ROOT, 'out');
  await script(request, [
    {
      tool_calls: [
        { name: 'update_plan', arguments: { steps: steps.slice(0, 12) } },
        { name: 'read_notebook', arguments: {} },
        { name: 'list_files', arguments: { path: tmpPath } },
        { name: 'read_file', arguments: { path: `${tmpPath}/report.txt` } },
        {
          name: 'read_file',
          arguments: { path: `${tmpPath}/${files[0].text}` }
        }
      ]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source: `${asComments(corpus(CANARY_ROOT, 'code'))}\n${displayCode(out)}`
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            cell_type: 'markdown',
            source: join(corpus(CANARY_ROOT, 'mdcell'))
          }
        }
      ]
    },
    { content: `${BENIGN}\n\n${join(reply)}`, chunk_size: 97 }
  ]);
  const sidebar = page.locator(`#${SIDEBAR}`);
  await page.sidebar.openTab(SIDEBAR);
  const prompt = sidebar.getByRole('textbox', { name: 'Ask Notebook Agent' });
  // The user's own prompt carries a payload too: it becomes the chat's title.
  const title = `Summarize the report <img src=x onerror="${scriptFor(CANARY_ROOT, 'title', 'prompt')}">`;
  await prompt.fill(title);
  await prompt.press('Enter');
  await finished(page);
  await expect(sidebar.locator('.jp-AgentSidebar-assistant')).toContainText(
    'markdown js link'
  );
  await expect(sidebar.locator('.jp-AgentSidebar-tool')).toHaveCount(8);
  // The sanitizer took nothing a normal answer needs.
  const answer = sidebar.locator('.jp-AgentSidebar-assistant').first();
  await expect(answer.locator('strong').first()).toHaveText('bold');
  await expect(answer.locator('a[href="https://jupyter.org/"]')).toHaveCount(1);
  await expect(answer.locator('td').first()).toHaveText('a');
  await expect(answer.locator('pre code').first()).toContainText(
    'import pandas'
  );
  await expect(answer.locator('mjx-container').first()).toBeVisible();
  await expect(answer.locator('input[type="checkbox"]')).toHaveCount(2);
  await expect(answer.locator('span[style*="color"]')).toHaveText('red text');
  await checkpoint();

  // An endpoint error whose message is a payload.
  await script(request, [
    { status: 500, error: { message: join(corpus(CANARY_ROOT, 'error')) } }
  ]);
  await prompt.fill('Again');
  await prompt.press('Enter');
  await expect(sidebar.locator('.jp-AgentSidebar-error')).toBeVisible({
    timeout: 30000
  });
  await finished(page);
  await checkpoint();

  // The approval card shows the code; the rejection reason is a payload too.
  // A large window: this chat holds every payload so far, and near a small
  // window the agent would first ask the model for a summary (a turn the
  // script does not have).
  await setAgentSettings(page, {
    approvalMode: 'ask-before-running',
    contextWindowTokens: 1000000
  });
  const approvalPayloads = corpus(CANARY_ROOT, 'approval');
  // Code after the comments: a block of comments only is refused before any
  // approval card (loop/stop-conditions.ts, holdsNoCode).
  const approvalCode = `${asComments(approvalPayloads)}\nprint("payloads")`;
  await script(request, [
    {
      tool_calls: [{ name: 'run_code', arguments: { code: approvalCode } }]
    },
    { content: 'Understood.' }
  ]);
  await prompt.fill('Inspect it');
  await prompt.press('Enter');
  const approval = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(approval.getByRole('textbox')).toHaveValue(approvalCode);
  await approval.getByRole('button', { name: 'Reject' }).click();
  await approval
    .getByRole('textbox', { name: 'Reason for rejecting' })
    .fill(texts(approvalPayloads.slice(0, 10)).join(' '));
  await checkpoint();
  await approval.getByRole('button', { name: 'Send rejection' }).click();
  await finished(page);

  // Fix this cell: the diff shows payloads on both sides.
  await sidebar.getByRole('button', { name: 'New chat' }).click();
  await script(request, [
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: {
            cell_id: 'broken-cell',
            source: `${asComments(corpus(CANARY_ROOT, 'diff').reverse())}\nprint("fixed")`
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: 'broken-cell' } }]
    },
    { content: 'Fixed.' }
  ]);
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook-agent:fix-cell', {
      cellId: 'broken-cell'
    })
  );
  const review = sidebar.getByRole('region', { name: 'Review the fix' });
  await expect(review).toContainText('The cell runs without error now.', {
    timeout: 60000
  });
  await expect(review).toContainText('+ # <script>');

  await checkpoint();
  await review.getByRole('button', { name: 'Reject' }).click();
  await expect(review).toHaveCount(0);
  await checkpoint();

  // Stored: chats are saved on the server and come back after a reload (the
  // last one, the fix, with its payload-laden cards; History lists titles).
  await reloadLab(page);
  await watcher.arm();
  await page.evaluate(async p => {
    // Not returned: the opened widget cannot be serialized to the test.
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
  }, `${tmpPath}/xss.ipynb`);
  await page.sidebar.openTab(SIDEBAR);
  await expect(
    sidebar.locator('.jp-AgentSidebar-tool[data-tool="edit_cell"]')
  ).toBeVisible({ timeout: 30000 });
  await sidebar.getByRole('button', { name: 'History' }).click();
  await expect(
    sidebar.getByRole('list', { name: 'Earlier chats' })
  ).toBeVisible();
  // Time for anything asynchronous (typesetting, image loads, timers).
  await page.waitForTimeout(1500);
  await checkpoint();
  const notebookScan = await scan(page, '.jp-NotebookPanel');
  const markers = watcher.markers;
  const commands = watcher.commands.filter(id => id === 'help:about');
  const js = watcher.hits('js');
  const sidebarLoads = watcher
    .hits('res')
    .concat(watcher.hits('nav'))
    .filter(hit => SIDEBAR_ONLY.includes(hit.split('/')[0]));
  const notebookLoads = watcher
    .hits('res')
    .filter(hit => !SIDEBAR_ONLY.includes(hit.split('/')[0]));
  const surfaces = [
    'reply',
    'plan',
    'code',
    'filecontent',
    'nbhtml',
    'nbmd',
    'nblatex',
    'nberr',
    'out',
    'mdcell',
    'error',
    'approval',
    'diff'
  ];
  const executed =
    js.length +
    markers.length +
    watcher.dialogs.length +
    watcher.navigations.length +
    watcher.popups.length +
    commands.length;
  // JupyterLab's own rendering of untrusted notebook content: no handler,
  // script URL or active element may survive. (Its sanitizer keeps command
  // links and remote images by default: counted, not failed.)
  // JupyterLab autolinks data: URLs in text outputs (here: a traceback); a
  // browser refuses to open a data: URL as a page, so those are counted apart.
  const dataLink = (finding: string) => finding.startsWith('<a> href=data:');
  const notebookDataLinks = notebookScan.scriptUrls.filter(dataLink);
  const notebookFindings = [
    ...notebookScan.handlers,
    ...notebookScan.scriptUrls.filter(f => !dataLink(f)),
    ...notebookScan.activeTags
  ];
  const placements = PAYLOAD_COUNT * surfaces.length + files.length + 4 + 1;
  report(
    `SECURITY xss: ${PAYLOAD_COUNT} payloads x ${surfaces.length} surfaces + ${files.length} file names + ` +
      `4 rich outputs + 1 prompt = ${placements} placements tried; executed ${executed} (must be 0: ` +
      `script canary ${js.length}, markers ${markers.length}, dialogs ${watcher.dialogs.length}, ` +
      `navigations ${watcher.navigations.length}, popups ${watcher.popups.length}, commands ${commands.length}); ` +
      `sidebar live markup ${sidebarFindings.length} (must be 0) in ${sidebarElements} elements scanned, ` +
      `sidebar remote loads ${sidebarLoads.length} (must be 0); notebook live markup ${notebookFindings.length} ` +
      `(must be 0); ${((Date.now() - started) / 1000).toFixed(1)} s`
  );
  report(
    `SECURITY xss (informational, JupyterLab's own rendering of untrusted notebook content): ` +
      `remote image/CSS loads ${notebookLoads.length}, command links ${notebookScan.commandLinks.length}, ` +
      `autolinked data: URLs ${notebookDataLinks.length}`
  );
  // One assertion with every finding, so a failure shows all of them.
  expect({
    js,
    markers,
    dialogs: watcher.dialogs,
    navigations: watcher.navigations,
    popups: watcher.popups,
    commands,
    sidebarFindings,
    sidebarLoads,
    notebookFindings
  }).toEqual({
    js: [],
    markers: [],
    dialogs: [],
    navigations: [],
    popups: [],
    commands: [],
    sidebarFindings: [],
    sidebarLoads: [],
    notebookFindings: []
  });
});
