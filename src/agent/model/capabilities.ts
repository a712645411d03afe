/**
 * What a model can do: native tool calling, vision, parallel tool calls, and
 * the size of its context (in tokens). Defaults come from a table of well-known model names;
 * the user's settings override them.
 */

/** How the agent talks to a model about tools. */
export type ToolProtocol = 'native' | 'text';

/** A model's capabilities. */
export interface IModelCapabilities {
  /** `native`: OpenAI tool calls; `text`: fenced code blocks (loop/text-protocol-client.ts). */
  tools: ToolProtocol;
  vision: boolean;
  parallelToolCalls: boolean;
  /** Context window in tokens. */
  contextTokens: number;
  /**
   * `small` for models of a few billion parameters or less: the short
   * prompt, the few tools and the compute check (session/run-setup.ts).
   */
  profile: ModelProfile;
}

/** Which prompt profile serves a model. */
export type ModelProfile = 'standard' | 'small';

/** Models this size or smaller (in billions of parameters) get the small profile. */
export const SMALL_MODEL_MAX_B = 4;

/** What an unknown model is assumed to do. */
export const UNKNOWN_MODEL: IModelCapabilities = {
  tools: 'native',
  vision: false,
  parallelToolCalls: false,
  contextTokens: 32768,
  profile: 'standard'
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
  const profile = profileOf(name);
  // Small models write code blocks more reliably than tool calls (measured:
  // docs/evaluation.md, "Real models"), and without tool schemas the prompt is short.
  let caps: IModelCapabilities = {
    ...UNKNOWN_MODEL,
    profile,
    tools: profile === 'small' ? 'text' : 'native'
  };
  for (const [pattern, known] of TABLE) {
    if (pattern.test(name)) {
      caps = { ...caps, ...known };
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

/**
 * The profile a model name implies: `small` when it states a size of at
 * most SMALL_MODEL_MAX_B billion parameters ("qwen2.5-coder:1.5b",
 * "Qwen2.5-Coder-0.5B-Instruct-Q8_0.gguf", "llama3.2:1b", "smollm2-135m",
 * "gemma-3-270m") or names a family that only comes small.
 */
export function profileOf(name: string): ModelProfile {
  const lower = name.toLowerCase();
  if (/smollm|tinyllama|phi-?[23]-mini|qwen2?\.?5?-?0\.5b/.test(lower)) {
    return 'small';
  }
  const billions = statedBillions(lower);
  return billions !== null && billions <= SMALL_MODEL_MAX_B
    ? 'small'
    : 'standard';
}

/**
 * The size a model name states, in billions of parameters ("1.5b" → 1.5,
 * "135m" → 0.135), or null when it states none. Digits then b or m, not
 * inside a longer word ("8x7b" is not 7B).
 */
export function statedBillions(name: string): number | null {
  const sizes = [
    ...name.toLowerCase().matchAll(/(?<![\w.])(\d+(?:\.\d+)?)([bm])(?![a-z])/g)
  ];
  for (const [, digits, unit] of sizes) {
    const billions = unit === 'm' ? Number(digits) / 1000 : Number(digits);
    if (Number.isFinite(billions) && billions > 0) {
      return billions;
    }
  }
  return null;
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
  if (value.profile === 'standard' || value.profile === 'small') {
    out.profile = value.profile;
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
