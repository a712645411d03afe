/**
 * One task of a follow-up, Fix or Generate set, run as the user's path runs
 * it: a notebook on the eval's Jupyter server (a private one, or --server),
 * a ServerNotebookPort on it, and the command line's AgentSession
 * (`sessionFor` in src/headless/cli/cli-session.ts: approvals `run-everything`
 * with every request answered, the model's capabilities, prompt profile and
 * tool protocol from its name, as the sidebar chooses them). The model
 * client is the session's own, metered for tokens and calls.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addAndRunCell } from '../../../src/agent/loop/code-block-tools';
import type { IModelClient } from '../../../src/agent/model/types';
import type { INotebookPort } from '../../../src/agent/ports';
import type { AgentSession } from '../../../src/agent/session';
import { agentTools } from '../../../src/agent/tools/all-tools';
import { ToolRegistry, type ITool } from '../../../src/agent/tools/registry';
import type { IToolCall } from '../../../src/agent/types';
import { sessionFor } from '../../../src/headless/cli/cli-session';
import { ServerNotebookPort } from '../../../src/headless/server-port/server-port';
import type { IEvalServer, IGivenServer } from '../eval-server';
import { MeteredModel } from '../metered-model';
import { seededCellIds } from '../seeded-ids';
import type { IRowBase } from './types';

/** The model endpoint, as the command line takes it. */
export interface IEndpoint {
  baseUrl: string;
  /** Its name: the session's capabilities, profile and protocol come from it. */
  model: string;
  apiKey: string;
}

/** How to run a set. */
export interface ISetRunOptions {
  endpoint: IEndpoint;
  /** Tasks at once (default 2). */
  concurrency?: number;
  /** Seconds per question / fix / generation (default 300; a task may set its own). */
  timeoutS?: number;
  /** Model calls per turn (default 20; a task may set its own). */
  maxSteps?: number;
  /** Hard timeout of one cell, seconds (default 120). */
  cellTimeoutS?: number;
  /** A running Jupyter server to work on, in place of a private one. */
  server?: IGivenServer;
  /** Names the run's folder on a given server. */
  runId?: string;
  /** Where executed notebooks are copied; transcripts go beside it. */
  notebooksDir?: string;
  /** Called as each task finishes. */
  onResult?: (row: IRowBase) => void;
}

/** How long a stopped run may take to end before the harness leaves it. */
const STOP_GRACE_MS = 60_000;

/** The tools whose calls may run code, by name (every protocol's). */
const TOOLS = new ToolRegistry([
  ...agentTools(),
  addAndRunCell as ITool<never>
]);

/** The session's model, metered: tokens, calls, and what the server enforces. */
class SessionModel extends MeteredModel {
  calls = 0;

  constructor(private readonly _client: IModelClient) {
    super(_client);
  }

  streamChat(
    ...args: Parameters<MeteredModel['streamChat']>
  ): ReturnType<MeteredModel['streamChat']> {
    this.calls += 1;
    return super.streamChat(...args);
  }

  // The session reads it to choose the protocol (session/run-setup.ts).
  forcesToolCalls(): boolean | undefined {
    return this._client.forcesToolCalls?.();
  }
}

/** The counters of a task, or of part of one (a question). */
export interface IUsageMark {
  modelCalls: number;
  cellsRun: number;
  promptTokens: number;
  completionTokens: number;
  at: number;
}

/** A task's notebook, kernel and session. */
export class TaskSession {
  private constructor(
    readonly port: ServerNotebookPort,
    readonly session: AgentSession,
    private readonly _model: SessionModel,
    private readonly _server: IEvalServer,
    readonly path: string
  ) {
    session.subscribeEvents(event => {
      if (event.type === 'tool-call') {
        this._calls.set(event.call.id, event.call);
      } else if (event.type === 'tool-result') {
        const call = this._calls.get(event.callId);
        // A cell ran: a call that runs code, on a cell (not scratch code).
        if (call && event.result.cellId && TOOLS.runsCode(call)) {
          this.cellsRun += 1;
        }
      } else if (event.type === 'end') {
        this.lastEnd = event.reason;
      }
    });
  }

  /** Cells the agent ran so far. */
  cellsRun = 0;
  /** How the last turn ended. */
  lastEnd = '';

  /**
   * Open `notebook` (created when missing) in the task's folder, with
   * `files` (local paths) copied beside it, and build its session.
   */
  static async open(
    server: IEvalServer,
    taskId: string,
    files: string[],
    options: ISetRunOptions & { maxSteps: number }
  ): Promise<TaskSession> {
    const folder = await server.prepareTask(taskId, files);
    const path = `${folder}/${taskId}.ipynb`;
    const port = await ServerNotebookPort.open({
      serverSettings: server.settings,
      path,
      createIfMissing: true,
      newCellId: seededCellIds(taskId)
    });
    try {
      const { session, model } = sessionFor(
        {
          baseUrl: options.endpoint.baseUrl,
          model: options.endpoint.model,
          apiKey: options.endpoint.apiKey,
          token: '',
          connectTimeoutMs: 10_000,
          maxSteps: options.maxSteps,
          timeoutSeconds: options.cellTimeoutS ?? 120,
          // No AGENTS.md in the task's folder: nothing to read.
          rules: false
        },
        port,
        server.settings,
        () => undefined
      );
      return new TaskSession(
        port,
        session,
        new SessionModel(model),
        server,
        path
      );
    } catch (error) {
      await port.close({ shutdownKernel: true }).catch(() => undefined);
      throw error;
    }
  }

