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

/**
 * The user's corrections, by model name: an exact name ("qwen2.5:7b") or a
 * pattern with `*` ("llama3*"). The most specific (longest) matching key wins.
 */
export type CapabilityOverrides = Record<string, Partial<IModelCapabilities>>;

/** The capabilities of `model` (a name such as "gpt-4o-mini" or "qwen2.5:7b"). */
export function capabilitiesFor(
  model: string,
  overrides: CapabilityOverrides = {}
): IModelCapabilities {
  const name = model.toLowerCase();
  let caps: IModelCapabilities = { ...UNKNOWN_MODEL };
  for (const [pattern, known] of TABLE) {
    if (pattern.test(name)) {
      caps = { ...UNKNOWN_MODEL, ...known };
      break;
    }
  }
  const matching = Object.keys(overrides)
    .filter(key => globMatches(key.toLowerCase(), name))
    .sort((a, b) => a.length - b.length);
  for (const key of matching) {
    caps = { ...caps, ...validOverride(overrides[key]) };
  }
  return caps;
}

function globMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) {
    return pattern === name;
  }
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*/g, '.*')}$`).test(name);
}

/** Keep only well-typed fields: a typo in the settings must not break requests. */
function validOverride(
  value: Partial<IModelCapabilities> | undefined
): Partial<IModelCapabilities> {
  const out: Partial<IModelCapabilities> = {};
  if (!value || typeof value !== 'object') {
    return out;
  }
  if (value.tools === 'native' || value.tools === 'text') {
    out.tools = value.tools;
  }
  if (typeof value.vision === 'boolean') {
    out.vision = value.vision;
  }
  if (typeof value.parallelToolCalls === 'boolean') {
    out.parallelToolCalls = value.parallelToolCalls;
  }
  if (
    typeof value.contextTokens === 'number' &&
    Number.isFinite(value.contextTokens) &&
    value.contextTokens >= 1024
  ) {
    out.contextTokens = Math.floor(value.contextTokens);
  }
  return out;
}
