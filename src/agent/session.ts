/**
 * AgentSession: the state of one chat, as a small external store.
 *
 * The UI reads it with `subscribe()` / `getSnapshot()` (React's
 * `useSyncExternalStore`); each change produces a new immutable snapshot.
 * The session owns the model conversation across turns and the abort
 * controller of the run in progress.
 */
import { systemPrompt } from './context/system-prompt';
import { describeModelError } from './model/errors';
import type { IModelClient } from './model/types';
import {
  DEFAULT_APPROVAL_MODE,
  type ApprovalDecision,
  type ApprovalMode,
  type IApprovalRequest
} from './loop/approval';
import { runAgent, type IRunOutcome } from './loop/run-agent';
import { addAndRunCell, TextProtocolClient } from './loop/text-protocol';
import type { IVisionOptions } from './loop/vision';
import type { ToolProtocol } from './model/capabilities';
import type { INotebookPort } from './ports';
import { ToolRegistry, type ITool } from './tools/registry';
import { DEFAULT_RUN_SETTINGS, type IRunSettings } from './tools/run-state';
import type { AgentEvent, ChatMessage, IAgentError, IUsage } from './types';

/** One entry of the visible transcript. */
export type TranscriptItem =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string }
  | {
      kind: 'tool';
      id: string;
      name: string;
      arguments: string;
      status: 'running' | 'done' | 'error';
      output?: string;
      cellId?: string;
      durationMs?: number;
    }
  | { kind: 'notice'; id: string; text: string };

/** Everything the UI shows. */
export interface ISessionState {
  items: ReadonlyArray<TranscriptItem>;
  status: 'idle' | 'running';
  error: IAgentError | null;
  usage: IUsage;
  /** A call waiting for the user's approval. */
  pendingApproval: IApprovalRequest | null;
}

/** What a run needs from the outside world. */
export interface IRunTarget {
  /** Builds the model client; may throw a `ModelConfigError`. */
  model: () => IModelClient;
  /** The notebook to work in; null when none is open. */
  notebook: INotebookPort | null;
}

const NO_NOTEBOOK: IAgentError = {
  kind: 'no-notebook',
  message: 'No notebook is open: Notebook Agent works in the active notebook.',
  hint: 'Open or create a notebook (File > New > Notebook), click into it, and ask again.'
};

/** The state of one chat. */
export class AgentSession {
  private _state: ISessionState = {
    items: [],
    status: 'idle',
    error: null,
    usage: { promptTokens: 0, completionTokens: 0 },
    pendingApproval: null
  };
  private _resolveApproval: ((decision: ApprovalDecision) => void) | null =
    null;
  private _listeners = new Set<() => void>();
  private _history: ChatMessage[] = [];
  private _controller: AbortController | null = null;
  private _nextId = 0;
  private _textTools = new ToolRegistry([addAndRunCell] as ITool<never>[]);

  constructor(
    private readonly _options: {
      tools: ToolRegistry;
      maxSteps?: () => number;
      approvalMode?: () => ApprovalMode;
      runSettings?: () => IRunSettings;
      contextTokens?: () => number;
      vision?: () => IVisionOptions;
      /** `text` for models without tool calling. */
      toolProtocol?: () => ToolProtocol;
    }
  ) {}

  /** Register a listener; returns the function that removes it. */
  subscribe = (listener: () => void): (() => void) => {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  };

  /** The current immutable snapshot. */
  getSnapshot = (): ISessionState => this._state;

  /** The model conversation (for tests and persistence). */
  get history(): ReadonlyArray<ChatMessage> {
    return this._history;
  }

  /**
   * Start a run for `prompt`. Returns null without changing the transcript
   * when the run cannot start (no notebook, no model configured, already
   * running): the error is in the state and the prompt should be kept.
   */
  send(prompt: string, target: IRunTarget): Promise<IRunOutcome> | null {
    const text = prompt.trim();
    if (!text || this._state.status === 'running') {
      return null;
    }
    if (!target.notebook) {
      this._set({ error: NO_NOTEBOOK });
      return null;
    }
    let model: IModelClient;
    try {
      model = target.model();
    } catch (error) {
      this._set({ error: describeModelError(error) });
      return null;
    }
    const notebook = target.notebook;
    const protocol = this._options.toolProtocol?.() ?? 'native';
    const tools = protocol === 'text' ? this._textTools : this._options.tools;
    if (protocol === 'text') {
      model = new TextProtocolClient(model);
    }
    this._history[0] = {
      role: 'system',
      content: systemPrompt({
        notebookPath: notebook.path,
        protocol,
        toolNames: tools.specs.map(t => t.name)
      })
    };
    this._history.push({ role: 'user', content: text });
    const controller = new AbortController();
    this._controller = controller;
    this._set({
      status: 'running',
      error: null,
      items: [...this._state.items, { kind: 'user', id: this._id(), text }]
    });
    return runAgent({
      model,
      tools,
      notebook,
      messages: this._history,
      signal: controller.signal,
      maxSteps: this._options.maxSteps?.(),
      approvalMode: this._options.approvalMode?.() ?? DEFAULT_APPROVAL_MODE,
      runSettings: this._options.runSettings?.() ?? DEFAULT_RUN_SETTINGS,
      contextTokens: this._options.contextTokens?.(),
      vision: this._options.vision?.(),
      approve: (request, signal) => this._askApproval(request, signal),
      onEvent: event => this._apply(event)
    })
      .then(outcome => {
        if (outcome.error?.kind === 'unknown-model' && model.listModels) {
          void this._suggestModels(model.listModels.bind(model), outcome.error);
        }
        return outcome;
      })
      .finally(() => {
        this._controller = null;
      });
  }

