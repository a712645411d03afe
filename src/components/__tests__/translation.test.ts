import type { TranslationBundle } from '@jupyterlab/translation';
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { TranscriptItem } from '../../agent/session';
import { PlanView } from '../transcript/plan-view';
import { PromptBox } from '../prompt/prompt-box';
import { ToolCallCard } from '../transcript/tool-call-card';
import { untranslated, withElements } from '../common/trans';
import { marking, render as renderWith } from './render';

const render = (element: React.ReactElement, bundle = marking) =>
  renderWith(element, bundle);

/** The text between tags, and the values of the attributes people read. */
function visibleStrings(html: string): string[] {
  const text = html
    .replace(/<[^>]*>/g, '\n')
    .split('\n')
    .map(s => s.trim())
    .filter(Boolean);
  const attributes = [
    ...html.matchAll(/(?:aria-label|title|placeholder|alt)="([^"]*)"/g)
  ]
    .map(m => m[1])
    .filter(Boolean);
  return [...text, ...attributes];
}

/** Every visible string went through the bundle. */
const TRANSLATED = /^«.*»$/;

// Rendering on the "server" (in Node) is the test's doing, not the component's.
const consoleError = console.error;
beforeAll(() => {
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (
      !String(args[0]).includes('useLayoutEffect does nothing on the server')
    ) {
      consoleError(...args);
    }
  });
});
afterAll(() => jest.restoreAllMocks());

describe('translated components', () => {
  it('a tool card with images says everything through the bundle', () => {
    const item: Extract<TranscriptItem, { kind: 'tool' }> = {
      kind: 'tool',
      id: 'call-1',
      name: 'run_cell',
      title: 'Run this cell',
      arguments: '{}',
      status: 'done',
      cellId: 'cell-1',
      images: [
        { mime: 'image/png', base64: 'iVBORw0KGgo=', width: 320, height: 200 }
      ],
      moreImages: 2
    };
    const html = render(
      React.createElement(ToolCallCard, { item, onShowCell: () => undefined })
    );
    expect(html).toContain('«Run this cell»');
    expect(html).toContain('«done»');
    expect(html).toContain('«Show cell»');
    expect(html).toContain('«2 images not shown here»');
    expect(html).toContain(
      'aria-label="««Image 1 of 1 (320×200)»: show full size»"'
    );
    for (const text of visibleStrings(html)) {
      expect(text).toMatch(TRANSLATED);
    }
  });

  it('the prompt box and the plan too', () => {
    const prompt = render(
      React.createElement(PromptBox, {
        running: false,
        onSend: () => true,
        onStop: () => undefined
      })
    );
    expect(prompt).toContain('aria-label="«Ask Notebook Agent»"');
    expect(prompt).toContain('«Send»');
    for (const text of visibleStrings(prompt)) {
      expect(text).toMatch(TRANSLATED);
    }
    const plan = render(
      React.createElement(PlanView, {
        plan: [
          { title: 'Load', status: 'done' },
          { title: 'Plot', status: 'pending' }
        ]
      })
    );
    expect(plan).toContain('«Plan · 1/2 done»');
    expect(plan).toContain('aria-label="«Load: «done»»"');
    expect(plan).toContain('aria-label="«Plot: «to do»»"');
  });

  it('without a provider the strings are the English ones, with their arguments', () => {
    const html = renderToStaticMarkup(
      React.createElement(PlanView, {
        plan: [{ title: 'Load', status: 'in-progress' }]
      })
    );
    expect(html).toContain('Plan · 0/1 done');
    expect(html).toContain('aria-label="Load: in progress"');
    expect(untranslated._n('%1 attempt', '%1 attempts', 1)).toBe('1 attempt');
    expect(untranslated._n('%1 file in %2', '%1 files in %2', 3, 'a')).toBe(
      '3 files in a'
    );
    expect(untranslated.__('%1 of %2, %3', 'x', 2)).toBe('x of 2, %3');
  });
});

describe('withElements', () => {
  it('keeps elements where the translation puts them', () => {
    const reordering: TranslationBundle = {
      ...untranslated,
      __: (msgid: string, ...args: unknown[]) =>
        msgid === 'Run %1, then %2.'
          ? untranslated.__('Zuerst %2, dann %1.', ...args)
          : msgid
    };
    const html = renderToStaticMarkup(
      React.createElement(
        'p',
        null,
        ...withElements(
          reordering,
          'Run %1, then %2.',
          React.createElement('code', null, 'a'),
          React.createElement('code', null, 'b')
        )
      )
    );
    expect(html).toBe('<p>Zuerst <code>b</code>, dann <code>a</code>.</p>');
  });
});
