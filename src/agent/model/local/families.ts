/**
 * How each model family marks tool calls and thinking in its raw output.
 *
 * Local models stream text, not OpenAI deltas: the chat template teaches
 * them a family-specific syntax, which `tool-call-parser.ts` turns back into
 * the deltas remote servers send. Decoding keeps special tokens, because in
 * some families (LFM2) the markers themselves are special tokens.
 */

/** The tool-call syntaxes the parser understands. */
export type ToolCallFamily = 'hermes' | 'llama3-json' | 'lfm2' | 'plain';

/** A delimited tool-call block and how its body is written. */
export interface ICallBlock {
  start: string;
  end: string;
  /** `json`: one object (or an array); `pythonic`: `[name(a=1), …]`, JSON also accepted. */
  body: 'json' | 'pythonic';
}

/** One family's markers. */
export interface IFamilySyntax {
  /** Delimited call blocks. */
  blocks: ICallBlock[];
  /**
   * Llama 3.x: a turn that begins with a JSON object (after whitespace) is a
   * tool call, `{"name": …, "parameters": {…}}`.
   */
  bareJsonAtStart: boolean;
  /** Tokens after which JSON calls follow (Llama's `<|python_tag|>`). */
  jsonPrefixes: string[];
}

/** Thinking delimiters (Qwen3, DeepSeek-R1 distills, granite reasoning). */
export const THINK_START = '<think>';
/** End of the thinking block. */
export const THINK_END = '</think>';

/**
 * End-of-turn and padding tokens that decoding with special tokens keeps:
 * they are never part of the answer.
 */
export const DROP_TOKENS: readonly string[] = [
  '<|im_end|>',
  '<|im_start|>',
  '<|endoftext|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|end_of_text|>',
  '<|begin_of_text|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|startoftext|>',
  '<|end_of_role|>',
  '<|start_of_role|>',
  '</s>'
];

const HERMES_BLOCK: ICallBlock = {
  start: '<tool_call>',
  end: '</tool_call>',
  body: 'json'
};

/** The syntax of each family. */
export const FAMILY_SYNTAX: Readonly<Record<ToolCallFamily, IFamilySyntax>> = {
  // Qwen2.5, Qwen3, Hermes, SmolLM3, granite-4.0.
  hermes: { blocks: [HERMES_BLOCK], bareJsonAtStart: false, jsonPrefixes: [] },
  // Llama 3.1–3.3: JSON with `parameters`, optionally after <|python_tag|>.
  'llama3-json': {
    blocks: [],
    bareJsonAtStart: true,
    jsonPrefixes: ['<|python_tag|>']
  },
  // LFM2: pythonic calls between special tokens.
  lfm2: {
    blocks: [
      {
        start: '<|tool_call_start|>',
        end: '<|tool_call_end|>',
        body: 'pythonic'
      },
      HERMES_BLOCK
    ],
    bareJsonAtStart: false,
    jsonPrefixes: []
  },
  // No tool calls known: text (and thinking) only.
  plain: { blocks: [], bareJsonAtStart: false, jsonPrefixes: [] }
};
