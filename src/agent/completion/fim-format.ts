/**
 * Fill-in-the-middle formats: the special tokens each code-model family was
 * trained with, so the model sees the text before *and* after the cursor.
 * The family comes from the model's name; a model of no known family gets
 * plain completion (the text before the cursor, continued).
 */

/** How one family writes a fill-in-the-middle prompt. */
export interface IFimFormat {
  /** A name for messages and benchmarks ("qwen", "starcoder", "plain"…). */
  readonly name: string;
  /** Build the prompt from the context before and after the cursor. */
  prompt(before: string, after: string): string;
  /**
   * The family's end and separator tokens: where a completion is over.
   * At most two, so that with the mode's own stop the request stays within
   * the completions API's four.
   */
  readonly stop: readonly string[];
}

function tokens(
  name: string,
  prefix: string,
  suffix: string,
  middle: string,
  stop: readonly string[]
): IFimFormat {
  return {
    name,
    prompt: (before, after) => `${prefix}${before}${suffix}${after}${middle}`,
    stop
  };
}

/** Qwen2.5-Coder, Qwen3-Coder (and CodeGemma's same-named tokens). */
const QWEN = tokens(
  'qwen',
  '<|fim_prefix|>',
  '<|fim_suffix|>',
  '<|fim_middle|>',
  ['<|endoftext|>', '<|file_sep|>']
);

/** StarCoder, StarCoder2, SantaCoder. */
const STARCODER = tokens(
  'starcoder',
  '<fim_prefix>',
  '<fim_suffix>',
  '<fim_middle>',
  ['<|endoftext|>', '<file_sep>']
);

/** DeepSeek-Coder (its tokens use full-width bars and a ▁). */
const DEEPSEEK = tokens(
  'deepseek',
  '<｜fim▁begin｜>',
  '<｜fim▁hole｜>',
  '<｜fim▁end｜>',
  ['<｜end▁of▁sentence｜>', '<|EOT|>']
);

/** Code Llama (the spaces are part of the format). */
const CODELLAMA = tokens('codellama', '<PRE> ', ' <SUF>', ' <MID>', [
  '<EOT>',
  '</s>'
]);

/** Codestral: the suffix comes first. */
const CODESTRAL: IFimFormat = {
  name: 'codestral',
  prompt: (before, after) => `[SUFFIX]${after}[PREFIX]${before}`,
  stop: ['</s>']
};

/** Any other model: continue the text before the cursor. */
export const PLAIN_FORMAT: IFimFormat = {
  name: 'plain',
  prompt: before => before,
  stop: []
};

const FAMILIES: ReadonlyArray<[RegExp, IFimFormat]> = [
  [/qwen[\w.-]*coder|codegemma/, QWEN],
  [/starcoder|santacoder/, STARCODER],
  [/deepseek[\w.-]*coder/, DEEPSEEK],
  [/codellama|code-llama/, CODELLAMA],
  [/codestral/, CODESTRAL]
];

/** The format for `model` (its name as the server knows it). */
export function fimFormatFor(model: string): IFimFormat {
  const lower = model.toLowerCase();
  return FAMILIES.find(([pattern]) => pattern.test(lower))?.[1] ?? PLAIN_FORMAT;
}
