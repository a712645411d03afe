/**
 * AgentSession: one chat and its runs. The state the UI reads and the
 * saved-chat handling live in SessionStore (session-store.ts); this class
 * runs prompts and the Generate / Fix workflows, asks for approvals, and
 * owns the abort controller of the run in progress.
 */
import { smallModelSystemPrompt } from './context/small-model-prompt';
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
import type { IChatRecord } from './chat-record';
import {
  attachmentContext,
  variableInspectionCode,
  variableMentions,
  type IAttachments
} from './context/attachments';
import { applyEvent } from './session-events';
import {
  SessionStore,
  type IFixReview,
  type IModelChoice,
  type IRunTarget,
  type ISessionState,
  type TranscriptItem
} from './session-store';

export type {
  IFixReview,
  IModelChoice,
  IRunTarget,
  ISessionState,
  TranscriptItem
};
import type { IAgentError } from './types';
// The workflows load when first used (a fix, a generation), not at start-up.
import type { IFixResult } from './workflows/fix-cell';
import type {
  IAttachedFile,
  IGenerateResult
} from './workflows/generate-notebook';
import type { ITurnOptions } from './workflows/turn-runner';

const NO_NOTEBOOK: IAgentError = {
  kind: 'no-notebook',
  message: 'No notebook is open: Notebook Agent works in the active notebook.',
  hint: 'Open or create a notebook (File > New > Notebook), click into it, and ask again.'
};