  /** What a run of this session needs: its model and its notebook. */
  get target(): { model: () => IModelClient; notebook: INotebookPort } {
    return { model: () => this._model, notebook: this.port };
  }

  /** The counters now. */
  mark(): IUsageMark {
    return {
      modelCalls: this._model.calls,
      cellsRun: this.cellsRun,
      promptTokens: this._model.promptTokens,
      completionTokens: this._model.completionTokens,
      at: Date.now()
    };
  }

  /** The counters since `from`, as a row's figures. */
  since(
    from: IUsageMark
  ): Pick<
    IRowBase,
    | 'modelCalls'
    | 'cellsRun'
    | 'promptTokens'
    | 'completionTokens'
    | 'tokensEstimated'
    | 'wallS'
  > {
    const now = this.mark();
    return {
      modelCalls: now.modelCalls - from.modelCalls,
      cellsRun: now.cellsRun - from.cellsRun,
      promptTokens: now.promptTokens - from.promptTokens,
      completionTokens: now.completionTokens - from.completionTokens,
      tokensEstimated: this._model.estimated,
      wallS: (now.at - from.at) / 1000
    };
  }

  /**
   * Run `work` (a session task), stopping the session after `timeoutS`
   * as the user's Stop would; `timedOut` says whether it did.
   */
  async bounded<T>(
    timeoutS: number,
    work: () => Promise<T> | null
  ): Promise<{ value: T | null; timedOut: boolean }> {
    let timedOut = false;
    let giveUp: () => void = () => undefined;
    // A run that does not end within a minute of its Stop is left behind
    // (the task is scored as it is): one stuck task must not hang the set.
    const abandoned = new Promise<null>(resolve => {
      giveUp = () => resolve(null);
    });
    let grace: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      this.session.stop();
      grace = setTimeout(giveUp, STOP_GRACE_MS);
    }, timeoutS * 1000);
    try {
      const value = await Promise.race([work(), abandoned]);
      return { value: value ?? null, timedOut };
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
    }
  }

  /** The session's error message, if a run failed. */
  get error(): string | undefined {
    return this.session.getSnapshot().error?.message;
  }

  /**
   * Keep what the task did (the transcript, what the model read and wrote;
   * the executed notebook), then close the kernel.
   */
  async finish(notebooksDir: string | undefined, id: string): Promise<void> {
    try {
      if (notebooksDir) {
        const dir = join(notebooksDir, '..', 'transcripts');
        await mkdir(dir, { recursive: true });
        await writeFile(
          join(dir, `${id}.json`),
          JSON.stringify(this.session.history, null, 1)
        );
        await this.port.save({ overwrite: true });
        await mkdir(notebooksDir, { recursive: true });
        await writeFile(
          join(notebooksDir, `${id}.ipynb`),
          await this._server.readNotebook(this.path)
        );
      }
    } finally {
      await this.port.close({ shutdownKernel: true }).catch(() => undefined);
    }
  }

  private readonly _calls = new Map<string, IToolCall>();
}

/** A row with nothing done yet. */
export function emptyRow(id: string, category?: string): IRowBase {
  return {
    id,
    category,
    success: false,
    detail: '',
    end: 'not-started',
    modelCalls: 0,
    cellsRun: 0,
    promptTokens: 0,
    completionTokens: 0,
    tokensEstimated: false,
    wallS: 0
  };
}

/** Run `one` over `tasks`, `concurrency` at a time; rows in the tasks' order. */
export async function inLanes<T, R>(
  tasks: ReadonlyArray<T>,
  concurrency: number,
  one: (task: T) => Promise<R>,
  onResult?: (row: R) => void
): Promise<R[]> {
  const rows = new Array<R>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      rows[index] = await one(tasks[index]);
      onResult?.(rows[index]);
    }
  };
  const lanes = Math.max(1, Math.min(concurrency, tasks.length));
  await Promise.all(Array.from({ length: lanes }, worker));
  return rows;
}

/** The final message of the turn that started at history index `start` ('' when it ended without one). */
export function finalMessage(session: AgentSession, start: number): string {
  const turn = session.history.slice(start);
  const last = turn[turn.length - 1];
  return last?.role === 'assistant' && !last.toolCalls?.length
    ? (last.content ?? '')
    : '';
}