  /** Answer the pending approval request (approve, approve edited code, or reject). */
  resolveApproval(decision: ApprovalDecision): void {
    const resolve = this._resolveApproval;
    this._resolveApproval = null;
    this._set({ pendingApproval: null });
    resolve?.(decision);
  }

  /** Stop the run in progress: aborts the model stream and interrupts a running cell. */
  stop(): void {
    this._controller?.abort();
  }

  /** Forget the conversation (stops a run in progress first). */
  newChat(): void {
    this.stop();
    this._history = [];
    this._set({
      items: [],
      status: 'idle',
      error: null,
      usage: { promptTokens: 0, completionTokens: 0 },
      pendingApproval: null
    });
  }

  /** Show an error that happened outside a run. */
  reportError(error: IAgentError | null): void {
    this._set({ error });
  }

  /** Add the endpoint's models to an "unknown model" error. */
  private async _suggestModels(
    list: () => Promise<string[]>,
    error: IAgentError
  ): Promise<void> {
    try {
      const models = (await list()).slice(0, 20);
      if (models.length && this._state.error === error) {
        this._set({
          error: {
            ...error,
            hint: `${error.hint} Available: ${models.join(', ')}.`
          }
        });
      }
    } catch {
      // The list is a nicety; the error already says what to do.
    }
  }

  private _askApproval(
    request: IApprovalRequest,
    signal: AbortSignal
  ): Promise<ApprovalDecision> {
    return new Promise(resolve => {
      this._resolveApproval = resolve;
      this._set({ pendingApproval: request });
      signal.addEventListener('abort', () => {
        if (this._resolveApproval === resolve) {
          this.resolveApproval({ approved: false, reason: 'stopped' });
        }
      });
    });
  }

  private _apply(event: AgentEvent): void {
    const items = [...this._state.items];
    switch (event.type) {
      case 'text-delta': {
        const last = items[items.length - 1];
        if (last?.kind === 'assistant') {
          items[items.length - 1] = { ...last, text: last.text + event.text };
        } else {
          items.push({ kind: 'assistant', id: this._id(), text: event.text });
        }
        this._set({ items });
        return;
      }
      case 'tool-call':
        items.push({
          kind: 'tool',
          id: event.call.id,
          name: event.call.name,
          arguments: event.call.arguments,
          status: 'running'
        });
        this._set({ items });
        return;
      case 'tool-result': {
        // Search from the end: some servers reuse call ids across turns.
        let index = items.length - 1;
        while (
          index >= 0 &&
          !(items[index].kind === 'tool' && items[index].id === event.callId)
        ) {
          index -= 1;
        }
        const item = items[index];
        if (item?.kind === 'tool') {
          items[index] = {
            ...item,
            status: event.result.ok ? 'done' : 'error',
            output: event.result.preview ?? event.result.output,
            cellId: event.result.cellId,
            durationMs: event.durationMs
          };
        }
        this._set({ items });
        return;
      }
      case 'usage': {
        const usage = this._state.usage;
        this._set({
          usage: {
            promptTokens: usage.promptTokens + event.usage.promptTokens,
            completionTokens:
              usage.completionTokens + event.usage.completionTokens
          }
        });
        return;
      }
      case 'end': {
        const notice =
          event.reason === 'stopped'
            ? 'Stopped.'
            : event.reason === 'step-limit'
              ? 'Stopped: the step limit was reached. Ask to continue, or raise the limit in the settings.'
              : event.reason === 'repeated-failure'
                ? `Stopped: the same error happened three times in a row (${event.detail}). ` +
                  'Check the cells above, then ask again with more detail.'
                : null;
        if (notice) {
          items.push({ kind: 'notice', id: this._id(), text: notice });
        }
        this._set({
          items,
          status: 'idle',
          error: event.error ?? null,
          pendingApproval: null
        });
        return;
      }
      default:
        return;
    }
  }

  private _set(patch: Partial<ISessionState>): void {
    this._state = { ...this._state, ...patch };
    for (const listener of this._listeners) {
      listener();
    }
  }

  private _id(): string {
    this._nextId += 1;
    return `item-${this._nextId}`;
  }
}
