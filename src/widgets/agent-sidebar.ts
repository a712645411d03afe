/**
 * The Lumino widget that holds the agent's place in JupyterLab's right
 * sidebar: its id, icon and caption. The chat itself (agent-sidebar-view.tsx) loads the first time the sidebar is
 * shown or focused, so JupyterLab's start-up does not download or parse it.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { Message } from '@lumino/messaging';
import { Panel } from '@lumino/widgets';
import { untranslated } from '../components/common/trans';
import type { AgentSidebarView } from './agent-sidebar-view';
import { agentIcon } from './icon';

/** The sidebar widget id, part of the public contract. */
export const SIDEBAR_ID = 'notebook-agent-sidebar';

/** The agent sidebar. */
export class AgentSidebar extends Panel {
  private _view: AgentSidebarView | null = null;
  private _loading: Promise<AgentSidebarView | null> | null = null;
  private _focusWhenLoaded = false;

  constructor(private readonly _options: AgentSidebar.IOptions) {
    super();
    this.id = SIDEBAR_ID;
    this.addClass('jp-AgentSidebar');
    this.title.icon = agentIcon;
    this.title.caption = this._trans.__('Notebook Agent');
  }

  /** Move keyboard focus to the prompt (once the chat has loaded). */
  focusPrompt(): void {
    if (this._view) {
      this._view.focusPrompt();
      return;
    }
    this._focusWhenLoaded = true;
    void this.loadView();
  }

  /** Load the chat view (once); resolves with null if its code failed to load. */
  loadView(): Promise<AgentSidebarView | null> {
    this._loading ??= import('./agent-sidebar-view').then(
      ({ AgentSidebarView }) => {
        if (this.isDisposed) {
          return null;
        }
        const view = new AgentSidebarView(this._options);
        // A message from an earlier failed load gives way to the chat.
        this.node.textContent = '';
        this.addWidget(view);
        this._view = view;
        if (this._focusWhenLoaded) {
          view.focusPrompt();
        }
        return view;
      },
      (error: unknown) => {
        // A failed chunk download (server gone, network): say so in place of
        // the chat, and try again on the next show.
        this._loading = null;
        this.node.textContent = this._trans.__(
          'Notebook Agent could not load: %1. Reload the page to try again.',
          String((error as Error)?.message ?? error)
        );
        return null;
      }
    );
    return this._loading;
  }

  protected onBeforeShow(msg: Message): void {
    super.onBeforeShow(msg);
    void this.loadView();
  }

  private get _trans(): TranslationBundle {
    return this._options.trans ?? untranslated;
  }
}

/** Types of `AgentSidebar`. */
export namespace AgentSidebar {
  /** Construction options: those of the chat view it loads. */
  export type IOptions = AgentSidebarView.IOptions;
}
