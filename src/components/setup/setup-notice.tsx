/**
 * Says, before the first prompt, when no model endpoint can be reached and
 * exactly how to configure one; in local mode without one, that the agent
 * runs a small model in this browser, and how to use an endpoint instead.
 * When the server looks for model servers on its machine and found none,
 * it says so and offers to look again (after the user started one).
 */
import React from 'react';
import {
  isUnreachable,
  type ModelReach
} from '../../agent/model/local/reachability';
import { OfflineNotice } from './offline-notice';
import type { EndpointMode, ServerStatus } from '../config/sidebar-config';
import { useTrans, withElements } from '../common/trans';

/** Props of `SetupNotice`. */
export interface ISetupNoticeProps {
  status: ServerStatus;
  mode: EndpointMode;
  /** Ask the server to look again for local model servers. */
  onLookAgain?: () => void;
  /** Whether the local model's files can be reached (local mode). */
  reach?: ModelReach;
  /** Open Notebook Agent's settings (a way out of an unreachable host). */
  onOpenSettings?: () => void;
}

/** The command line that starts JupyterLab with an endpoint. */
const EXAMPLE =
  'OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… NOTEBOOK_AGENT_MODEL=gpt-4o-mini jupyter lab';

/** Setup instructions, or nothing when an endpoint is configured. */
export function SetupNotice({
  status,
  mode,
  onLookAgain,
  reach,
  onOpenSettings
}: ISetupNoticeProps): JSX.Element | null {
  const trans = useTrans();
  const noEndpoint =
    status.kind === 'not-configured' || status.kind === 'no-extension';
  const lookAgain =
    status.kind === 'not-configured' && status.discovery && onLookAgain ? (
      <NoneFound onLookAgain={onLookAgain} />
    ) : null;
  if (mode === 'local' && reach && isUnreachable(reach) && onOpenSettings) {
    // Offline: the one notice says why the local model cannot start, and the ways out.
    return (
      <OfflineNotice
        reach={reach}
        onOpenSettings={onOpenSettings}
        lookAgain={lookAgain}
      />
    );
  }
  if (mode === 'local' && noEndpoint) {
    return <LocalNotice lookAgain={lookAgain} />;
  }
  if (mode === 'direct' || mode === 'local') {
    return null;
  }
  if (status.kind === 'not-configured') {
    return (
      <div className="jp-AgentSidebar-notice" role="status">
        <strong>{trans.__('No model endpoint is configured.')}</strong>
        <p>
          {trans.__(
            'Start JupyterLab with an OpenAI-compatible endpoint in its environment, for example:'
          )}
        </p>
        <pre>{EXAMPLE}</pre>
        <p>
          {withElements(
            trans,
            'Local servers work too (Ollama: %1, llama.cpp or vLLM: %2). Or set “Endpoint mode” to direct in Settings > Notebook Agent.',
            <code>http://localhost:11434/v1</code>,
            <code>http://localhost:8000/v1</code>
          )}
        </p>
        {lookAgain}
      </div>
    );
  }
  if (status.kind === 'no-extension') {
    return (
      <div className="jp-AgentSidebar-notice" role="status">
        <strong>
          {trans.__('The Notebook Agent server extension is not running.')}
        </strong>
        <p>
          {withElements(
            trans,
            'Run %1 and restart JupyterLab, or set “Endpoint mode” to direct in Settings > Notebook Agent.',
            <code>
              jupyter server extension enable jupyterlab_notebook_agent
            </code>
          )}
        </p>
      </div>
    );
  }
  return null;
}

/** No model server answered on the server's machine; the user may start one and look again. */
function NoneFound({ onLookAgain }: { onLookAgain: () => void }): JSX.Element {
  const trans = useTrans();
  return (
    <p>
      {trans.__(
        'No model server (Ollama, LM Studio, llama.cpp or vLLM) answers on the Jupyter server’s machine.'
      )}{' '}
      <button className="jp-AgentSidebar-link" onClick={onLookAgain}>
        {trans.__('Look again')}
      </button>
    </p>
  );
}

/** The agent runs the in-browser model because the server has no endpoint. */
function LocalNotice({
  lookAgain
}: {
  lookAgain: JSX.Element | null;
}): JSX.Element {
  const trans = useTrans();
  return (
    <div className="jp-AgentSidebar-notice" role="status">
      <strong>
        {trans.__('Notebook Agent runs a small model in this browser.')}
      </strong>
      <p>
        {trans.__(
          'The Jupyter server has no model endpoint, so a local model answers: it is downloaded once, kept in the browser cache, and nothing leaves this machine. Small models are slower and make more mistakes than hosted ones, especially without a GPU.'
        )}
      </p>
      <p>
        {trans.__(
          'To use an endpoint instead, start JupyterLab with an OpenAI-compatible one in its environment, for example:'
        )}
      </p>
      <pre>{EXAMPLE}</pre>
      <p>
        {withElements(
          trans,
          '(Ollama: %1, llama.cpp or vLLM: %2), or set “Endpoint mode” in Settings > Notebook Agent.',
          <code>http://localhost:11434/v1</code>,
          <code>http://localhost:8000/v1</code>
        )}
      </p>
      {lookAgain}
    </div>
  );
}