/** The state of one chat. */
export class AgentSession extends SessionStore {
  private _resolveApproval: ((decision: ApprovalDecision) => void) | null =
    null;
  private _controller: AbortController | null = null;
  /** The notebook a pending review belongs to. */
  private _reviewNotebook: INotebookPort | null = null;
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
      /**
       * `small` for small local models: the short prompt and the few tools
       * of `smallTools` (they lose track of long instructions and tool lists).
       */
      profile?: () => 'standard' | 'small';
      /** False for models that garble several tool calls in one turn: the prompt asks for one. */
      parallelToolCalls?: () => boolean;
      smallTools?: ToolRegistry;
    }
  ) {
    super();
  }

  /**
   * Start a run for `prompt`. Returns null without changing the transcript
   * when the run cannot start (no notebook, no model configured, already
   * running): the error is in the state and the prompt should be kept.
   */
  send(
    prompt: string,
    target: IRunTarget,
    attachments: IAttachments = {}
  ): Promise<IRunOutcome | undefined> | null {
    const text = prompt.trim();
    if (!text) {
      return null;
    }
    return this._task(target, async (turn, notebook, signal) => {
      const names = variableMentions(text);
      const variables = names.length
        ? await describeVariables(notebook, names, signal)
        : '';
      const attached = [
        ...(attachments.files ?? []).map(file => file.name),
        ...(attachments.cells ?? []).map(cell => `cell ${cell.index}`)
      ];
      return turn(text + attachmentContext(attachments, variables), {
        display: attached.length ? `${text}\n📎 ${attached.join(', ')}` : text
      });
    });
  }

  /**
   * Generate a notebook in `target.notebook` (new and empty) from `request`,
   * then verify it (restart, run all) and repair it until it runs from the
   * top. Null when it cannot start (see `send`).
   */
  generate(
    request: string,
    target: IRunTarget,
    options: {
      attachments?: ReadonlyArray<IAttachedFile>;
      /** E.g. `run-everything` when the user chose that for this new notebook. */
      approvalMode?: ApprovalMode;
    } = {}
  ): Promise<IGenerateResult | undefined> | null {
    if (!request.trim()) {
      return null;
    }
    return this._task(target, async (turn, notebook, signal) =>
      (await import('./workflows/generate-notebook')).generateNotebook({
        notebook,
        request,
        attachments: options.attachments,
        runTurn: (prompt, turnOptions) =>
          turn(prompt, { ...turnOptions, approvalMode: options.approvalMode }),
        runOptions: {
          signal,
          hardTimeoutMs: this._runSettings().hardTimeoutMs
        },
        onVerification: event => {
          if (event.type === 'start') {
            this._notice(
              'Verifying: restarting the kernel and running every cell from the top…'
            );
            return;
          }
          const { verification: v, willRepair } = event;
          this._notice(
            v.ok
              ? `Verified: the kernel restarted and all ${v.total} code cells ran without error.`
              : `Verification failed at code cell ${(v.failure?.index ?? v.ran) + 1} of ${v.total}` +
                  (willRepair ? ': asking the agent to fix it.' : '.')
          );
        }
      })
    );
  }

  /**
   * Fix a code cell: the agent edits and reruns (bounded attempts), then
   * the changes wait in `review` for Accept or Reject. Null when it cannot
   * start (see `send`).
   */
  fixCell(
    cellId: string,
    target: IRunTarget,
    options: { maxAttempts?: number } = {}
  ): Promise<IFixResult | undefined> | null {
    return this._task(target, async (turn, notebook, signal) => {
      const { DEFAULT_FIX_ATTEMPTS, FIX_ALWAYS_ASK, fixCell } =
        await import('./workflows/fix-cell');
      // One undo step for the whole fix, however many turns it takes.
      notebook.beginUndoGroup();
      let result: IFixResult;
      try {
        result = await fixCell({
          notebook,
          cellId,
          maxAttempts: options.maxAttempts ?? DEFAULT_FIX_ATTEMPTS,
          runTurn: (prompt, turnOptions) =>
            turn(prompt, { ...turnOptions, alwaysAsk: FIX_ALWAYS_ASK }, false),
          runOptions: {
            signal,
            hardTimeoutMs: this._runSettings().hardTimeoutMs
          }
        });
      } finally {
        notebook.endUndoGroup();
      }
      if (result.changes.length || result.status !== 'fixed') {
        this._reviewNotebook = notebook;
        this._set({
          review: {
            cellId,
            status: result.status,
            attempts: result.attempts,
            changes: result.changes,
            problem: result.problem
          }
        });
      }
      return result;
    });
  }

  /** Keep the reviewed fix. */
  acceptReview(): void {
    this._reviewNotebook = null;
    this._set({ review: null });
  }

  /**
   * Undo the reviewed fix: every source the agent changed is restored byte
   * for byte, its added cells are removed. Resolves with the ids it could
   * not restore (the user changed them meanwhile).
   */
  async rejectReview(): Promise<string[]> {
    const review = this._state.review;
    const notebook = this._reviewNotebook;
    this.acceptReview();
    if (!review || !notebook) {
      return [];
    }
    const { revertChanges } = await import('./workflows/cell-changes');
    notebook.beginUndoGroup();
    try {
      const failed = await revertChanges(notebook, review.changes);
      this._notice(
        failed.length
          ? `Rejected, but ${failed.length} cell(s) could not be restored: ${failed.join(', ')}.`
          : 'Rejected: the cells are back as they were.'
      );
      return failed;
    } finally {
      notebook.endUndoGroup();
    }
  }

  /**
   * Run a task of one or more turns with one model and notebook; the
   * session is `running` from its start to its end.
   */
  private _task<T>(
    target: IRunTarget,
    work: (
      turn: (
        prompt: string,
        options?: ITurnOptions,
        undoGroup?: boolean
      ) => Promise<IRunOutcome>,
      notebook: INotebookPort,
      signal: AbortSignal
    ) => Promise<T>
  ): Promise<T | undefined> | null {
    if (this._state.status === 'running') {
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
    this._notebookPath = notebook.path;
    const protocol = this._options.toolProtocol?.() ?? 'native';
    const small =
      this._options.profile?.() === 'small' && !!this._options.smallTools;
    const tools =
      protocol === 'text'
        ? this._textTools
        : small
          ? this._options.smallTools!
          : this._options.tools;
    if (protocol === 'text') {
      model = new TextProtocolClient(model);
    }
    const toolNames = tools.specs.map(t => t.name);
    this._history[0] = {
      role: 'system',
      content:
        small && protocol !== 'text'
          ? smallModelSystemPrompt({ notebookPath: notebook.path, toolNames })
          : systemPrompt({
              notebookPath: notebook.path,
              protocol,
              toolNames,
              oneToolPerTurn: this._options.parallelToolCalls?.() === false
            })
    };
    const controller = new AbortController();
    this._controller = controller;
    this._set({ status: 'running', error: null, plan: null, review: null });
    const before = this._state.usage;

    const turn = async (
      prompt: string,
      options: ITurnOptions = {},
      undoGroup = true
    ): Promise<IRunOutcome> => {
      this._history.push({ role: 'user', content: prompt });
      this._set({
        error: null,
        items: [
          ...this._state.items,
          { kind: 'user', id: this._id(), text: options.display ?? prompt }
        ]
      });
      const outcome = await runAgent({
        model,
        tools,
        notebook,
        messages: this._history,
        signal: controller.signal,
        maxSteps: this._options.maxSteps?.(),
        approvalMode:
          options.approvalMode ??
          this._options.approvalMode?.() ??
          DEFAULT_APPROVAL_MODE,
        runSettings: this._runSettings(),
        contextTokens: this._options.contextTokens?.(),
        vision: this._options.vision?.(),
        undoGroup,
        alwaysAsk: options.alwaysAsk,
        approvedCells: options.approvedCells,
        knownCells: options.knownCells,
        approve: (request, signal) => this._askApproval(request, signal),
        onEvent: event => {
          this._set(applyEvent(this._state, event, () => this._id()));
          if (event.type === 'end') {
            this._set({ error: event.error ?? null, pendingApproval: null });
          }
        }
      });
      if (outcome.error?.kind === 'unknown-model' && model.listModels) {
        void this._suggestModels(model.listModels.bind(model), outcome.error);
      }
      return outcome;
    };

    return work(turn, notebook, controller.signal)
      .catch((error: unknown) => {
        this._set({
          error: {
            kind: 'unknown',
            message: error instanceof Error ? error.message : String(error),
            hint: 'Nothing of yours was removed; check the notebook, then try again.'
          }
        });
        return undefined;
      })
      .finally(() => {
        this._controller = null;
        const after = this._state.usage;
        this._set({
          status: 'idle',
          pendingApproval: null,
          lastTurn: {
            promptTokens: after.promptTokens - before.promptTokens,
            completionTokens: after.completionTokens - before.completionTokens
          }
        });
      });
  }

  /**
   * Send the last request again, after an error (a bad key fixed, an
   * endpoint back up). An unanswered request is taken back out of the
   * conversation first, so the model does not see it twice.
   */
  retry(target: IRunTarget): Promise<IRunOutcome | undefined> | null {
    const last = [...this._state.items].reverse().find(i => i.kind === 'user');
    if (!last || last.kind !== 'user' || this._state.status === 'running') {
      return null;
    }
    const tail = this._history[this._history.length - 1];
    const prompt = last.text.split('\n📎 ')[0];
    if (tail?.role === 'user' && !tail.observation) {
      this._history.pop();
    }
    return this.send(prompt, target);
  }

  /** Answer the pending approval request (approve, approve edited code, or reject). */
  resolveApproval(decision: ApprovalDecision): void {
    const resolve = this._resolveApproval;
    this._resolveApproval = null;
    this._set({ pendingApproval: null });
    resolve?.(decision);
  }

  /** Reopen a saved chat (refused while a run is in progress). */
  restore(record: IChatRecord): boolean {
    if (!super.restore(record)) {
      return false;
    }
    this._reviewNotebook = null;
    return true;
  }

  /** Forget the conversation (stops a run in progress first); `notebook` names the new chat's notebook. */
  newChat(notebook = this._notebookPath): void {
    this.stop();
    super.newChat(notebook);
  }

  /** Stop the run in progress: aborts the model stream and interrupts a running cell. */
  stop(): void {
    this._controller?.abort();
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

  private _runSettings(): IRunSettings {
    return this._options.runSettings?.() ?? DEFAULT_RUN_SETTINGS;
  }
}

/** What the kernel says about the variables the prompt mentions (silently, briefly). */
async function describeVariables(
  notebook: INotebookPort,
  names: string[],
  signal: AbortSignal
): Promise<string> {
  try {
    const result = await notebook.executeCode(variableInspectionCode(names), {
      silent: true,
      signal,
      softTimeoutMs: 10_000,
      hardTimeoutMs: 20_000
    });
    return result.outputs
      .map(output => (output.type === 'stream' ? output.text : ''))
      .join('')
      .slice(0, 4000);
  } catch {
    // The prompt still goes out; the agent can inspect the variables itself.
    return '';
  }
}
