/**
 * An inline approval prompt: exactly what will run (editable), and
 * Run / Reject with an optional reason that goes back to the agent.
 *
 * Keyboard: the card takes the focus when it appears and is announced (an
 * assertive live region says what will run); Enter approves,
 * Escape starts a rejection (the reason box, where Enter sends and Escape
 * goes back); Tab moves between the code, Run and Reject; Ctrl/Cmd+Enter
 * in the code approves the edited code.
 */
import React, {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState
} from 'react';
import type {
  ApprovalDecision,
  IApprovalRequest
} from '../../agent/loop/approval';
import { useTrans } from '../common/trans';

/** Props of `ApprovalCard`. */
export interface IApprovalCardProps {
  request: IApprovalRequest;
  onDecide: (decision: ApprovalDecision) => void;
}

/** Ask the user before the agent acts. */
export function ApprovalCard({
  request,
  onDecide
}: IApprovalCardProps): JSX.Element {
  const trans = useTrans();
  const [code, setCode] = useState(request.code ?? '');
  const [reason, setReason] = useState('');
  const [rejecting, setRejecting] = useState(false);
  const card = useRef<HTMLDivElement>(null);
  const codeBox = useRef<HTMLTextAreaElement>(null);
  const keysId = useId();
  useLayoutEffect(() => {
    // The whole code shows (wrapped lines too), not a few rows of it; a
    // long one scrolls past the box's max-height (style/base.css).
    const box = codeBox.current;
    if (box) {
      box.style.height = 'auto';
      const borders = box.offsetHeight - box.clientHeight;
      box.style.height = `${box.scrollHeight + borders}px`;
    }
  }, [code]);
  useEffect(() => {
    // Where the user must act next. Not taken from someone typing
    // elsewhere (a notebook cell): only from the sidebar or from nowhere.
    const node = card.current;
    const active = node?.ownerDocument.activeElement;
    const sidebar = node?.closest('.jp-AgentSidebar');
    if (
      node &&
      (!active ||
        active === node.ownerDocument.body ||
        sidebar?.contains(active))
    ) {
      node.focus({ preventScroll: true });
    }
    node?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  const verb =
    request.kind === 'edit'
      ? trans.__('Apply')
      : request.kind === 'restart'
        ? trans.__('Restart')
        : request.kind === 'replace'
          ? trans.__('Replace')
          : trans.__('Run');
  const question = trans.__('%1?', request.title);
  const approve = () =>
    onDecide(
      request.code !== null && code !== request.code
        ? { approved: true, code }
        : { approved: true }
    );
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.nativeEvent.isComposing || rejecting) {
      return;
    }
    const onCard = event.target === event.currentTarget;
    const inCode = event.target instanceof HTMLTextAreaElement;
    if (
      event.key === 'Enter' &&
      (onCard || (inCode && (event.ctrlKey || event.metaKey)))
    ) {
      event.preventDefault();
      approve();
    } else if (event.key === 'Escape') {
      // The sidebar's own Escape (Stop in the prompt) must not see it.
      event.preventDefault();
      event.stopPropagation();
      setRejecting(true);
    }
  };
  return (
    <div
      ref={card}
      className="jp-AgentSidebar-approval"
      role="group"
      tabIndex={-1}
      aria-label={trans.__('Approval needed: %1', question)}
      aria-describedby={keysId}
      onKeyDown={onKeyDown}
    >
      <strong>{question}</strong>
      <span className="jp-AgentSidebar-srOnly" role="alert">
        {trans.__('Approval needed: %1', question)}
      </span>
      <span id={keysId} className="jp-AgentSidebar-srOnly">
        {trans.__(
          'Enter: %1. Escape: reject. Tab reaches the code and the buttons.',
          verb
        )}
      </span>
      {request.code !== null && (
        <textarea
          ref={codeBox}
          className="jp-AgentSidebar-approvalCode"
          aria-label={trans.__('Code to approve')}
          value={code}
          rows={Math.max(2, code.split('\n').length)}
          onChange={event => setCode(event.target.value)}
        />
      )}
      {!!request.installSources?.length && (
        <div
          className="jp-AgentSidebar-approvalSources"
          role="note"
          aria-label={trans.__('Where this install fetches from')}
        >
          {trans.__('Where pip fetches from, besides the default index:')}
          <ul>
            {request.installSources.map((source, i) => (
              <li key={i}>
                <code>{source.from}</code>: <code>{source.text}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {request.diff !== undefined && (
        <DiffView diff={request.diff} label={trans.__('Changes')} />
      )}
      {request.code === null && request.details && (
        <pre
          className="jp-AgentSidebar-approvalDetails"
          aria-label={trans.__('Arguments')}
        >
          {request.details}
        </pre>
      )}
      {rejecting && (
        <input
          className="jp-AgentSidebar-input"
          aria-label={trans.__('Reason for rejecting')}
          placeholder={trans.__('Why not? (sent to the agent)')}
          value={reason}
          autoFocus
          onChange={event => setReason(event.target.value)}
          onKeyDown={event => {
            if (event.nativeEvent.isComposing) {
              return;
            }
            if (event.key === 'Enter') {
              event.preventDefault();
              onDecide({ approved: false, reason });
            } else if (event.key === 'Escape') {
              // Back to the choice: nothing is sent.
              event.preventDefault();
              event.stopPropagation();
              setRejecting(false);
              card.current?.focus();
            }
          }}
        />
      )}
      <div className="jp-AgentSidebar-actions">
        {rejecting ? (
          <button
            className="jp-mod-styled jp-mod-warn"
            onClick={() => onDecide({ approved: false, reason })}
          >
            {trans.__('Send rejection')}
          </button>
        ) : (
          <>
            <button className="jp-mod-styled jp-mod-accept" onClick={approve}>
              {verb}
            </button>
            <button
              className="jp-mod-styled jp-mod-reject"
              onClick={() => setRejecting(true)}
            >
              {trans.__('Reject')}
            </button>
          </>
        )}
      </div>
    </div>
  );
}

/** A unified diff, one line a row, added and removed lines marked. */
function DiffView(props: { diff: string; label: string }): JSX.Element {
  return (
    <pre className="jp-AgentSidebar-approvalDiff" aria-label={props.label}>
      {props.diff.split('\n').map((line, index) => (
        <div
          key={index}
          className={
            line.startsWith('+') && !line.startsWith('+++')
              ? 'jp-mod-added'
              : line.startsWith('-') && !line.startsWith('---')
                ? 'jp-mod-removed'
                : undefined
          }
        >
          {line || ' '}
        </div>
      ))}
    </pre>
  );
}
