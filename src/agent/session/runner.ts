/**
 * The task runner of a chat session: one task at a time (a prompt, a
 * generation, a fix), its turns of the agent loop in the chat's
 * conversation. It changes the session's state only through the store
 * (store.ts), and sets the controls the user acts on (run-controls.ts: the
 * task's abort controller, its approvals, its files' Undo); the facade
 * (agent-session.ts) starts the tasks.
 */
import { runAgent, type IRunOutcome } from '../loop/run-agent';
import type { RunConfig } from '../loop/run-config';
import { addAndRunCell, rewriteAndRunCell } from '../loop/code-block-tools';
import { uncomputedNumbers } from '../context/claims';
import {
  answerFromMultipliedSums,
  multipliedSumsNotice
} from '../context/multiplied-sums';
import {
  claimsChange,
  NO_CHANGE_NOTICE,
  withoutEcho
} from '../context/turn-truth';
import { withProjectRules, type IProjectRules } from '../context/project-rules';
import { describeModelError } from '../model/errors';
import type { IModelClient } from '../model/types';
import type { INotebookPort } from '../ports';
import { ToolRegistry, type ITool } from '../tools/registry';
import type { IRunSettings } from '../tools/run-state';
import type { IAgentError } from '../types';
import type { ITurnOptions } from '../workflows/turn-runner';
import type { RunControls } from './run-controls';
import { prepareRun, runSettingsOf } from './run-setup';
import type { SessionStore } from './store';
import { NO_NOTEBOOK } from './task-refusals';
import type { IRunTarget, ISessionOptions, TaskTurn, TaskWork } from './types';

/** The notebook's cells as one string (types and sources), to tell whether a turn changed any. */
async function cellSources(notebook: INotebookPort): Promise<string> {
  try {
    const cells = await notebook.getCells();
    return JSON.stringify(cells.map(cell => [cell.type, cell.source]));
  } catch {
    return '';
  }
}

/** Runs a session's tasks, one at a time. */
export class TaskRunner {
  constructor(
    private readonly _store: SessionStore,
    private readonly _controls: RunControls,
    private readonly _options: ISessionOptions
  ) {}

  /** Whether a task is running. */
  get running(): boolean {
    return this._store.getSnapshot().status === 'running';
  }

  /** The run settings of the next run (the options', or the defaults). */
  runSettings(): IRunSettings {
    return runSettingsOf(this._options);
  }

  /**
   * Run a task of one or more turns with one model and notebook; the
   * session is `running` from its start to its end. Null when it cannot
   * start (already running, no notebook, no model): the error is in the state.
   */
  task<T>(
    target: IRunTarget,
    work: TaskWork<T>
  ): Promise<T | undefined> | null {
    const store = this._store;
    if (this.running) {
      return null;
    }
    if (!target.notebook) {
      store.reportError(NO_NOTEBOOK);
      return null;
    }
    let model: IModelClient;
    try {
      model = target.model();
    } catch (error) {
      store.reportError(describeModelError(error));
      return null;
    }
    const notebook = target.notebook;
    store.notebookPath = notebook.path;
    // The run's configuration, read once from the options and passed whole.
    const config = prepareRun(
      this._options,
      model,
      notebook.path,
      this._textTools
    );
    store.log.setSystemMessage(config.system);
    if (config.notice) {
      store.notice(config.notice);
    }
    // The rules are read afresh for each task: the first turn waits for them.
    const rulesRead = this._readRules(notebook.path).then(rules => {
      if (config.system.role === 'system' && rules) {
        store.log.setSystemMessage({
          role: 'system',
          content: withProjectRules(config.system.content, rules)
        });
      }
    });
    const controller = new AbortController();
    this._controls.controller = controller;
    store.set({ status: 'running', error: null, plan: null, review: null });
    const before = store.getSnapshot().usage;

    // Where this task's turns begin in the history (`ownHistory`).
    const taskStart = store.history.length;
    const turn: TaskTurn = async (prompt, options = {}, undoGroup = true) => {
      await rulesRead;
      return this._turn(
        config,
        notebook,
        controller.signal,
        prompt,
        options,
        undoGroup,
        taskStart
      );
    };

    return work(turn, notebook, controller.signal, {
      protocol: config.protocol,
      profile: config.profile,
      offers: tool => config.tools.get(tool) !== undefined
    })
      .catch((error: unknown) => {
        store.reportError({
          kind: 'unknown',
          message: error instanceof Error ? error.message : String(error),
          hint: 'Nothing of yours was removed; check the notebook, then try again.'
        });
        return undefined;
      })
      .finally(() => {
        if (this._controls.controller === controller) {
          this._controls.controller = null;
        }
        const after = store.getSnapshot().usage;
        store.set({
          status: 'idle',
          pendingApproval: null,
          lastTurn: {
            promptTokens: after.promptTokens - before.promptTokens,
            completionTokens: after.completionTokens - before.completionTokens
          }
        });
      });
  }

