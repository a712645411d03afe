/**
 * The server's model providers as the browser may see them (the
 * `notebook-agent/config` route's answer, never a key): what the sidebar's
 * picker lists, the glue reads and the public token gives other extensions.
 */

/** One provider profile of the server, as the browser may see it. */
export interface IProviderInfo {
  name: string;
  kind: string;
  baseUrl: string;
  models: string[];
  defaultModel: string | null;
  hasKey: boolean;
  /** Where its key comes from: `user`, `config`, `env`, or null. */
  keySource: string | null;
  /** False for a key-less endpoint (a local server configured without a key): no "Set API key…". */
  takesKey: boolean;
  /** A model server the Jupyter server found on its machine (not configured), else null. */
  found: IFoundServer | null;
}

/** A local model server the Jupyter server found on loopback (discovery). */
export interface IFoundServer {
  /** What it is: `Ollama`, `LM Studio`, `llama.cpp`, `vLLM`, or a description with its port. */
  label: string;
  port: number;
  models: string[];
}
