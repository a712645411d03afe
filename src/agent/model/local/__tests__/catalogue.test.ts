import {
  BUILTIN_MODELS,
  defaultLocalModel,
  findLocalModel,
  localToolProtocol,
  resolveCatalogue
} from '../catalogue';

describe('local model catalogue', () => {
  it('lists the curated models with family, dtypes, size and revision', () => {
    const ids = BUILTIN_MODELS.map(m => m.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'onnx-community/Qwen3-0.6B-ONNX',
        'onnx-community/Qwen2.5-0.5B-Instruct',
        'onnx-community/Qwen2.5-1.5B-Instruct',
        'onnx-community/Llama-3.2-1B-Instruct',
        'onnx-community/LFM2-1.2B-Tool-ONNX',
        'onnx-community/granite-4.0-micro-ONNX-web'
      ])
    );
    for (const model of BUILTIN_MODELS) {
      expect(model.dtypes.length).toBeGreaterThan(0);
      expect(model.revision).not.toBe('');
      expect(Object.keys(model.sizeMB).length).toBeGreaterThan(0);
    }
    expect(BUILTIN_MODELS.find(m => m.id.includes('LFM2'))?.family).toBe(
      'lfm2'
    );
    expect(BUILTIN_MODELS.find(m => m.id.includes('Llama'))?.family).toBe(
      'llama3-json'
    );
  });

  it('gives models without tool-call markers the text protocol', () => {
    const smol = BUILTIN_MODELS.find(m => m.id.includes('SmolLM2'));
    expect(smol?.family).toBe('plain');
    expect(localToolProtocol(smol!)).toBe('text');
    const qwen = BUILTIN_MODELS.find(m => m.id.includes('Qwen3'));
    expect(localToolProtocol(qwen!)).toBe('native');
    // A user's entry without a family is a Hermes one (native tools).
    const { models } = resolveCatalogue([{ id: 'site/own-model' }]);
    expect(
      localToolProtocol(models.find(m => m.id === 'site/own-model')!)
    ).toBe('native');
  });

  it('defaults to the smallest model that calls tools reliably', () => {
    // Qwen2.5-0.5B is smaller but unreliable with tools.
    expect(defaultLocalModel(BUILTIN_MODELS)?.id).toBe(
      'onnx-community/Qwen3-0.6B-ONNX'
    );
    expect(findLocalModel(BUILTIN_MODELS, '')?.id).toBe(
      'onnx-community/Qwen3-0.6B-ONNX'
    );
    expect(findLocalModel(BUILTIN_MODELS, 'nope')).toBeUndefined();
  });

  it('lets the user change a built-in model and add one', () => {
    const { models, problems } = resolveCatalogue([
      {
        id: 'onnx-community/Qwen2.5-0.5B-Instruct',
        toolsReliable: true,
        revision: 'abc123'
      },
      {
        id: 'site/tiny-llama',
        family: 'llama3-json',
        dtypes: ['q8'],
        sizeMB: { q8: 5 }
      }
    ]);
    expect(problems).toEqual([]);
    const qwen = models.find(
      m => m.id === 'onnx-community/Qwen2.5-0.5B-Instruct'
    );
    expect(qwen).toMatchObject({
      toolsReliable: true,
      revision: 'abc123',
      family: 'hermes'
    });
    expect(models.find(m => m.id === 'site/tiny-llama')).toMatchObject({
      label: 'site/tiny-llama',
      family: 'llama3-json',
      dtypes: ['q8'],
      toolsReliable: false
    });
    // The edit now makes Qwen2.5-0.5B the smallest reliable one.
    expect(defaultLocalModel(models)?.id).toBe(
      'onnx-community/Qwen2.5-0.5B-Instruct'
    );
    // The built-in list itself is untouched.
    expect(BUILTIN_MODELS.find(m => m.id === qwen?.id)?.toolsReliable).toBe(
      false
    );
  });

  it('ignores invalid entries and says why', () => {
    const { models, problems } = resolveCatalogue([
      'x',
      { label: 'no id' },
      { id: 'a/b', family: 'gpt' },
      { id: 'a/c', dtypes: ['int3'] },
      { id: 'a/d', maxNewTokens: 0 }
    ]);
    expect(models).toHaveLength(BUILTIN_MODELS.length);
    expect(problems).toEqual([
      'localModels[0]: not an object',
      'localModels[1]: "id" is missing',
      'localModels[2] (a/b): unknown family "gpt" (one of hermes, llama3-json, lfm2, plain)',
      'localModels[3] (a/c): "dtypes" must list some of q4f16, q4, q8, fp16, fp32',
      'localModels[4] (a/d): "maxNewTokens" must be a positive integer'
    ]);
  });
});
