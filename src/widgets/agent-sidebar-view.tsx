/**
 * The chat view inside the sidebar: a React widget rendering ChatView. It
 * is loaded on first show (agent-sidebar.ts), so its code (the chat, the
 * markdown renderer, the cards and pickers) is not JavaScript JupyterLab
 * loads at start-up.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import React, { createRef } from 'react';
import type { AgentSession } from '../agent/session';
import type { AttachmentStore } from '../components/attachment-store';
import { ChatView } from '../components/chat-view';
import type { IMentionSource } from '../components/mentions';
import type { IProviderView } from '../components/provider-bar';
import { TranslationContext, untranslated } from '../components/trans';
import type { IChatHistory } from '../jupyter/chat-persistence';
import type { ServerStatus } from '../jupyter/server-status';
import type { ApprovalMode } from '../agent/loop/approval';
import type { EndpointMode } from '../jupyter/settings';

/** The chat view of the sidebar. */
export class AgentSidebarView extends ReactWidget {
  private _input = createRef<HTMLTextAreaElement>();

  constructor(
    private readonly _options: AgentSidebarView.IOptions,
    private readonly _state: () => AgentSidebarView.IState
  ) {
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

  protected render(): JSX.Element {
    const state = this._state();
    return (
      <TranslationContext.Provider value={this._trans}>
        <ChatView
          session={this._options.session}
          rendermime={this._options.rendermime}
          serverStatus={state.status}
          mode={state.mode}
          modelLabel={state.modelLabel}
          direct={state.direct}
          approvalMode={state.approvalMode}
          onModeChange={this._options.onModeChange}
          providers={state.providers}
          onProviderChange={this._options.onProviderChange}
          onModelChange={this._options.onModelChange}
          onSetKey={this._options.onSetKey}
          onSend={this._options.onSend}
          onShowCell={this._options.onShowCell}
          inputRef={this._input}
          history={this._options.history ?? null}
          onInsertCode={this._options.onInsertCode}
          attachments={this._options.attachments}
          onAttachFiles={this._options.onAttachFiles}
          onRetry={this._options.onRetry}
          onOpenSettings={this._options.onOpenSettings}
          mentions={this._options.mentions}
          onLookForLocalServers={this._options.onLookForLocalServers}
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
  /** What the sidebar shows of the configuration (kept by AgentSidebar). */
  export interface IState {
    status: ServerStatus;
    mode: EndpointMode;
    modelLabel: string;
    direct: { baseUrl: string; hasKey: boolean } | null;
    approvalMode: ApprovalMode;
    providers: IProviderView | null;
  }

  /** Construction options. */
  export interface IOptions {
    session: AgentSession;
    rendermime: IRenderMimeRegistry;
    onSend: (prompt: string) => boolean;
    onShowCell: (cellId: string) => void;
    onModeChange: (mode: ApprovalMode) => void;
    onProviderChange: (name: string) => void;
    onModelChange: (model: string) => void;
    onSetKey: () => void;
    /** Saved chats (chat-persistence.ts). */
    history?: IChatHistory;
    /** Insert code from an answer as a new cell. */
    onInsertCode: (code: string) => void;
    /** What is attached to the next prompt. */
    attachments: AttachmentStore;
    /** Copy files next to the notebook and attach them. */
    onAttachFiles: (files: File[]) => void;
    /** Send the last request again. */
    onRetry: () => void;
    /** Open the settings editor at Notebook Agent. */
    onOpenSettings: () => void;
    /** What `@` in the prompt offers (cells, variables). */
    mentions?: IMentionSource;
    /** Translates the sidebar's strings (default: as written). */
    trans?: TranslationBundle;
    /** Ask the server to look again for model servers on its machine. */
    onLookForLocalServers?: () => void;
  }
}
