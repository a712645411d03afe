/**
 * The run side of a chat session: one task at a time (a prompt, a
 * generation, a fix), its turns of the agent loop in the chat's
 * conversation, its abort controller and its approvals. AgentSession
 * (session.ts) starts the tasks; SessionStore (session-store.ts) holds the
 * state they change.
 */
import { DEFAULT_APPROVAL_MODE, type ApprovalDecision } from './loop/approval';
import { runAgent, type IRunOutcome } from './loop/run-agent';
import { addAndRunCell } from './loop/text-protocol';
import { describeModelError } from './model/errors';
import type { IModelClient } from './model/types';
import type { INotebookPort } from './ports';
import { ApprovalGate } from './session-approval';
import { applyEvent } from './session-events';
import {
  prepareRun,
  runSettingsOf,
  type IRunSetup,
  type ISessionOptions
} from './session-run-setup';
import { SessionStore, type IRunTarget } from './session-store';
import { ToolRegistry, type ITool } from './tools/registry';
import type { IRunSettings } from './tools/run-state';
import type { IAgentError } from './types';
import type { ITurnOptions } from './workflows/turn-runner';

const NO_NOTEBOOK: IAgentError = {
  kind: 'no-notebook',
  message: 'No notebook is open: Notebook Agent works in the active notebook.',
  hint: 'Open or create a notebook (File > New > Notebook), click into it, and ask again.'
};

/**
 * Runs one turn of a task for `prompt`; `undoGroup` false when the task
 * groups the turn's edits itself.
 */
export type TaskTurn = (
  prompt: string,
  options?: ITurnOptions,
  undoGroup?: boolean
) => Promise<IRunOutcome>;

/** The body of a task: its turns in `notebook`, until `signal` aborts. */
export type TaskWork<T> = (
  turn: TaskTurn,
  notebook: INotebookPort,
  signal: AbortSignal
) => Promise<T>;

/** A chat session that runs tasks, one at a time. */
export class SessionRunner extends SessionStore {
  private _controller: AbortController | null = null;
  private _approvals = new ApprovalGate(request =>
    this._set({ pendingApproval: request })
  );
  private _textTools = new ToolRegistry([addAndRunCell] as ITool<never>[]);

  constructor(private readonly _options: ISessionOptions) {
    super();
  }

  /** Answer the pending approval request (approve, approve edited code, or reject). */
  resolveApproval(decision: ApprovalDecision): void {
    this._approvals.resolve(decision);
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

  /**
   * Run a task of one or more turns with one model and notebook; the
   * session is `running` from its start to its end. Null when it cannot
   * start (already running, no notebook, no model): the error is in the state.
   */
  protected _task<T>(
    target: IRunTarget,
    work: TaskWork<T>
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
    const setup = prepareRun(
      this._options,
      model,
      notebook.path,
      this._textTools
    );
    this._history[0] = setup.system;
    const controller = new AbortController();
    this._controller = controller;
    this._set({ status: 'running', error: null, plan: null, review: null });
    const before = this._state.usage;

    const turn: TaskTurn = (prompt, options = {}, undoGroup = true) =>
      this._turn(
        setup,
        notebook,
        controller.signal,
        prompt,
        options,
        undoGroup
      );

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

  /** The run settings of the next run (the options', or the defaults). */
  protected _runSettings(): IRunSettings {
    return runSettingsOf(this._options);
  }

  /** One turn of the agent loop on `prompt`, shown in the transcript. */
  private async _turn(
    { model, tools }: IRunSetup,
    notebook: INotebookPort,
    signal: AbortSignal,
    prompt: string,
    options: ITurnOptions,
    undoGroup: boolean
  ): Promise<IRunOutcome> {
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
      signal,
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
      approve: (request, approvalSignal) =>
        this._approvals.ask(request, approvalSignal),
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
}
