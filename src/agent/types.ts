/**
 * Message and event types shared by the headless agent core.
 *
 * These are our own shapes (not the `openai` package's) so the core stays
 * independent of any one client; the OpenAI client converts at its edge.
 */

/** A tool call requested by the model. `arguments` is the raw JSON text it sent. */
export interface IToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One message of the conversation sent to the model. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string;
      /** Images for vision-capable models (plots the agent produced). */
      images?: IImageAttachment[];
      /** True for messages the loop adds (observations), not the user's words. */
      observation?: boolean;
    }
  | {
      role: 'assistant';
      content: string | null;
      toolCalls?: IToolCall[];
      /**
       * An answer the compute check sent back because no code had run: kept
       * in the history, never shown to the model again (it anchored on it).
       */
      guess?: boolean;
    }
  | { role: 'tool'; toolCallId: string; content: string };

/** An image sent to a vision-capable model. */
export interface IImageAttachment {
  mime: string;
  /** Base64, no whitespace. */
  base64: string;
  /** Pixel size, when known. */
  width?: number;
  height?: number;
}

/** Token usage reported by the endpoint, when it reports any. */
export interface IUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Why the model ended its turn. */
export type FinishReason =
  'stop' | 'tool_calls' | 'length' | 'content_filter' | 'unknown';

/** A tool the model may call, as sent in the request. */
export interface IToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** The result of running one tool: the observation the model reads next. */
export interface IToolResult {
  /** False when the tool failed or refused; the text says why. */
  ok: boolean;
  /** The observation, as text for the model. */
  output: string;
  /** The notebook cell the tool acted on, so the UI can link to it. */
  cellId?: string;
  /** What the user sees in the tool card, when it differs from `output`. */
  preview?: string;
  /** Images in the outputs, for vision-capable models. */
  images?: IImageAttachment[];
  /** The plan as the agent last stated it (from `update_plan`). */
  plan?: IPlanStep[];
  /**
   * The code the tool ran was still running when it returned (a soft
   * timeout): the card says "still running", not "done".
   */
  stillRunning?: boolean;
  /**
   * The user rejected the call (nothing ran); `reason`: what they said.
   * `output` is then the message for the model.
   */
  rejected?: { reason?: string };
  /**
   * A file the tool created or replaced: its text before (null: there was
   * none) and after, so one Undo puts it back (session/file-undo.ts).
   */
  fileChange?: IFileChange;
}

/** A file a tool wrote. */
export interface IFileChange {
  /** Relative to the server root. */
  path: string;
  before: string | null;
  after: string;
}

/** A cell the agent ran that is still running in the kernel. */
export interface IRunningCell {
  id: string;
  /** How the user finds it: its position and first line ("cell 2 (import time)"). */
  label: string;
}

/** One step of the agent's plan, shown to the user as a checklist. */
export interface IPlanStep {
  title: string;
  status: 'pending' | 'in-progress' | 'done';
}

/** How a run of the agent ended. */
export type RunEndReason =
  | 'completed'
  | 'stopped'
  | 'step-limit'
  | 'repeated-failure'
  | 'repeated-step'
  | 'no-code'
  | 'error';

/** Classified failure, with a message for the user and what to do about it. */
export interface IAgentError {
  kind:
    | 'not-configured'
    | 'auth'
    | 'unreachable'
    | 'forbidden'
    | 'rate-limit'
    | 'bad-request'
    | 'unknown-model'
    | 'context-overflow'
    | 'server'
    /** The endpoint stopped sending in the middle of an answer. */
    | 'timeout'
    /** The endpoint's answer is not an OpenAI-compatible stream. */
    | 'bad-response'
    | 'no-notebook'
    | 'unknown';
  /** What happened, in the user's terms. */
  message: string;
  /** What the user can do about it. */
  hint: string;
}

/**
 * Events the loop emits while it runs, for its listeners (the CLI, the
 * notebook's saving). Those of a step's items (loop/turn-items.ts
 * `eventOf`) follow the item into the conversation; the session's record
 * holds the items, and reads from events only what is not the
 * conversation (the reply streaming, usage, errors). Approvals are not
 * events: the loop asks through its `approve` callback and waits.
 */
export type AgentEvent =
  | { type: 'text-delta'; text: string }
  /**
   * The notebook starts to run a cell for the run, the kernel not asked yet
   * (the live notebook says so through `AgentSession.cellStarted`, not the
   * loop): the running call's card names it, and the notebook is saved.
   */
  | { type: 'cell-start'; cellId: string }
  | {
      type: 'tool-call';
      call: IToolCall;
      /** What the call does, in words (its tool's `title`): the card's title. */
      title?: string;
      /**
       * The cell the call runs or waits for (`run_cell`, `wait`: its tool's
       * `cellOf`), on its card: a chat reopened mid-run knows which cells
       * its run may have left running without the tools' definitions.
       */
      cellId?: string;
    }
  | {
      type: 'tool-result';
      callId: string;
      result: IToolResult;
      /** How long the call ran, without the time it waited for the user's approval. */
      durationMs: number;
    }
  | { type: 'usage'; usage: IUsage }
  /** A line for the transcript from the loop itself (not the model's words). */
  | { type: 'notice'; text: string }
  /**
   * Older steps were summarised (context/summary.ts): the model now reads
   * `text` instead of `replaced` earlier messages.
   */
  | {
      type: 'context-summary';
      text: string;
      replaced: number;
      tokensBefore: number;
      tokensAfter: number;
    }
  | {
      type: 'end';
      reason: RunEndReason;
      error?: IAgentError;
      detail?: string;
      /** Cells the agent ran that are still running as the run ends. */
      leftRunning?: IRunningCell[];
    };
