/**
 * The Lumino widget that hosts the chat in JupyterLab's right sidebar.
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
import { agentIcon } from './icon';

/** The sidebar widget id, part of the public contract. */
export const SIDEBAR_ID = 'notebook-agent-sidebar';

/** The agent sidebar. */
export class AgentSidebar extends ReactWidget {
  private _status: ServerStatus = { kind: 'unknown' };
  private _mode: EndpointMode = 'proxy';
  private _modelLabel = '';
  private _direct: { baseUrl: string; hasKey: boolean } | null = null;
  private _approvalMode: ApprovalMode = 'ask-before-running';
  private _providers: IProviderView | null = null;
  private _input = createRef<HTMLTextAreaElement>();

  constructor(private readonly _options: AgentSidebar.IOptions) {
    super();
    this.id = SIDEBAR_ID;
    this.addClass('jp-AgentSidebar');
    this.title.icon = agentIcon;
    this.title.caption = this._trans.__('Notebook Agent');
  }

  /** Update what the sidebar shows of the configuration. */
  setConfiguration(
    status: ServerStatus,
    mode: EndpointMode,
    modelLabel: string,
    approvalMode: ApprovalMode,
    direct: { baseUrl: string; hasKey: boolean } | null = null
  ): void {
    this._status = status;
    this._mode = mode;
    this._modelLabel = modelLabel;
    this._direct = direct;
    this._approvalMode = approvalMode;
    this.update();
  }

  /** Show the server's providers (null hides the picker). */
  setProviders(view: IProviderView | null): void {
    this._providers = view;
    this.update();
  }

  /** Move keyboard focus to the prompt. */
  focusPrompt(): void {
    this._input.current?.focus();
  }

  protected render(): JSX.Element {
    return (
      <TranslationContext.Provider value={this._trans}>
        <ChatView
          session={this._options.session}
          rendermime={this._options.rendermime}
          serverStatus={this._status}
          mode={this._mode}
          modelLabel={this._modelLabel}
          direct={this._direct}
          approvalMode={this._approvalMode}
          onModeChange={this._options.onModeChange}
          providers={this._providers}
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
        />
      </TranslationContext.Provider>
    );
  }

  private get _trans(): TranslationBundle {
    return this._options.trans ?? untranslated;
  }
}

/** Types of `AgentSidebar`. */
export namespace AgentSidebar {
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
  }
}
