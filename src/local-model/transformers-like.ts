/**
 * The parts of `@huggingface/transformers` the worker uses, typed
 * structurally: the browser passes the web build, Node tests the Node build.
 */

/** A tensor, as far as the worker reads it. */
export interface ITensorLike {
  dims: number[];
  /** `cpu`, or `gpu-buffer` for tensors that stay on the GPU. */
  location?: string;
  tolist(): unknown[];
  slice(...ranges: Array<null | number | [number, number]>): ITensorLike;
}

/** What `apply_chat_template(…, { return_dict: true })` returns. */
export interface IEncodedPrompt {
  input_ids: ITensorLike;
  attention_mask: ITensorLike;
}

/** A tokenizer. */
export interface ITokenizerLike {
  /** Tokenize text (transformers.js tokenizers are callable). */
  (text: string, options: Record<string, unknown>): IEncodedPrompt;
  apply_chat_template(
    conversation: unknown[],
    options: Record<string, unknown>
  ): unknown;
  decode(
    ids: Array<number | bigint>,
    options?: Record<string, unknown>
  ): string;
  eos_token?: string | null;
  eos_token_id?: number | null;
  /** The ids of the added tokens marked special. */
  all_special_ids?: number[];
}

/** The cache `generate` returns with `return_dict_in_generate`. */
export interface IPastKeyValuesLike {
  get_seq_length(): number;
  dispose(): Promise<void> | void;
}

/** A causal language model. */
export interface ICausalLMLike {
  generate(options: Record<string, unknown>): Promise<unknown>;
  forward(inputs: Record<string, unknown>): Promise<unknown>;
  dispose(): Promise<unknown>;
  /** generation_config.json, as loaded. */
  readonly generation_config?: {
    eos_token_id?: number | number[] | null;
  } | null;
}

/** The library. */
export interface ITransformersLike {
  env: {
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    remoteHost: string;
    remotePathTemplate: string;
    localModelPath: string;
    useBrowserCache: boolean;
    /** The fetch transformers.js downloads with (4.x). */
    fetch?: (input: unknown, init?: unknown) => Promise<unknown>;
    backends: { onnx: { wasm?: { wasmPaths?: unknown } } };
  };
  AutoTokenizer: {
    from_pretrained(
      id: string,
      options?: Record<string, unknown>
    ): Promise<ITokenizerLike>;
  };
  AutoModelForCausalLM: {
    from_pretrained(
      id: string,
      options?: Record<string, unknown>
    ): Promise<ICausalLMLike>;
  };
  TextStreamer: new (
    tokenizer: ITokenizerLike,
    options: Record<string, unknown>
  ) => unknown;
  DynamicCache: new (
    entries: Record<string, ITensorLike>
  ) => IPastKeyValuesLike;
  InterruptableStoppingCriteria: new () => {
    interrupt(): void;
    reset(): void;
  };
}
