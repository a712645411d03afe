/**
 * The chat view inside the sidebar: a React widget rendering ChatView. It
 * is loaded on first show (agent-sidebar.ts), so its code (the chat, the
 * markdown renderer, the cards and pickers) is not JavaScript JupyterLab
 * loads at start-up.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import type { Message } from '@lumino/messaging';
import React, { createRef } from 'react';
import type { IProjectRules } from '../agent/context/project-rules';
import type { LocalModelStatusStore } from '../agent/model/local/load-status';
import type { ModelReach } from '../agent/model/local/reachability';
import type { AgentSession } from '../agent/session';
import type { McpToolSource } from '../agent/tools/mcp-tools';
import type { AttachmentStore } from '../components/attachment-store';
import { ChatView } from '../components/chat-view';
import type { IMentionSource } from '../components/mentions';
import type {
  IChatHistory,
  INotebookStatus,
  ISidebarActions,
  ISidebarConfig
} from '../components/sidebar-config';
import type { IReadable } from '../agent/value-store';
import { TranslationContext, untranslated } from '../components/trans';

/** The chat view of the sidebar. */
export class AgentSidebarView extends ReactWidget {
  private _input = createRef<HTMLTextAreaElement>();
  /** How often the sidebar was hidden: each time closes its popovers. */
  private _hidden = 0;

  constructor(private readonly _options: AgentSidebarView.IOptions) {
    super();
    this.addClass('jp-AgentSidebar-view');
  }

  /**
   * Move keyboard focus to the prompt, waiting (a few frames at most) for
   * the first render when the view was just created.
   */
  focusPrompt(framesLeft = 60): void {
    if (this._input.current) {
      this._input.current.focus();
    } else if (framesLeft > 0 && !this.isDisposed) {
      requestAnimationFrame(() => this.focusPrompt(framesLeft - 1));
    }
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this._hidden += 1;
    this.update();
  }

  protected render(): JSX.Element {
    const options = this._options;
    return (
      <TranslationContext.Provider value={this._trans}>
        <ChatView
          session={options.session}
          rendermime={options.rendermime}
          config={options.config}
          actions={options.actions}
          inputRef={this._input}
          history={options.history ?? null}
          attachments={options.attachments}
          mentions={options.mentions}
          localModel={options.localModel}
          localReach={options.localReach}
          notebook={options.notebook}
          mcp={options.mcp}
          rules={options.rules}
          hiddenCount={this._hidden}
        />
      </TranslationContext.Provider>
    );
  }

  private get _trans(): TranslationBundle {
    return this._options.trans ?? untranslated;
  }
}

/** Types of `AgentSidebarView`. */
export namespace AgentSidebarView {
  /** Construction options. */
  export interface IOptions {
    session: AgentSession;
    rendermime: IRenderMimeRegistry;
    /** The configuration shown; the view re-renders when it changes. */
    config: IReadable<ISidebarConfig>;
    actions: ISidebarActions;
    /** Saved chats (chat-persistence.ts). */
    history?: IChatHistory;
    /** What is attached to the next prompt. */
    attachments: AttachmentStore;
    /** What `@` in the prompt offers (cells, variables). */
    mentions?: IMentionSource;
    /** The in-browser model's loading progress. */
    localModel?: LocalModelStatusStore;
    /** Whether the local model's files can be reached. */
    localReach?: IReadable<ModelReach>;
    /** Which notebook the user is on, and its kernel after a reload. */
    notebook?: IReadable<INotebookStatus>;
    /** The Jupyter server's MCP servers and their tools. */
    mcp?: McpToolSource;
    /** The project rules of the active notebook (the sidebar's "Rules:" line). */
    rules?: IReadable<IProjectRules | null>;
    /** Translates the sidebar's strings (default: as written). */
    trans?: TranslationBundle;
    /** Ask the server to look again for model servers on its machine. */
    onLookForLocalServers?: () => void;
  }
}
