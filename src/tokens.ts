/**
 * Notebook Agent's public tokens and interfaces: what another JupyterLab
 * extension may rely on. Import them from `jupyterlab-notebook-agent` (the
 * package is shared at run time: declare it in your package.json's
 * `jupyterlab.sharedPackages` with `"bundled": false, "singleton": true`).
 */
import { Token } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { IModelClient } from './agent/model/types';
import type { IModelChoice, ISessionState } from './agent/session';
import type {
  ExternalToolResult,
  IExternalTool,
  IExternalToolContext
} from './agent/tools/external-tool';
import type { IProviderInfo } from './agent/model/provider-info';

/** The agent of the sidebar, for other extensions. */
export interface INotebookAgent {
  /**
   * Add a tool the agent may call (in the standard profile; small in-browser
   * models keep their few tools). Throws an Error saying what is wrong when
   * the definition is invalid or its name is taken (prefix yours, e.g.
   * `myext__tool`). Dispose the result to take the tool back out.
   */
  registerTool(tool: INotebookAgent.ITool): IDisposable;
  /** The sidebar's chat session: its state (`getSnapshot`, `subscribe`), `busy`, `stop`. */
  readonly session: INotebookAgent.ISession;
  /** The models the agent can use. */
  readonly models: INotebookAgent.IModels;
}

/** Types of `INotebookAgent`. */
export namespace INotebookAgent {
  /**
   * A tool: name, description, JSON schema of its arguments, approval kind
   * (`read`, `edit`, `run`, `restart`), the title of its approval card, and
   * `execute`, whose result is the observation the model reads next. Its
   * arguments are validated against the schema before it runs (and before
   * the user is asked); its result is cut to the observation budget.
   */
  export type ITool = IExternalTool;
  /** What `execute` is given: the run's abort signal and notebook path. */
  export type IToolContext = IExternalToolContext;
  /** A string, or `{ ok, output, images }`. */
  export type ToolResult = ExternalToolResult;

  /** The sidebar's chat session, as other extensions see it. */
  export interface ISession {
    /** The chat's state (its transcript, status, usage…): a new object after each change. */
    getSnapshot(): ISessionState;
    /** Call `listener` after each change; returns the function that removes it. */
    subscribe(listener: () => void): () => void;
    /** This chat's id (its file on the server). */
    readonly chatId: string;
    /** Whether a task (a prompt, a generation, a fix) is running. */
    readonly busy: boolean;
    /** Stop the running task (the model stream, the running cell). */
    stop(): void;
  }

  /** The model registry, as the sidebar resolves it. */
  export interface IModels {
    /**
     * The model client the current chat uses (built once per settings and
     * kept); throws when no model is configured.
     */
    current(): IModelClient;
    /** The current chat's provider and model ('' model: the provider's default). */
    choice(): IModelChoice;
    /** The Jupyter server's providers (none until its status has answered). */
    providers(): ReadonlyArray<IProviderInfo>;
  }
}

/** The Notebook Agent service: register tools, read the session and the models. */
export const INotebookAgent = new Token<INotebookAgent>(
  'jupyterlab-notebook-agent:INotebookAgent',
  'Notebook Agent: register tools the agent may call; read its chat session and models.'
);
