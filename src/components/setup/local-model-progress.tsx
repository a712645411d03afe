/**
 * The local model's state in the sidebar: a progress bar with bytes and
 * percent while the weights download, "Compiling…" while the sessions are
 * built, then the device it runs on and the decode speed, with any warning
 * (slow WASM path, a fallback) on the same line.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';
import type {
  ILocalModelStatus,
  LocalModelStatusStore
} from '../../agent/model/local/load-status';
import { rungName } from '../../agent/model/local/device-ladder';
import { untranslated, useTrans } from '../common/trans';

/** Props of the progress view. */
export interface ILocalModelProgressProps {
  store: LocalModelStatusStore;
}

/**
 * Shows what the local model is doing, in one line at a time: the stage
 * (with the latest fallback or the slow-path warning after it). Nothing
 * while idle, and nothing after a failure: the error banner says what
 * failed, with its actions, so the same error is not shown twice.
 */
export function LocalModelProgress(
  props: ILocalModelProgressProps
): JSX.Element | null {
  const trans = useTrans();
  const status = React.useSyncExternalStore(
    props.store.subscribe,
    props.store.getSnapshot,
    props.store.getSnapshot
  );
  if (status.stage === 'idle' || status.stage === 'error') {
    return null;
  }
  const note = status.fallbacks[status.fallbacks.length - 1] ?? status.warning;
  return (
    <div className="jp-AgentSidebar-localModel" aria-live="polite">
      <div className="jp-AgentSidebar-localModelLine">
        {describe(status, trans)}
        {note ? (
          <span className="jp-AgentSidebar-localModelNote"> · {note}</span>
        ) : null}
      </div>
      {status.stage === 'download' || status.stage === 'compiling' ? (
        <progress
          className="jp-AgentSidebar-localModelBar"
          aria-label={trans.__('Local model download')}
          max={100}
          value={status.percent}
        />
      ) : null}
    </div>
  );
}

/** The status line, in words. */
export function describe(
  status: ILocalModelStatus,
  trans: TranslationBundle = untranslated
): string {
  const name = status.model.split('/').pop() ?? status.model;
  switch (status.stage) {
    case 'download':
      return status.total
        ? trans.__(
            'Downloading %1: %2 of %3 MB (%4 %)',
            name,
            megabytes(status.loaded),
            megabytes(status.total),
            status.percent
          )
        : trans.__('Downloading %1…', name);
    case 'compiling':
      return trans.__('Preparing %1 (compiling shaders)…', name);
    case 'generating':
      if (status.prompt) {
        return readingLine(name, status.prompt, trans);
      }
    // Falls through: generating shows where and how fast, as ready does.
    case 'ready': {
      const where = status.rung
        ? trans.__(' on %1', rungName(status.rung))
        : '';
      const speed =
        status.tokensPerSecond !== undefined
          ? trans.__(', %1 tokens/s', status.tokensPerSecond.toFixed(1))
          : '';
      return `${name}${where}${speed}`;
    }
    case 'error':
      return trans.__('%1 could not run', name);
    case 'idle':
      return '';
  }
}

/**
 * "Reading the prompt: 2,345 tokens (1,200 cached), about 20 s": the engine
 * reports nothing while it processes a prompt, so the line says how much it
 * reads and, once a turn was measured, how long that should take.
 */
function readingLine(
  name: string,
  prompt: NonNullable<ILocalModelStatus['prompt']>,
  trans: TranslationBundle
): string {
  const tokens = prompt.tokens.toLocaleString('en-US');
  const cached = prompt.reused
    ? trans.__(' (%1 cached)', prompt.reused.toLocaleString('en-US'))
    : '';
  const estimate =
    prompt.estimateS !== undefined && prompt.estimateS >= 2
      ? trans.__(', about %1 s', Math.round(prompt.estimateS))
      : '';
  return trans.__(
    '%1: reading the prompt, %2 tokens%3%4…',
    name,
    tokens,
    cached,
    estimate
  );
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}
