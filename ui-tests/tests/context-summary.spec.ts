/**
 * Context that lasts: with a small context window, a run that reads two
 * large files has its older steps summarised by one extra model call; the
 * chat says "Earlier steps summarised" (opening to the summary), the model
 * reads the summary instead of the old output, and the chat reopened from
 * History still sends the summary first.
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { SIDEBAR, ask, finished, setAgentSettings } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

/** About 700 tokens of text, each line naming its file. */
function part(name: string): string {
  return Array.from(
    { length: 110 },
    (_, i) => `${name} line ${i}: value ${i * 7}`
  ).join('\n');
}

const SUMMARY =
  'The user asked to compare part1 and part2. part1.txt lists values 0 to 763 in steps of 7.';

test('a long run is summarised once near the window, the chat says so, and the reopened chat keeps the summary', async ({
  page,
  request,
  tmpPath
}) => {
  // 8000 tokens: a history budget of 2000, so two files of ~700 tokens pass the 1500 trigger.
  await setAgentSettings(page, { contextWindowTokens: 8000 });
  for (const name of ['part1', 'part2']) {
    await page.contents.uploadContent(
      part(name),
      'text',
      `${tmpPath}/${name}.txt`
    );
  }
  await page.notebook.createNew('summary.ipynb');
  const read = (name: string) => ({
    tool_calls: [
      { name: 'read_file', arguments: { path: `${tmpPath}/${name}.txt` } }
    ]
  });
  await script(request, [
    read('part1'),
    read('part2'),
    { content: SUMMARY },
    { content: 'Both parts are read.' }
  ]);
  const sidebar = await ask(page, 'Compare part1 and part2.');
  await finished(page);
  await expect(sidebar).toContainText('Both parts are read.');

  const note = sidebar.locator('.jp-AgentSidebar-summaryNote');
  await expect(note).toHaveCount(1);
  await expect(note.locator('summary')).toContainText(
    'Earlier steps summarised'
  );
  await note.locator('summary').click();
  await expect(note.locator('.jp-AgentSidebar-summaryText')).toHaveText(
    SUMMARY
  );

  const requests = await received(request);
  expect(requests).toHaveLength(4);
  const summaryRequest = requests[2].body as {
    messages: Array<{ content: string | null }>;
    tool_choice?: unknown;
  };
  expect(summaryRequest.tool_choice).toBe('none');
  expect(
    summaryRequest.messages[summaryRequest.messages.length - 1].content
  ).toMatch(/^Context is running out: summarise the conversation above/);
  // The next step reads the summary, not the first file.
  const after = JSON.stringify(requests[3].body.messages);
  expect(requests[3].body.messages[1].content).toContain(SUMMARY);
  expect(after).not.toContain('part1 line 5: value 35');
  expect(after).toContain('part2 line 5: value 35');

  // Saved on the server and reopened from History: the summary still comes first.
  await sidebar.getByRole('button', { name: 'New chat' }).click();
  await expect(note).toHaveCount(0);
  await sidebar.getByRole('button', { name: 'History' }).click();
  await sidebar
    .getByRole('list', { name: 'Earlier chats' })
    .getByRole('button', { name: 'Compare part1 and part2.' })
    .click();
  await expect(note).toHaveCount(1);
  await script(request, [{ content: 'Still with you.' }]);
  await ask(page, 'And the last value of part2?');
  await finished(page);
  await expect(sidebar).toContainText('Still with you.');
  const [reopened] = await received(request);
  expect(reopened.body.messages[1].content).toContain(SUMMARY);
  expect(JSON.stringify(reopened.body.messages)).not.toContain(
    'part1 line 5: value 35'
  );
  await expect(page.locator(`#${SIDEBAR}`)).toBeVisible();
});
