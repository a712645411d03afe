import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import {
  MAX_TOOL_IMAGE_CHARS,
  capTranscriptImages,
  toolImages
} from '../tool-images';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { CellOutput } from '../ports';
import { fixtureOutputs, loadFixture } from './fixtures/load-outputs';

const PNG = (n: number) => ({
  mime: 'image/png',
  base64: `iVBORw0KGgo${n}AAA=`
});

describe('toolImages', () => {
  it('keeps at most four shown images and counts the others', () => {
    const images = [1, 2, 3, 4, 5, 6].map(PNG);
    const kept = toolImages(images);
    expect(kept.images?.map(i => i.base64)).toEqual(
      images.slice(0, 4).map(i => i.base64)
    );
    expect(kept.moreImages).toBe(2);
  });

  it('refuses images it cannot show safely or cheaply: svg, odd mimes, bad base64, too big', () => {
    const kept = toolImages([
      { mime: 'image/svg+xml', base64: 'PHN2Zz48L3N2Zz4=' },
      { mime: 'text/html', base64: 'PGI+' },
      { mime: 'image/png', base64: 'abc") ; background:url(x' },
      { mime: 'image/jpeg', base64: 'A'.repeat(MAX_TOOL_IMAGE_CHARS + 4) },
      { mime: 'image/jpeg', base64: '/9j/4AAQ', width: 10, height: 20 }
    ]);
    expect(kept.images).toEqual([
      { mime: 'image/jpeg', base64: '/9j/4AAQ', width: 10, height: 20 }
    ]);
    expect(kept.moreImages).toBe(4);
  });

  it('returns nothing for results without images', () => {
    expect(toolImages(undefined)).toEqual({});
    expect(toolImages([])).toEqual({});
  });
});

describe('capTranscriptImages', () => {
  it('keeps image data on the newest cards only and counts what it dropped', () => {
    const items = [
      { id: 'a', images: [PNG(1), PNG(2)] },
      { id: 'b' },
      { id: 'c', images: [PNG(3)], moreImages: 1 },
      { id: 'd', images: [PNG(4), PNG(5)] }
    ];
    const capped = capTranscriptImages(items, 3);
    expect(capped.map(i => i.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(capped[3]).toBe(items[3]);
    expect(capped[2]).toBe(items[2]);
    expect(capped[0]).toEqual({ id: 'a', moreImages: 2 });
    // Nothing over the limit: the same array.
    expect(capTranscriptImages(items, 10)).toBe(items);
  });
});

describe('tool cards with images, in a session', () => {
  const plot = fixtureOutputs(loadFixture('matplotlib-png'));
  const run = async () => {
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    await session.send('plot it', {
      model: () =>
        new ScriptedModel([
          {
            toolCalls: [{ name: 'run_code', arguments: { code: 'df.plot()' } }]
          },
          { text: 'Plotted.' }
        ]),
      notebook: new FakeNotebook({ execute: () => plot })
    });
    return session;
  };
  const png = (plot as CellOutput[])
    .map(o => (o.type === 'display_data' ? o.data['image/png'] : undefined))
    .find(Boolean) as string;

  it('carries the plot of a run on the tool item, with its pixel size', async () => {
    const session = await run();
    const tool = session.getSnapshot().items.find(i => i.kind === 'tool');
    expect(tool?.kind === 'tool' && tool.images).toEqual([
      expect.objectContaining({
        mime: 'image/png',
        base64: png.replace(/\s/g, ''),
        width: expect.any(Number),
        height: expect.any(Number)
      })
    ]);
  });

  it('drops image data from the saved chat and counts the images instead', async () => {
    const session = await run();
    const record = JSON.parse(JSON.stringify(session.record()));
    // The saved record's card (its one record: entries).
    const tool = record.entries.find(
      (e: { kind: string }) => e.kind === 'call'
    ).card;
    expect(tool.images).toBeUndefined();
    expect(tool.moreImages).toBe(1);
    expect(JSON.stringify(record)).not.toContain(png.slice(0, 200));
    // The live chat keeps them.
    const live = session.getSnapshot().items.find(i => i.kind === 'tool');
    expect(live?.kind === 'tool' && live.images?.length).toBe(1);
  });
});
