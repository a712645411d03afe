/**
 * The sidebar's content: transcript, errors, and the prompt. It reads the
 * session store; it holds no agent state of its own.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, {
  Suspense,
  lazy,
  useEffect,
  useRef,
  useSyncExternalStore
} from 'react';
import type { ApprovalMode } from '../../agent/loop/approval';
import type { IProjectRules } from '../../agent/context/project-rules';
import type { LocalModelStatusStore } from '../../agent/model/local/load-status';
import type { ModelReach } from '../../agent/model/local/reachability';
import type { ChatSession } from '../../agent/session/chat-session';
import type { ISessionState } from '../../agent/session/types';
import type { McpListing } from '../../agent/tools/mcp-listing';
import { ApprovalCard } from '../transcript/approval-card';
import type { AttachmentStore } from '../prompt/attachment-store';
import { AttachmentTray, fileDropHandlers } from '../prompt/attachment-tray';
import { ChatMenu } from './chat-menu';
import { DirectModeWarning } from '../setup/direct-mode-warning';
import { ErrorBanner } from '../transcript/error-banner';
import { LocalModelProgress } from '../setup/local-model-progress';
import type { IMentionSource } from '../prompt/mentions';
import { PlanView } from '../transcript/plan-view';
import { PromptBox } from '../prompt/prompt-box';
import { warmUpMarkdown } from '../markdown/warm-up';
import { McpServers } from '../setup/mcp-servers';
import { ProviderBar } from '../config/provider-bar';
import { RulesLine } from '../setup/rules-line';
import { SetupNotice } from '../setup/setup-notice';
import type {
  IChatHistory,
  INotebookStatus,
  ISidebarActions,
  ISidebarConfig
} from '../config/sidebar-config';
import type { IReadable } from '../../agent/value-store';
import { NotebookLine, WorkingElsewhere } from './notebook-line';
import { SaveStatus } from './save-status';
import { TranscriptItemView } from '../transcript/transcript-item';
import { UsageBadge } from '../transcript/usage-badge';
import { WorkingLine } from '../transcript/working-line';
import { useTrans } from '../common/trans';
import { useStickToBottom } from './use-stick-to-bottom';
import { useThrottledStore } from './use-throttled-store';

/** Props of `ChatView`. */
export interface IChatViewProps {
  session: ChatSession;
  rendermime: IRenderMimeRegistry;
  /** The configuration shown (model line, pickers, approval mode). */
  config: IReadable<ISidebarConfig>;
  actions: ISidebarActions;
  inputRef: React.RefObject<HTMLTextAreaElement>;
  /** Saved chats of this notebook (null: not available). */
  history: IChatHistory | null;
  /** What is attached to the next prompt. */
  attachments: AttachmentStore;
  /** What `@` in the prompt offers. */
  mentions?: IMentionSource;
  /** The in-browser model's loading progress (local mode). */
  localModel?: LocalModelStatusStore;
  /** Whether the local model's files can be reached (checked when shown). */
  localReach?: IReadable<ModelReach>;
  /** Since when a model server has read the prompt without answering (the working line says so). */
  modelWait?: IReadable<number | null>;
  /** Which notebook the user is on, and its kernel after a reload. */
  notebook?: IReadable<INotebookStatus>;
  /** The Jupyter server's MCP servers and their tools. */
  mcp?: McpListing;
  /** The project rules that apply to the active notebook. */
  rules?: IReadable<IProjectRules | null>;
  /** How often the sidebar was hidden (each time closes its popovers). */
  hiddenCount?: number;
}

const NO_NOTEBOOK_STATUS: IReadable<INotebookStatus> = {
  subscribe: () => () => undefined,
  getSnapshot: () => ({ current: '', busyAfterReload: false })
};

const UNCHECKED: ModelReach = { state: 'unchecked' };
const NOT_CHECKED: IReadable<ModelReach> = {
  subscribe: () => () => undefined,
  getSnapshot: () => UNCHECKED
};

