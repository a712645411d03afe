/**
 * Cost estimates (the sidebar and the eval harness): USD per million prompt and completion tokens, by model
 * name. List prices as published by the providers (they change; pass a
 * JSON file with `--prices` to use your own). Local models cost nothing.
 */

/** Price of one model, USD per 1M tokens. */
export interface IPrice {
  prompt: number;
  completion: number;
}

/** Built-in list prices (USD per 1M tokens), matched by name prefix. */
export const DEFAULT_PRICES: Record<string, IPrice> = {
  'gpt-4o-mini': { prompt: 0.15, completion: 0.6 },
  'gpt-4o': { prompt: 2.5, completion: 10 },
  'gpt-4.1-nano': { prompt: 0.1, completion: 0.4 },
  'gpt-4.1-mini': { prompt: 0.4, completion: 1.6 },
  'gpt-4.1': { prompt: 2, completion: 8 },
  'o4-mini': { prompt: 1.1, completion: 4.4 },
  'claude-3-5-haiku': { prompt: 0.8, completion: 4 },
  'claude-sonnet-4': { prompt: 3, completion: 15 },
  'deepseek-chat': { prompt: 0.27, completion: 1.1 },
  'scripted-model': { prompt: 0, completion: 0 },
  smollm2: { prompt: 0, completion: 0 }
};

/** The price of `model`: the longest matching prefix, or null if unknown. */
export function priceOf(
  model: string,
  table: Record<string, IPrice> = DEFAULT_PRICES
): IPrice | null {
  const name = model.toLowerCase();
  const key = Object.keys(table)
    .filter(prefix => name.startsWith(prefix.toLowerCase()))
    .sort((a, b) => b.length - a.length)[0];
  return key ? table[key] : null;
}

/** Estimated USD for the tokens, or null when the price is unknown. */
export function costOf(
  price: IPrice | null,
  promptTokens: number,
  completionTokens: number
): number | null {
  if (!price) {
    return null;
  }
  return (
    (promptTokens * price.prompt + completionTokens * price.completion) / 1e6
  );
}
