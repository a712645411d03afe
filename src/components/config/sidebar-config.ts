/**
 * What the sidebar's views need from outside the chat, in one place: the
 * configuration they show (a store they subscribe to, written by the
 * JupyterLab glue: jupyter/sidebar/sidebar-configuration.ts) and the actions they
 * call. These types are the views' own: the glue implements them, the
 * views never import it.
 */
import type { ApprovalMode } from '../../agent/loop/approval';
import type { IProviderInfo } from '../../agent/model/provider-info';
import type { IReadable } from '../../agent/value-store';
import type { IProviderView } from './provider-bar';

/** Where model requests go: the server's proxy, the endpoint directly, or a model in this browser. */
export type EndpointMode = 'proxy' | 'direct' | 'local';

/** What the sidebar knows of the server's model configuration. */
export type ServerStatus =
  | {
      kind: 'configured';
      baseUrl: string;
      model: string | null;
      hasKey: boolean;
      providers: IProviderInfo[];
      defaultProvider: string | null;
      allowUserKeys: boolean;
      /** Whether the server looks for local model servers (when none is configured). */
      discovery?: boolean;
    }
  | { kind: 'not-configured'; discovery?: boolean }
  | { kind: 'no-extension' }
  | { kind: 'unknown' };

/** The configuration the sidebar shows. */
export interface ISidebarConfig {
  serverStatus: ServerStatus;
  mode: EndpointMode;
  /** The model line: which model answers (its readable name), and where it runs. */
  modelLabel: string;
  /**
   * The model line with the model's whole id, as requests name it (a GGUF
   * file's path, say), for the tooltip; absent when it is the label.
   */
  modelId?: string;
  /** Direct mode: where requests go, and whether a key is set in the settings. */
  direct: { baseUrl: string; hasKey: boolean } | null;
  approvalMode: ApprovalMode;
  /** The provider and model pickers (null hides them). */
  providers: IProviderView | null;
}

/** What "Show cell" found. */
export type ShowCellResult = 'shown' | 'deleted' | 'closed';

/** What the sidebar's views ask the application to do. */
export interface ISidebarActions {
  /** Start a run; false when it could not start (the prompt is kept). */
  send: (prompt: string) => boolean;
  /** Send the last request again (after an error). */
  retry: () => void;
  /**
   * The user started typing a prompt: get the model client ready for the
   * first request (its library loads while they type).
   */
  prepare?: () => void;
  /**
   * Bring a cell the agent touched into view: `deleted` when the chat's
   * notebook is open without it, `closed` when that notebook is not open.
   */
  showCell: (cellId: string) => ShowCellResult;
  /** Interrupt the kernel of the chat's notebook (a cell the agent left running). */
  interruptKernel: () => void;
  /**
   * Undo a file the agent wrote (the write_file call `callId`); absent
   * where the session cannot (its card then offers no Undo).
   */
  undoFile?: (callId: string) => void;
  /** Whether the write of `callId` can still be undone. */
  canUndoFile?: (callId: string) => boolean;
  /** Bring the chat's notebook to the front. */
  showNotebook: () => void;
  /** Insert code from an answer as a new cell below the active cell. */
  insertCode: (code: string) => void;
  /** Copy files next to the notebook and attach them. */
  attachFiles: (files: File[]) => void;
  setApprovalMode: (mode: ApprovalMode) => void;
  setProvider: (name: string) => void;
  setModel: (model: string) => void;
  /** Ask for the selected provider's key (stored on the server). */
  setKey: () => void;
  /** Open Notebook Agent's settings. */
  openSettings: () => void;
  /** Ask the server to look again for model servers on its machine. */
  lookForLocalServers?: () => void;
  /**
   * Check (once per model and host) that the local model's files can be
   * reached; the outcome arrives in the view's `localReach` store.
   */
  checkLocalModel?: () => void;
  /** Open a project rules file (AGENTS.md) by its path from the server root. */
  openRule?: (path: string) => void;
}

/** Where the sidebar is, as the views need it (written by the JupyterLab glue). */
export interface INotebookStatus {
  /** The path of the notebook the user is on ('' when none is open). */
  current: string;
  /**
   * The kernel of the chat's notebook is still busy with a cell of a run the
   * page's reload interrupted (the sidebar offers Interrupt).
   */
  busyAfterReload: boolean;
}

/** A chat in the history list. */
export interface IChatSummary {
  id: string;
  title: string;
  notebook: string;
  updated: number;
}

/** Saved chats, as the history menu and the "not saved" line need them. */
export interface IChatHistory {
  /** Chats of the current notebook, newest first. */
  list: () => Promise<IChatSummary[]>;
  /** Reopen a chat. */
  open: (id: string) => Promise<void>;
  /** Why the chat could not be saved (null: saved, or nothing to save). */
  saveError: IReadable<string | null>;
  /** Save again what could not be saved. */
  retrySave: () => void;
}

/** The configuration before the settings and the server have answered. */
export const INITIAL_CONFIG: ISidebarConfig = {
  serverStatus: { kind: 'unknown' },
  mode: 'proxy',
  modelLabel: '',
  direct: null,
  approvalMode: 'ask-before-running',
  providers: null
};
