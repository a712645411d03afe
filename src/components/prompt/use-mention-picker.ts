/**
 * The `@` picker's state for a text box: whether it is open, its options,
 * the highlighted one, and the keys it takes (arrows, Enter/Tab, Escape).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type React from 'react';
import { useEffect, useMemo, useState } from 'react';
import {
  activeMention,
  mentionOptions,
  mergeVariables,
  type IMention,
  type IMentionSource,
  type MentionOption
} from './mentions';

/** What `useMentionPicker` returns. */
export interface IMentionPicker {
  /** The mention being typed, while the picker shows options. */
  mention: IMention | null;
  options: MentionOption[];
  /** Index of the highlighted option. */
  active: number;
  setActive: (index: number) => void;
  /** Handle a key of the text box; true when the picker took it. */
  onKeyDown: (event: React.KeyboardEvent) => boolean;
  /** Close it (a click elsewhere, a new chat, the sidebar hidden); it stays closed for this `@`. */
  dismiss: () => void;
}

/** The picker for `text` with the caret at `caret`; `onPick` applies a choice. */
export function useMentionPicker(
  text: string,
  caret: number,
  source: IMentionSource | undefined,
  onPick: (option: MentionOption, mention: IMention) => void,
  trans: TranslationBundle
): IMentionPicker {
  const [active, setActive] = useState(0);
  // The `@` (by position) whose picker Escape closed: it stays closed.
  const [dismissed, setDismissed] = useState<number | null>(null);
  // The kernel's variables, asked when the picker opens (the guesses show meanwhile).
  const [kernelNames, setKernelNames] = useState<string[] | null>(null);
  const typed = source ? activeMention(text, caret) : null;
  const mention = typed && typed.start !== dismissed ? typed : null;
  const opened = mention?.start ?? null;
  useEffect(() => {
    setKernelNames(null);
    if (opened === null || !source?.kernelVariables) {
      return;
    }
    let current = true;
    source
      .kernelVariables()
      .then(names => current && setKernelNames(names))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [opened, source]);
  const options = useMemo(
    () =>
      mention && source
        ? mentionOptions(
            source.cells(),
            mergeVariables(source.variables(), kernelNames),
            mention.query,
            trans
          )
        : [],
    // The notebook may change while the picker is open: read it as the text changes.
    [mention?.start, mention?.query, source, text, trans, kernelNames]
  );
  useEffect(() => setActive(0), [mention?.start, mention?.query]);
  useEffect(() => {
    if (!typed) {
      setDismissed(null);
    }
  }, [typed === null]);

  const shown = mention !== null && options.length > 0;
  const onKeyDown = (event: React.KeyboardEvent): boolean => {
    if (!shown || event.nativeEvent.isComposing) {
      return false;
    }
    const count = options.length;
    switch (event.key) {
      case 'ArrowDown':
        setActive((active + 1) % count);
        break;
      case 'ArrowUp':
        setActive((active - 1 + count) % count);
        break;
      case 'Enter':
      case 'Tab':
        if (event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) {
          return false;
        }
        onPick(options[Math.min(active, count - 1)], mention);
        break;
      case 'Escape':
        // Closes the picker only: a run in progress goes on.
        setDismissed(mention.start);
        event.stopPropagation();
        break;
      default:
        return false;
    }
    event.preventDefault();
    return true;
  };
  const dismiss = () => {
    if (mention) {
      setDismissed(mention.start);
    }
  };
  return {
    dismiss,
    mention: shown ? mention : null,
    options: shown ? options : [],
    active: Math.min(active, Math.max(0, options.length - 1)),
    setActive,
    onKeyDown
  };
}
