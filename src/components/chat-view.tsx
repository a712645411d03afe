/**
 * The sidebar's content: transcript, errors, and the prompt. It reads the
 * session store; it holds no agent state of its own.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { Suspense, lazy, useEffect, useRef } from 'react';
import type { ApprovalMode } from '../agent/loop/approval';
import type { AgentSession, ISessionState } from '../agent/session';
import type { ServerStatus } from '../jupyter/server-status';
import type { EndpointMode } from '../jupyter/settings';
import type { IChatHistory } from '../jupyter/chat-persistence';
import { ApprovalCard } from './approval-card';
import type { AttachmentStore } from './attachment-store';
import { AttachmentTray, fileDropHandlers } from './attachment-tray';
import { ChatMenu } from './chat-menu';
import { decorateCodeBlocks } from './code-block-actions';
import { DirectModeWarning } from './direct-mode-warning';
import { ErrorBanner } from './error-banner';
import { localModelStatus } from '../jupyter/local-model-status';
import { LocalModelProgress } from './local-model-progress';
import { MarkdownView } from './markdown-view';
import type { IMentionSource } from './mentions';
import { PlanView } from './plan-view';
import { PromptBox } from './prompt-box';
import { ProviderBar, type IProviderView } from './provider-bar';
import { SetupNotice } from './setup-notice';
import { ToolCallCard } from './tool-call-card';
import { UsageBadge } from './usage-badge';
import { useTrans } from './trans';
import { useThrottledStore } from './use-throttled-store';

/** Props of `ChatView`. */
export interface IChatViewProps {
  session: AgentSession;
  rendermime: IRenderMimeRegistry;
  serverStatus: ServerStatus;
  mode: EndpointMode;
  modelLabel: string;
  /** Direct mode: where requests go, and whether a key is set in the settings. */
  direct: { baseUrl: string; hasKey: boolean } | null;
  approvalMode: ApprovalMode;
  onModeChange: (mode: ApprovalMode) => void;
  providers: IProviderView | null;
  onProviderChange: (name: string) => void;
  onModelChange: (model: string) => void;
  onSetKey: () => void;
  onSend: (prompt: string) => boolean;
  onShowCell: (cellId: string) => void;
  inputRef: React.RefObject<HTMLTextAreaElement>;
  /** Saved chats of this notebook (null: not available). */
  history: IChatHistory | null;
  /** Insert code from an answer as a new cell below the active cell. */
  onInsertCode: (code: string) => void;
  /** What is attached to the next prompt. */
  attachments: AttachmentStore;
  /** Send the last request again (after an error). */
  onRetry: () => void;
  /** Open Notebook Agent's settings. */
  onOpenSettings: () => void;
  /** Copy files next to the notebook and attach them. */
  onAttachFiles: (files: File[]) => void;
  /** What `@` in the prompt offers. */
  mentions?: IMentionSource;
  /** Ask the server to look again for model servers on its machine. */
  onLookForLocalServers?: () => void;
}

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
  import('./fix-review').then(module => ({ default: module.FixReview }))
);

/** An answer: markdown, with Copy / Insert as cell on its code blocks. */
function AssistantMessage(props: {
  text: string;
  rendermime: IRenderMimeRegistry;
  onInsertCode: (code: string) => void;
}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const insert = useRef(props.onInsertCode);
  insert.current = props.onInsertCode;
  const trans = useTrans();
  useEffect(
    () =>
      host.current
        ? decorateCodeBlocks(host.current, {
            onInsert: code => insert.current(code),
            trans
          })
        : undefined,
    [trans]
  );
  return (
    <div className="jp-AgentSidebar-assistant" ref={host}>
      <MarkdownView text={props.text} rendermime={props.rendermime} />
    </div>
  );
}

