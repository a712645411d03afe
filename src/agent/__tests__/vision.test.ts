import type { IImageResizer } from '../context/images';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { withLatestImagesOnly } from '../loop/vision';
import { toOpenAIMessages } from '../model/openai-client';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { ChatMessage } from '../types';
import { fixtureOutputs, loadFixture } from './fixtures/load-outputs';

const plot = fixtureOutputs(loadFixture('matplotlib-png'));

async function runWithPlots(vision: boolean, resizer?: IImageResizer) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'run_code', arguments: { code: 'df.plot()' } }] },
    { toolCalls: [{ name: 'run_code', arguments: { code: 'df.hist()' } }] },
    { text: 'The histogram is skewed.' }
  ]);
  const messages: ChatMessage[] = [{ role: 'user', content: 'plot it' }];
  await runAgent(
    runConfig({
      model,
      tools: new ToolRegistry(agentTools()),
      approvalMode: 'run-everything',
      vision: { enabled: vision, maxSide: 256, resizer }
    }),
    {
      notebook: new FakeNotebook({ execute: () => plot }),
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: () => undefined
    }
  );
  return model;
}

describe('images for vision models', () => {
  it('attaches plots as a downscaled image message after the tool results; text never has base64', async () => {
    const calls: number[] = [];
    const resizer: IImageResizer = {
      resize: async (image, maxSide) => (
        calls.push(maxSide),
        { ...image, base64: 'c21hbGw=', width: 256, height: 203 }
      )
    };
    const model = await runWithPlots(true, resizer);
    const second = model.requests[1].messages;
    const observation = second[second.length - 1];
    expect(observation).toMatchObject({ role: 'user', observation: true });
    expect(observation.role === 'user' && observation.images).toEqual([
      { mime: 'image/png', base64: 'c21hbGw=', width: 256, height: 203 }
    ]);
    expect(calls).toEqual([256, 256]);
    const toolText = second.find(m => m.role === 'tool')!.content as string;
    expect(toolText).toMatch(/image\/png/);
    expect(toolText).not.toMatch(/iVBORw0KGgo/);
    // Later requests keep only the newest images.
    const third = model.requests[2].messages;
    const withImages = third.filter(m => m.role === 'user' && m.images?.length);
    expect(withImages).toHaveLength(1);
    expect(
      third.some(
        m => m.role === 'user' && m.content.includes('elided to save context')
      )
    ).toBe(true);
  });

  it('sends no images to models without vision', async () => {
    const model = await runWithPlots(false);
    expect(
      model.requests[2].messages.some(m => m.role === 'user' && m.images)
    ).toBe(false);
  });

  it('converts image messages to OpenAI content parts', () => {
    const [converted] = toOpenAIMessages([
      {
        role: 'user',
        content: 'Images',
        images: [{ mime: 'image/png', base64: 'AAAA' }]
      }
    ]);
    expect(converted).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }
      ]
    });
    const plain: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    expect(withLatestImagesOnly(plain)).toBe(plain);
  });
});

describe('assistant messages on the wire', () => {
  it('send empty content, not null, beside tool calls (llama-cpp-python rejects null)', () => {
    const [converted] = toOpenAIMessages([
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'a', name: 'run_code', arguments: '{}' }]
      }
    ]);
    expect(converted).toMatchObject({ role: 'assistant', content: '' });
  });
});
