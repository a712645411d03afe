/**
 * What the worker asks of the tokenizer: a conversation rendered by the
 * chat template (a begun reply continued, not closed), a completion's
 * prompt as raw text, the tokens that end a completion, and whether the
 * template opens a thinking block. Pure functions of the tokenizer (and the
 * model's generation config), tested without a worker.
 */
import type {
  ICausalLMLike,
  IEncodedPrompt,
  ITokenizerLike
} from './transformers-like';

/** Whether the template's generation prompt opens a `<think>` block. */
export function startsInThinking(tokenizer: ITokenizerLike): boolean {
  try {
    const text = tokenizer.apply_chat_template(
      [{ role: 'user', content: 'x' }],
      { add_generation_prompt: true, tokenize: false }
    );
    return typeof text === 'string' && /<think>\s*$/.test(text);
  } catch {
    return false;
  }
}

/**
 * A completion's prompt, tokenized as plain text: no chat template. The
 * tokenizer splits out the added tokens written in it (`<|fim_prefix|>`
 * becomes its one id, not the characters' pieces), and its post-processor
 * adds what it adds to any plain text: a BOS for tokenizers that begin every
 * text with one (Llama 3's), nothing for byte-level ones without (Qwen's,
 * SmolLM2's), as `tokenizer(text)` does in Python.
 */
export function encodeRaw(
  tokenizer: ITokenizerLike,
  prompt: string
): IEncodedPrompt {
  return tokenizer(prompt, { add_special_tokens: true, return_tensor: true });
}

/**
 * The tokens that end a completion, none of which is shown: the model's end
 * tokens (generation_config.json, where generate() stops too), the
 * tokenizer's, and every special token (code has none, and a FIM model ends
 * its middle with one: Qwen's `<|endoftext|>`, `<|fim_pad|>`, `<|file_sep|>`).
 */
export function endTokenIds(
  tokenizer: ITokenizerLike,
  model: ICausalLMLike
): Set<number> {
  const eos = model.generation_config?.eos_token_id;
  return new Set(
    [
      ...(Array.isArray(eos)
        ? eos
        : eos === undefined || eos === null
          ? []
          : [eos]),
      ...(typeof tokenizer.eos_token_id === 'number'
        ? [tokenizer.eos_token_id]
        : []),
      ...(tokenizer.all_special_ids ?? [])
    ].map(Number)
  );
}

/**
 * The prompt of a conversation, as the chat template renders it, with the
 * generation prompt. A conversation that ends with an assistant message
 * ends with the start of the reply (a prefill: the text protocol begins a
 * code block, or the answer line the request asked for), which the reply
 * continues, as llama-server and Ollama do: the begun reply follows the
 * generation prompt. (Rendered as it is, the chat template closes it as a
 * finished turn and opens a new one; Qwen2.5-Coder-0.5B then answered
 * afresh, and never got the code block or the answer line it was begun.)
 */
export function encodePrompt(
  tokenizer: ITokenizerLike,
  messages: unknown[],
  tools: unknown[]
): IEncodedPrompt {
  const options = {
    ...(tools.length ? { tools } : {}),
    add_generation_prompt: true
  };
  const last = messages[messages.length - 1] as
    { role?: unknown; content?: unknown } | undefined;
  if (
    last?.role !== 'assistant' ||
    typeof last.content !== 'string' ||
    !last.content
  ) {
    return tokenizer.apply_chat_template(messages, {
      ...options,
      return_dict: true
    }) as IEncodedPrompt;
  }
  const rendered = tokenizer.apply_chat_template(messages.slice(0, -1), {
    ...options,
    tokenize: false
  }) as string;
  // As apply_chat_template tokenizes what it renders.
  return tokenizer(rendered + last.content, {
    add_special_tokens: false,
    return_tensor: true
  });
}
