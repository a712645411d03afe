/**
 * The chat view inside the sidebar: a React widget rendering ChatView. It
 * is loaded on first show (agent-sidebar.ts), so its code (the chat, the
 * markdown renderer, the cards and pickers) is not JavaScript JupyterLab
 * loads at start-up.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import type { Message } from '@lumino/messaging';
import React, { createRef } from 'react';
import { ChatView, type IChatViewProps } from '../components/chat/chat-view';
import type { IChatHistory } from '../components/config/sidebar-config';
import { TranslationContext, untranslated } from '../components/common/trans';

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
          {...options}
          inputRef={this._input}
          history={options.history ?? null}
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
  /**
   * Construction options: the chat view's props (components/chat/chat-view.tsx),
   * less what the widget supplies itself (the prompt's ref, the hidden
   * count), with the saved chats optional.
   */
  export interface IOptions extends Omit<
    IChatViewProps,
    'inputRef' | 'hiddenCount' | 'history'
  > {
    /** Saved chats (chat-persistence.ts). */
    history?: IChatHistory;
    /** Translates the sidebar's strings (default: as written). */
    trans?: TranslationBundle;
  }
}
