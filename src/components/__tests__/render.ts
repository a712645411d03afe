/**
 * Rendering a view to static HTML for the component tests, with a
 * translation bundle: `untranslated`, or `marking`, which wraps everything
 * it translated in «…» so a test can tell translated text from literal text.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { TranslationContext, untranslated } from '../common/trans';

/** A bundle that marks what it translated: «…». */
export const marking: TranslationBundle = {
  ...untranslated,
  __: (msgid: string, ...args: unknown[]) =>
    `«${untranslated.__(msgid, ...args)}»`,
  _n: (one: string, many: string, n: number, ...args: unknown[]) =>
    `«${untranslated._n(one, many, n, ...args)}»`
};

/** `element` as HTML, rendered with `bundle`. */
export function render(
  element: React.ReactElement,
  bundle: TranslationBundle = untranslated
): string {
  return renderToStaticMarkup(
    React.createElement(TranslationContext.Provider, { value: bundle }, element)
  );
}
