/**
 * Picks one of the Jupyter server's providers for the chat, and lets the
 * user give the server a key for it (the key goes to the server, never to
 * the browser's storage; the UI only ever learns whether one is set).
 */
import React from 'react';
import { useTrans } from './trans';

/** What the provider bar shows. */
export interface IProviderView {
  names: string[];
  selected: string;
  /** The provider's models (from its `/models`), and the one in use. */
  models: string[];
  model: string;
  hasKey: boolean;
  canStoreKey: boolean;
}

/** Props of `ProviderBar`. */
export interface IProviderBarProps {
  view: IProviderView;
  disabled: boolean;
  onChange: (name: string) => void;
  onModelChange: (model: string) => void;
  onSetKey: () => void;
}

/** The provider picker and its key state. */
export function ProviderBar({
  view,
  disabled,
  onChange,
  onModelChange,
  onSetKey
}: IProviderBarProps): JSX.Element {
  const trans = useTrans();
  return (
    <div className="jp-AgentSidebar-mode">
      {view.names.length > 1 && (
        <label>
          {trans.__('Provider:')}{' '}
          <select
            aria-label={trans.__('Provider')}
            value={view.selected}
            disabled={disabled}
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
              <option key={model} value={model}>
                {model}
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
