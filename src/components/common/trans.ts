/**
 * Translation for the sidebar and dialogs: the TranslationBundle of
 * Notebook Agent's domain (from JupyterLab's ITranslator) reaches the React
 * components through a context. Without a provider they get `untranslated`,
 * which returns the strings as written with their %1… arguments filled in,
 * as JupyterLab's nullTranslator does.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import React, { createContext, useContext } from 'react';

/** The gettext domain of Notebook Agent's strings. */
export const TRANSLATION_DOMAIN = 'jupyterlab_notebook_agent';

/** `text` with %1, %2… replaced by `args` (gettext's placeholders). */
function format(text: string, args: ReadonlyArray<unknown>): string {
  return text.replace(/%(\d+)/g, (placeholder, n: string) =>
    Number(n) >= 1 && Number(n) <= args.length
      ? String(args[Number(n) - 1])
      : placeholder
  );
}

function plural(
  one: string,
  many: string,
  n: number,
  args: ReadonlyArray<unknown>
): string {
  return format(n === 1 ? one : many, [n, ...args]);
}

/** The bundle that translates nothing. */
export const untranslated: TranslationBundle = {
  __: (msgid: string, ...args: unknown[]) => format(msgid, args),
  _n: (one: string, many: string, n: number, ...args: unknown[]) =>
    plural(one, many, n, args),
  _p: (_context: string, msgid: string, ...args: unknown[]) =>
    format(msgid, args),
  _np: (_c: string, one: string, many: string, n: number, ...args: unknown[]) =>
    plural(one, many, n, args),
  gettext: (msgid: string, ...args: unknown[]) => format(msgid, args),
  ngettext: (one: string, many: string, n: number, ...args: unknown[]) =>
    plural(one, many, n, args),
  pgettext: (_context: string, msgid: string, ...args: unknown[]) =>
    format(msgid, args),
  npgettext: (
    _c: string,
    one: string,
    many: string,
    n: number,
    ...args: unknown[]
  ) => plural(one, many, n, args),
  dcnpgettext: (
    _domain: string,
    _c: string,
    one: string,
    many: string,
    n: number,
    ...args: unknown[]
  ) => plural(one, many, n, args)
};

/** The bundle the components translate with. */
export const TranslationContext =
  createContext<TranslationBundle>(untranslated);

/** The translation bundle of the surrounding provider (or `untranslated`). */
export function useTrans(): TranslationBundle {
  return useContext(TranslationContext);
}

/**
 * A sentence translated whole, with elements (code, links) where its %1,
 * %2… are: `withElements(trans, 'Run %1, then restart.', <code>…</code>)`.
 */
export function withElements(
  trans: TranslationBundle,
  msgid: string,
  ...elements: React.ReactNode[]
): React.ReactNode[] {
  // Private-use characters mark where each element goes.
  const text = trans.__(msgid, ...elements.map((_, i) => `\uE000${i}\uE001`));
  return text
    .split(/\uE000(\d+)\uE001/)
    .map((part, i) =>
      i % 2 === 0
        ? part
        : React.createElement(React.Fragment, { key: i }, elements[+part])
    );
}