  /** One turn of the agent loop on `prompt`, shown in the transcript. */
  private async _turn(
    config: RunConfig,
    notebook: INotebookPort,
    signal: AbortSignal,
    prompt: string,
    options: ITurnOptions,
    undoGroup: boolean,
    taskStart: number
  ): Promise<IRunOutcome> {
    const store = this._store;
    const start = store.history.length;
    // A Retry sends the prompt again under the line the transcript has; a
    // workflow's own line (status) is a notice, not the user's message.
    store.log.addPrompt(
      { role: 'user', content: prompt },
      options.again
        ? null
        : options.status !== undefined
          ? { kind: 'notice', text: options.status }
          : { kind: 'user', text: options.display ?? prompt }
    );
    store.set({ error: null });
    const before = await cellSources(notebook);
    const outcome = await runAgent(config, {
      notebook,
      conversation: store,
      signal,
      summary: store.context,
      undoGroup,
      scope: options.ownHistory
        ? { ...options, historyFrom: taskStart }
        : options,
      approve: (request, approvalSignal) =>
        this._controls.approvals.ask(request, approvalSignal),
      onEvent: event => {
        if (event.type === 'tool-result' && event.result.fileChange) {
          this._controls.files.record(
            event.callId,
            notebook,
            event.result.fileChange
          );
        }
        store.dispatch(event);
      }
    });
    const { model, tools } = config;
    if (outcome.reason === 'completed') {
      this._markUncomputed(start, tools, outcome);
      this._markMultipliedSums(start, tools);
    }
    // The prompt was the workflow's (the user saw a line of their own or a
    // status): what the model says is checked against it and the notebook.
    if (options.display !== undefined || options.status !== undefined) {
      this._checkWorkflowAnswer(
        prompt,
        outcome,
        before === (await cellSources(notebook))
      );
    }
    if (outcome.error?.kind === 'unknown-model' && model.listModels) {
      void this._suggestModels(model.listModels.bind(model), outcome.error);
    }
    return outcome;
  }

  /**
   * After a turn on a workflow's prompt: the lines the answer copied from
   * that prompt leave the transcript (the model keeps them), and an answer
   * claiming a change when no cell changed gets a notice under it.
   */
  private _checkWorkflowAnswer(
    prompt: string,
    outcome: IRunOutcome,
    unchanged: boolean
  ): void {
    const store = this._store;
    const answer = store.log.lastAnswer();
    if (!answer) {
      return;
    }
    const text = withoutEcho(answer.text, prompt);
    if (text !== answer.text) {
      store.log.markLastAnswer({ shown: text });
    }
    if (unchanged && outcome.answer && claimsChange(text)) {
      store.notice(NO_CHANGE_NOTICE);
    }
  }

  /**
   * Mark the turn's answer when it states numbers nothing computed (it ran
   * no code, and no observation or prompt shows them).
   */
  private _markUncomputed(
    turnStart: number,
    tools: ToolRegistry,
    outcome: IRunOutcome
  ): void {
    const store = this._store;
    const numbers = uncomputedNumbers(store.history, turnStart, call =>
      tools.runsCode(call)
    );
    // An answer no clean run computed (a name, a date, a small count: the
    // number check lets those pass) is marked as a whole.
    const marked =
      !numbers.length && outcome.uncomputed && outcome.answer
        ? [answerValue(outcome.answer)]
        : numbers;
    if (marked.length) {
      store.log.markLastAnswer({ notComputed: marked });
    }
  }

  /**
   * A notice under the turn's answer when its numbers come from code that
   * multiplies sums (context/multiplied-sums.ts): plausible, wrong, and
   * otherwise unmarked.
   */
  private _markMultipliedSums(turnStart: number, tools: ToolRegistry): void {
    const product = answerFromMultipliedSums(
      this._store.history,
      turnStart,
      call => tools.codeOfCall(call)
    );
    if (product) {
      this._store.notice(multipliedSumsNotice(product));
    }
  }

  /** The project rules of `notebookPath`; none when they cannot be read. */
  private _readRules(notebookPath: string): Promise<IProjectRules | null> {
    return (
      this._options.projectRules?.(notebookPath) ?? Promise.resolve(null)
    ).catch(() => null);
  }

  /** Add the endpoint's models to an "unknown model" error. */
  private async _suggestModels(
    list: () => Promise<string[]>,
    error: IAgentError
  ): Promise<void> {
    try {
      const models = (await list()).slice(0, 20);
      if (models.length && this._store.getSnapshot().error === error) {
        this._store.reportError({
          ...error,
          hint: `${error.hint} Available: ${models.join(', ')}.`
        });
      }
    } catch {
      // The list is a nicety; the error already says what to do.
    }
  }

  private readonly _textTools = new ToolRegistry([
    addAndRunCell,
    rewriteAndRunCell
  ] as ITool<never>[]);
}

/** What an answer states, for its mark: its `ANSWER:` line's value, or its first line, cut short. */
export function answerValue(answer: string): string {
  const value =
    /^\s*ANSWER:\s*(.+)$/im.exec(answer)?.[1] ?? answer.trim().split('\n')[0];
  const text = value.trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
