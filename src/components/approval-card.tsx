/**
 * An inline approval prompt: exactly what will run (editable), and
 * Run / Reject with an optional reason that goes back to the agent.
 */
import React, { useState } from 'react';
import type {
  ApprovalDecision,
  IApprovalRequest
} from '../agent/loop/approval';
import { useTrans } from './trans';

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
  const verb =
    request.kind === 'edit'
      ? trans.__('Apply')
      : request.kind === 'restart'
        ? trans.__('Restart')
        : request.kind === 'replace'
          ? trans.__('Replace')
          : trans.__('Run');
  return (
    <div
      className="jp-AgentSidebar-approval"
      role="group"
      aria-label={trans.__('Approval needed')}
    >
      <strong>{trans.__('%1?', request.title)}</strong>
      {request.code !== null && (
        <textarea
          className="jp-AgentSidebar-approvalCode"
          aria-label={trans.__('Code to approve')}
          value={code}
          rows={Math.min(12, Math.max(2, code.split('\n').length))}
          onChange={event => setCode(event.target.value)}
        />
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
            if (event.key === 'Enter') {
              onDecide({ approved: false, reason });
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
            <button
              className="jp-mod-styled jp-mod-reject"
              onClick={() => setRejecting(true)}
            >
              {trans.__('Reject')}
            </button>
            <button
              className="jp-mod-styled jp-mod-accept"
              onClick={() =>
                onDecide(
                  request.code !== null && code !== request.code
                    ? { approved: true, code }
                    : { approved: true }
                )
              }
            >
              {verb}
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