/** Changes the user must see at once: a run starting or ending, a question, an error, a review. */
function urgentChange(shown: ISessionState, next: ISessionState): boolean {
  return (
    shown.status !== next.status ||
    shown.pendingApproval !== next.pendingApproval ||
    shown.error !== next.error ||
    shown.review !== next.review
  );
}

/** The fix review (and its diff library) loads when a fix first needs it, not at start-up. */
const FixReview = lazy(() =>
  import('../transcript/fix-review').then(module => ({
    default: module.FixReview
  }))
);

/** The whole chat. */
export function ChatView(props: IChatViewProps): JSX.Element {
  const { session, rendermime, actions } = props;
  const trans = useTrans();
  // Throttled: a streaming reply changes the session every few characters.
  const state = useThrottledStore(session, 50, urgentChange);
  const config = useSyncExternalStore(
    props.config.subscribe,
    props.config.getSnapshot
  );
  const where = props.notebook ?? NO_NOTEBOOK_STATUS;
  const notebook = useSyncExternalStore(where.subscribe, where.getSnapshot);
  const reachStore = props.localReach ?? NOT_CHECKED;
  const reach = useSyncExternalStore(
    reachStore.subscribe,
    reachStore.getSnapshot
  );
  // Shown with the local model: check once that its files can be reached
  // (not at JupyterLab's start, and without waiting for the answer).
  const checkLocalModel = actions.checkLocalModel;
  useEffect(() => {
    if (config.mode === 'local') {
      checkLocalModel?.();
    }
  }, [config, checkLocalModel]);
  // The chat belongs to its notebook; a chat not yet used, to the current one.
  const chatNotebook = session.notebookPath || notebook.current;
  const bottom = useRef<HTMLDivElement>(null);
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [state.items]);
  const transcript = useStickToBottom();
  const running = state.status === 'running';
  // Popovers and pickers close on a new chat and when the sidebar hides.
  const closeKey = `${session.chatId}:${props.hiddenCount ?? 0}`;
  // A run works in another notebook than the one on screen: say where,
  // instead of showing that notebook's chat as if it were this one's.
  const elsewhere =
    running && !!notebook.current && notebook.current !== chatNotebook;

  return (
    <div
      className="jp-AgentSidebar-chat"
      {...fileDropHandlers(actions.attachFiles)}
    >
      <div className="jp-AgentSidebar-header">
        <span className="jp-AgentSidebar-title">
          {trans.__('Notebook Agent')}
        </span>
        {/* Cut with an ellipsis in a narrow sidebar: the tooltip has it whole, with the model's id. */}
        <span
          className="jp-AgentSidebar-model"
          title={trans.__('Model: %1', config.modelId ?? config.modelLabel)}
        >
          {config.modelLabel}
        </span>
        <UsageBadge
          usage={state.usage}
          lastTurn={state.lastTurn}
          model={config.modelId ?? config.modelLabel}
        />
        <button
          className="jp-AgentSidebar-link"
          onClick={() => session.newChat()}
          disabled={running || state.review !== null}
        >
          {trans.__('New chat')}
        </button>
        <ChatMenu
          session={session}
          history={props.history}
          disabled={running}
          closeKey={closeKey}
        />
      </div>
      <NotebookLine
        path={chatNotebook}
        kernelBusy={notebook.busyAfterReload && !running}
        onInterrupt={actions.interruptKernel}
      />
      {props.history && <SaveStatus history={props.history} />}
      {elsewhere ? (
        <WorkingElsewhere
          path={chatNotebook}
          waiting={state.pendingApproval !== null}
          onGo={actions.showNotebook}
          onStop={() => session.stop()}
        />
      ) : (
        // Focusable: in a narrow sidebar it scrolls, with the keyboard too.
        <div
          ref={transcript}
          className="jp-AgentSidebar-transcript"
          role="log"
          aria-live="polite"
          aria-label={trans.__('Chat messages')}
          tabIndex={0}
        >
          <SetupNotice
            status={config.serverStatus}
            mode={config.mode}
            onLookAgain={actions.lookForLocalServers}
            reach={reach}
            onOpenSettings={actions.openSettings}
          />
          {config.mode === 'direct' && config.direct && (
            <DirectModeWarning {...config.direct} />
          )}
          {config.mode === 'local' && props.localModel && (
            <LocalModelProgress store={props.localModel} />
          )}
          {state.plan && (
            <PlanView plan={state.plan} ended={state.status !== 'running'} />
          )}
          {state.items.length === 0 && (
            <p className="jp-AgentSidebar-empty">
              {trans.__(
                'Ask for an analysis of the active notebook: the agent writes cells, runs them in its kernel, reads the results and answers.'
              )}
            </p>
          )}
          {state.items.map((item, index) => (
            <TranscriptItemView
              key={item.kind === 'tool' ? `${item.id}-${index}` : item.id}
              item={item}
              rendermime={rendermime}
              actions={actions}
              awaiting={
                item.kind === 'tool' &&
                item.status === 'running' &&
                item.id === state.pendingApproval?.call.id
              }
            />
          ))}
          {state.pendingApproval && (
            <ApprovalCard
              key={state.pendingApproval.call.id}
              request={state.pendingApproval}
              onDecide={decision => {
                session.resolveApproval(decision);
                // The card goes away: the focus goes back to the prompt.
                props.inputRef.current?.focus();
              }}
            />
          )}
          {state.review && (
            <Suspense fallback={null}>
              <FixReview
                review={state.review}
                onAccept={() => session.acceptReview()}
                onReject={() => void session.rejectReview()}
                onShowCell={actions.showCell}
              />
            </Suspense>
          )}
          {running && !state.pendingApproval && (
            <WorkingLine modelWait={props.modelWait} />
          )}
          {state.error && (
            <ErrorBanner
              error={state.error}
              canRetry={state.items.some(item => item.kind === 'user')}
              onRetry={actions.retry}
              onOpenSettings={actions.openSettings}
            />
          )}
          <div ref={bottom} />
        </div>
      )}
      {config.providers && (
        <ProviderBar
          view={config.providers}
          disabled={running}
          onChange={actions.setProvider}
          onModelChange={actions.setModel}
          onSetKey={actions.setKey}
          onOpen={
            config.providers.found ? actions.lookForLocalServers : undefined
          }
        />
      )}
      {props.rules && actions.openRule && (
        <RulesLine rules={props.rules} onOpen={actions.openRule} />
      )}
      <div className="jp-AgentSidebar-mode">
        <label>
          {trans.__('Approval:')}{' '}
          <select
            aria-label={trans.__('Approval mode')}
            value={config.approvalMode}
            onChange={event =>
              actions.setApprovalMode(event.target.value as ApprovalMode)
            }
          >
            <option value="ask-before-running">
              {trans.__('Ask before running code')}
            </option>
            <option value="ask-before-edits">
              {trans.__('Ask before every edit')}
            </option>
            <option value="run-everything">{trans.__('Run everything')}</option>
          </select>
        </label>
        {props.mcp && <McpServers source={props.mcp} closeKey={closeKey} />}
      </div>
      <AttachmentTray
        store={props.attachments}
        onAttachFiles={actions.attachFiles}
      />
      <PromptBox
        running={running}
        onSend={actions.send}
        onStop={() => session.stop()}
        onFirstUse={() => {
          warmUpMarkdown(rendermime);
          actions.prepare?.();
        }}
        inputRef={props.inputRef}
        mentions={props.mentions}
        closeKey={closeKey}
        onAttachCell={cell =>
          props.attachments.addCells([
            { id: cell.id, index: cell.index, source: cell.source }
          ])
        }
      />
    </div>
  );
}
