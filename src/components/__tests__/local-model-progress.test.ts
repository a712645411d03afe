/**
 * The local model's status line in words (what the sidebar shows under
 * the header while the model loads, reads a prompt and writes).
 */
import { IDLE_STATUS } from '../../agent/model/local/load-status';
import { describe as line } from '../setup/local-model-progress';

const generating = {
  ...IDLE_STATUS,
  model: 'onnx-community/Qwen2.5-0.5B-Instruct',
  stage: 'generating' as const,
  rung: { device: 'wasm' as const, dtype: 'q4' as const },
  tokensPerSecond: 12.34
};

describe('the local model status line', () => {
  it('says the prompt is being read, how big it is and how much is cached', () => {
    expect(
      line({ ...generating, prompt: { tokens: 2345, reused: 1200 } })
    ).toBe(
      'Qwen2.5-0.5B-Instruct: reading the prompt, 2,345 tokens (1,200 cached)…'
    );
  });

  it('adds a guess of the time left once a turn was measured, only when it is worth saying', () => {
    expect(
      line({
        ...generating,
        prompt: { tokens: 2345, reused: 0, estimateS: 19.6 }
      })
    ).toBe(
      'Qwen2.5-0.5B-Instruct: reading the prompt, 2,345 tokens, about 20 s…'
    );
    expect(
      line({ ...generating, prompt: { tokens: 40, reused: 0, estimateS: 0.3 } })
    ).toBe('Qwen2.5-0.5B-Instruct: reading the prompt, 40 tokens…');
  });

  it('shows the device and the speed once it writes', () => {
    expect(line(generating)).toMatch(
      /^Qwen2\.5-0\.5B-Instruct on .+, 12\.3 tokens\/s$/
    );
  });
});
