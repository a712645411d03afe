/**
 * Before the first prompt, when the local model's files cannot be reached
 * (offline, a firewall, a host that has not got them): says so, naming the
 * host, and offers the three ways out as actions: an OpenAI-compatible
 * endpoint (the environment variables the server reads), weights served
 * by the Jupyter server (`c.NotebookAgent.local_models_dir`), or the
 * settings (another host, another model, another endpoint mode).
 */
import React, { useId, useState } from 'react';
import type { ModelUnreachable } from '../../agent/model/local/reachability';
import { useTrans, withElements } from '../common/trans';

/** Props of `OfflineNotice`. */
export interface IOfflineNoticeProps {
  reach: ModelUnreachable;
  /** Open Notebook Agent's settings. */
  onOpenSettings: () => void;
  /**
   * "No model server answers … Look again" where the server looks for local
   * model servers: one started now is a way out too.
   */
  lookAgain?: JSX.Element | null;
}

/** The environment the server reads for its endpoint, one variable a line. */
const ENDPOINT_ENV = [
  'OPENAI_BASE_URL=https://api.openai.com/v1 \\',
  'OPENAI_API_KEY=sk-… \\',
  'NOTEBOOK_AGENT_MODEL=gpt-4o-mini \\',
  'jupyter lab'
].join('\n');

/** The server setting that serves a folder of models. */
const MODELS_DIR_LINE = 'c.NotebookAgent.local_models_dir = "/srv/models"';

type Way = 'endpoint' | 'server';

/** The notice, with its actions. */
export function OfflineNotice({
  reach,
  onOpenSettings,
  lookAgain
}: IOfflineNoticeProps): JSX.Element {
  const trans = useTrans();
  const id = useId();
  const [open, setOpen] = useState<Way | null>(null);
  const toggle = (way: Way) => setOpen(open === way ? null : way);
  const model = reach.model ?? trans.__('<model id>');
  return (
    <div
      className="jp-AgentSidebar-notice jp-AgentSidebar-offline"
      role="status"
      aria-labelledby={`${id}-title`}
    >
      <strong id={`${id}-title`}>
        {reach.state === 'missing'
          ? trans.__('%1 has no files for this model', reach.host)
          : trans.__('Can’t reach %1 — offline or blocked?', reach.host)}
      </strong>
      <p>
        {reach.state === 'missing'
          ? trans.__(
              'The in-browser model loads its files from %1, which answered 404 for %2.',
              reach.host,
              reach.url
            )
          : withElements(
              trans,
              'The in-browser model downloads its files from %1 on first use; asking for %2 failed (%3).',
              reach.host,
              <code>{reach.url}</code>,
              reach.reason
            )}{' '}
        {trans.__('Choose another way:')}
      </p>
      <div className="jp-AgentSidebar-offlineActions">
        <button
          className="jp-mod-styled"
          aria-expanded={open === 'endpoint'}
          aria-controls={`${id}-endpoint`}
          onClick={() => toggle('endpoint')}
        >
          {trans.__('Use an endpoint')}
        </button>
        <button
          className="jp-mod-styled"
          aria-expanded={open === 'server'}
          aria-controls={`${id}-server`}
          onClick={() => toggle('server')}
        >
          {trans.__('Serve weights from the server')}
        </button>
        <button className="jp-mod-styled" onClick={onOpenSettings}>
          {trans.__('Open settings')}
        </button>
      </div>
      <div id={`${id}-endpoint`} hidden={open !== 'endpoint'}>
        <p>
          {trans.__(
            'Start JupyterLab with an OpenAI-compatible endpoint in its environment (the server reads these variables; the key stays on the server):'
          )}
        </p>
        <pre>{ENDPOINT_ENV}</pre>
        <p>
          {withElements(
            trans,
            'A server on your machine works too, with no key: Ollama %1, llama.cpp or vLLM %2.',
            <code>http://localhost:11434/v1</code>,
            <code>http://localhost:8000/v1</code>
          )}
        </p>
      </div>
      <div id={`${id}-server`} hidden={open !== 'server'}>
        <p>
          {withElements(
            trans,
            'Put the model’s files on the Jupyter server’s machine (%1 with config.json, tokenizer.json, onnx/model_q4.onnx…), add to jupyter_server_config.py:',
            <code>/srv/models/{model}/</code>
          )}
        </p>
        <pre>{MODELS_DIR_LINE}</pre>
        <p>
          {withElements(
            trans,
            'restart JupyterLab, and set “Local model path” to %1 in the settings.',
            <code>notebook-agent/models/</code>
          )}
        </p>
      </div>
      {lookAgain}
    </div>
  );
}
