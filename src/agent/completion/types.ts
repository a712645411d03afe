/**
 * Inline completion's sources, as the core sees them: something that turns a
 * prompt (already in the model family's fill-in-the-middle format, see
 * fim-prompt.ts) into streamed text, and stops its work when asked. The
 * endpoint source (the server proxy's `v1/completions`, completion-client.ts)
 * and the in-browser model (LocalModelClient) both implement it.
 */

/** One completion request. */
export interface ICompletionRequest {
  /** The whole prompt: FIM tokens included when the format has them. */
  prompt: string;
  /**
   * The text after the cursor, for servers that take it as a field (the
   * `suffix` of the completions API); absent when `prompt` holds it.
   */
  suffix?: string;
  /** Strings at which the model stops (not included in the text). */
  stop: string[];
  /** Most tokens to generate. */
  maxTokens: number;
}

/** Where completions come from. */
export interface ICompletionSource {
  /** The model's name (it picks the FIM format). */
  readonly model: string;
  /**
   * Stream the completion's text as it is generated. Aborting `signal`
   * ends the stream and stops the work where it runs (the upstream request
   * is closed, the worker interrupts its generation).
   */
  complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string>;
  /**
   * For a source that must load first (the in-browser model): null when it
   * can answer now, else why not, in words; asking starts the load, so the
   * first keystrokes do not wait on it (a suggestion that took the load's
   * minute would come long after the typing it was for).
   */
  notReady?(): string | null;
}
