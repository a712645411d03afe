/**
 * Says, before the first prompt, when no model endpoint can be reached and
 * exactly how to configure one; in local mode without one, that the agent
 * runs a small model in this browser, and how to use an endpoint instead.
 */
import React from 'react';
import type { ServerStatus } from '../jupyter/server-status';
import type { EndpointMode } from '../jupyter/settings';

/** Props of `SetupNotice`. */
export interface ISetupNoticeProps {
  status: ServerStatus;
  mode: EndpointMode;
}

/** Setup instructions, or nothing when an endpoint is configured. */
export function SetupNotice({
  status,
  mode
}: ISetupNoticeProps): JSX.Element | null {
  const noEndpoint =
    status.kind === 'not-configured' || status.kind === 'no-extension';
  if (mode === 'local' && noEndpoint) {
    return <LocalNotice />;
  }
  if (mode === 'direct' || mode === 'local') {
    return null;
  }
  if (status.kind === 'not-configured') {
    return (
      <div className="jp-AgentSidebar-notice" role="status">
        <strong>No model endpoint is configured.</strong>
        <p>
          Start JupyterLab with an OpenAI-compatible endpoint in its
          environment, for example:
        </p>
        <pre>
          OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-…
          NOTEBOOK_AGENT_MODEL=gpt-4o-mini jupyter lab
        </pre>
        <p>
          Local servers work too (Ollama: <code>http://localhost:11434/v1</code>
          , llama.cpp or vLLM: <code>http://localhost:8000/v1</code>). Or set
          “Endpoint mode” to direct in Settings &gt; Notebook Agent.
        </p>
      </div>
    );
  }
  if (status.kind === 'no-extension') {
    return (
      <div className="jp-AgentSidebar-notice" role="status">
        <strong>The Notebook Agent server extension is not running.</strong>
        <p>
          Run{' '}
          <code>jupyter server extension enable jupyterlab_notebook_agent</code>{' '}
          and restart JupyterLab, or set “Endpoint mode” to direct in Settings
          &gt; Notebook Agent.
        </p>
      </div>
    );
  }
  return null;
}

/** The agent runs the in-browser model because the server has no endpoint. */
function LocalNotice(): JSX.Element {
  return (
    <div className="jp-AgentSidebar-notice" role="status">
      <strong>Notebook Agent runs a small model in this browser.</strong>
      <p>
        The Jupyter server has no model endpoint, so a local model answers: it
        is downloaded once, kept in the browser cache, and nothing leaves this
        machine. Small models are slower and make more mistakes than hosted
        ones, especially without a GPU.
      </p>
      <p>
        To use an endpoint instead, start JupyterLab with an OpenAI-compatible
        one in its environment, for example:
      </p>
      <pre>
        OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-…
        NOTEBOOK_AGENT_MODEL=gpt-4o-mini jupyter lab
      </pre>
      <p>
        (Ollama: <code>http://localhost:11434/v1</code>, llama.cpp or vLLM:{' '}
        <code>http://localhost:8000/v1</code>), or set “Endpoint mode” in
        Settings &gt; Notebook Agent.
      </p>
    </div>
  );
}
