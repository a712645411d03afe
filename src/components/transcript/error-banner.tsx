/**
 * The banner of an error: what happened, what to do, and the action that
 * fixes it where there is one (Retry, Open settings).
 */
import React from 'react';
import type { IAgentError } from '../../agent/types';
import { useTrans } from '../common/trans';

/** Errors a second try may get past (the endpoint is back, the key was fixed…). */
const RETRYABLE = new Set([
  'unreachable',
  'rate-limit',
  'server',
  'auth',
  'unknown-model',
  'not-configured',
  'unknown'
]);

/** Errors the settings fix (endpoint, key, model). */
const SETTINGS_FIXES = new Set([
  'not-configured',
  'auth',
  'unknown-model',
  'unreachable'
]);

/** Props of `ErrorBanner`. */
export interface IErrorBannerProps {
  error: IAgentError;
  /** Whether there is a request to send again. */
  canRetry: boolean;
  onRetry: () => void;
  onOpenSettings: () => void;
}

/** The error, its hint and its actions. */
export function ErrorBanner(props: IErrorBannerProps): JSX.Element {
  const trans = useTrans();
  const { error } = props;
  return (
    <div className="jp-AgentSidebar-error" role="alert">
      <strong>{error.message}</strong>
      <p>{error.hint}</p>
      <div className="jp-AgentSidebar-actions">
        {RETRYABLE.has(error.kind) && props.canRetry && (
          <button
            className="jp-mod-styled jp-mod-accept"
            onClick={props.onRetry}
          >
            {trans.__('Retry')}
          </button>
        )}
        {SETTINGS_FIXES.has(error.kind) && (
          <button className="jp-mod-styled" onClick={props.onOpenSettings}>
            {trans.__('Open settings')}
          </button>
        )}
      </div>
    </div>
  );
}