/** The whole chat. */
export function ChatView(props: IChatViewProps): JSX.Element {
  const { session, rendermime } = props;
  const trans = useTrans();
  // Throttled: a streaming reply changes the session every few characters.
  const state = useThrottledStore(session, 50, urgentChange);
  const bottom = useRef<HTMLDivElement>(null);
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [state.items]);
  const running = state.status === 'running';

  return (
    <div
      className="jp-AgentSidebar-chat"
      {...fileDropHandlers(props.onAttachFiles)}
    >
      <div className="jp-AgentSidebar-header">
        <span className="jp-AgentSidebar-title">
          {trans.__('Notebook Agent')}
        </span>
        <span className="jp-AgentSidebar-model" title={trans.__('Model')}>
          {props.modelLabel}
        </span>
        <UsageBadge
          usage={state.usage}
          lastTurn={state.lastTurn}
          model={props.modelLabel}
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
        />
      </div>
      <div className="jp-AgentSidebar-transcript" aria-live="polite">
        <SetupNotice
          status={props.serverStatus}
          mode={props.mode}
          onLookAgain={props.onLookForLocalServers}
        />
        {props.mode === 'direct' && props.direct && (
          <DirectModeWarning {...props.direct} />
        )}
        {props.mode === 'local' && (
          <LocalModelProgress store={localModelStatus} />
        )}
        {state.plan && <PlanView plan={state.plan} />}
        {state.items.length === 0 && (
          <p className="jp-AgentSidebar-empty">
            {trans.__(
              'Ask for an analysis of the active notebook: the agent writes cells, runs them in its kernel, reads the results and answers.'
            )}
          </p>
        )}
        {state.items.map(item => {
          switch (item.kind) {
            case 'user':
              return (
                <div key={item.id} className="jp-AgentSidebar-user">
                  {item.text}
                </div>
              );
            case 'assistant':
              return (
                <AssistantMessage
                  key={item.id}
                  text={item.text}
                  rendermime={rendermime}
                  onInsertCode={props.onInsertCode}
                />
              );
            case 'tool':
              return (
                <ToolCallCard
                  key={`${item.id}-${state.items.indexOf(item)}`}
                  item={item}
                  onShowCell={props.onShowCell}
                />
              );
            case 'notice':
              return (
                <div key={item.id} className="jp-AgentSidebar-note">
                  {item.text}
                </div>
              );
          }
        })}
        {state.pendingApproval && (
          <ApprovalCard
            key={state.pendingApproval.call.id}
            request={state.pendingApproval}
            onDecide={decision => session.resolveApproval(decision)}
          />
        )}
        {state.review && (
          <Suspense fallback={null}>
            <FixReview
              review={state.review}
              onAccept={() => session.acceptReview()}
              onReject={() => void session.rejectReview()}
              onShowCell={props.onShowCell}
            />
          </Suspense>
        )}
        {running && !state.pendingApproval && (
          <div className="jp-AgentSidebar-working">{trans.__('Working…')}</div>
        )}
        {state.error && (
          <ErrorBanner
            error={state.error}
            canRetry={state.items.some(item => item.kind === 'user')}
            onRetry={props.onRetry}
            onOpenSettings={props.onOpenSettings}
          />
        )}
        <div ref={bottom} />
      </div>
      {props.providers && (
        <ProviderBar
          view={props.providers}
          disabled={running}
          onChange={props.onProviderChange}
          onModelChange={props.onModelChange}
          onSetKey={props.onSetKey}
          onOpen={
            props.providers.found ? props.onLookForLocalServers : undefined
          }
        />
      )}
      <div className="jp-AgentSidebar-mode">
        <label>
          {trans.__('Approval:')}{' '}
          <select
            aria-label={trans.__('Approval mode')}
            value={props.approvalMode}
            onChange={event =>
              props.onModeChange(event.target.value as ApprovalMode)
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
      </div>
      <AttachmentTray
        store={props.attachments}
        onAttachFiles={props.onAttachFiles}
      />
      <PromptBox
        running={running}
        onSend={props.onSend}
        onStop={() => session.stop()}
        inputRef={props.inputRef}
        mentions={props.mentions}
        onAttachCell={cell =>
          props.attachments.addCells([
            { id: cell.id, index: cell.index, source: cell.source }
          ])
        }
      />
    </div>
  );
}
