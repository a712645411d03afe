/**
 * Picks one of the Jupyter server's providers for the chat, and lets the
 * user give the server a key for it (the key goes to the server, never to
 * the browser's storage; the UI only ever learns whether one is set). A
 * model server the Jupyter server found on its machine is offered like a
 * configured one, and says so.
 */
import React from 'react';
import { readableModelName } from '../../agent/model/model-label';
import { useTrans } from '../common/trans';

/** What the provider bar shows. */
export interface IProviderView {
  names: string[];
  selected: string;
  /** The provider's models (from its `/models`), and the one in use. */
  models: string[];
  model: string;
  hasKey: boolean;
  canStoreKey: boolean;
  /** The selected provider is a server found on the Jupyter server's machine. */
  found?: { label: string; models: number } | null;
}

/** Props of `ProviderBar`. */
export interface IProviderBarProps {
  view: IProviderView;
  disabled: boolean;
  onChange: (name: string) => void;
  onModelChange: (model: string) => void;
  onSetKey: () => void;
  /** The picker opened: look again for local model servers. */
  onOpen?: () => void;
}

/** The provider picker and its key state. */
export function ProviderBar({
  view,
  disabled,
  onChange,
  onModelChange,
  onSetKey,
  onOpen
}: IProviderBarProps): JSX.Element {
  const trans = useTrans();
  const found = view.found ?? null;
  return (
    <div className="jp-AgentSidebar-mode">
      {(view.names.length > 1 || found) && (
        <label>
          {trans.__('Provider:')}{' '}
          <select
            aria-label={trans.__('Provider')}
            value={view.selected}
            disabled={disabled}
            onFocus={onOpen}
            onChange={event => onChange(event.target.value)}
          >
            {view.names.map(name => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      )}{' '}
      {found && (
        <span className="jp-AgentSidebar-found" role="status">
          {trans._n(
            'Found %2 on this machine — %1 model',
            'Found %2 on this machine — %1 models',
            found.models,
            found.label
          )}
        </span>
      )}{' '}
      {view.models.length > 1 && (
        <label>
          {trans.__('Model:')}{' '}
          <select
            aria-label={trans.__('Model')}
            value={
              view.models.includes(view.model) ? view.model : view.models[0]
            }
            disabled={disabled}
            onChange={event => onModelChange(event.target.value)}
          >
            {view.models.map(model => (
              <option key={model} value={model} title={model}>
                {readableModelName(model)}
              </option>
            ))}
          </select>
        </label>
      )}{' '}
      {view.hasKey ? (
        <span className="jp-AgentSidebar-keyState">
          {trans.__('key set on the server')}
        </span>
      ) : (
        view.canStoreKey && (
          <button className="jp-AgentSidebar-link" onClick={onSetKey}>
            {trans.__('Set API key…')}
          </button>
        )
      )}
    </div>
  );
}
