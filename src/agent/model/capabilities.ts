/**
 * What a model can do: native tool calling, vision, parallel tool calls, and
 * the size of its context (in tokens). Defaults come from a table of well-known model names;
 * the user's settings override them.
 */

/** How the agent talks to a model about tools. */
export type ToolProtocol = 'native' | 'text';

/** A model's capabilities. */
export interface IModelCapabilities {
  /** `native`: OpenAI tool calls; `text`: fenced code blocks (loop/text-protocol.ts). */
  tools: ToolProtocol;
  vision: boolean;
  parallelToolCalls: boolean;
  /** Context window in tokens. */
  contextTokens: number;
}

/** What an unknown model is assumed to do. */
export const UNKNOWN_MODEL: IModelCapabilities = {
  tools: 'native',
  vision: false,
  parallelToolCalls: false,
  contextTokens: 32768
};

/** Known model families, matched in order on the lower-cased model name. */
const TABLE: ReadonlyArray<[RegExp, Partial<IModelCapabilities>]> = [
  [
    /gpt-4\.1|gpt-5|o[34](-mini)?\b/,
    { vision: true, parallelToolCalls: true, contextTokens: 128000 }
  ],
  [/gpt-4o/, { vision: true, parallelToolCalls: true, contextTokens: 128000 }],
  [/gpt-3\.5/, { parallelToolCalls: true, contextTokens: 16385 }],
  [/claude/, { vision: true, parallelToolCalls: true, contextTokens: 200000 }],
  [/gemini/, { vision: true, parallelToolCalls: true, contextTokens: 1000000 }],
  [
    /qwen.*vl|llava|llama-?3\.2.*vision|pixtral|gemma-?3/,
    { vision: true, contextTokens: 32768 }
  ],
  [/qwen-?3|qwen2\.5/, { parallelToolCalls: true, contextTokens: 32768 }],
  [/llama-?3\.[123]/, { contextTokens: 128000 }],
  [/mistral|mixtral|ministral/, { contextTokens: 32768 }],
  [/deepseek/, { contextTokens: 64000 }],
  // Small or older models that cannot call tools reliably: use the text protocol.
  [
    /smollm|phi-?[23]|gemma-?2|tinyllama|llama-?2|codellama|starcoder/,
    { tools: 'text', contextTokens: 4096 }
  ]
];

/** The defaults for `model` (a name such as "gpt-4o-mini" or "qwen2.5:7b"). */
export function capabilitiesFor(model: string): IModelCapabilities {
  const name = model.toLowerCase();
  for (const [pattern, caps] of TABLE) {
    if (pattern.test(name)) {
      return { ...UNKNOWN_MODEL, ...caps };
    }
  }
  return { ...UNKNOWN_MODEL };
}
