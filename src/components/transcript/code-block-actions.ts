/**
 * "Copy" and "Insert as cell" on every code block of the agent's answers
 * ("Copy" only on a block of text: a printed table, printed-tables.ts).
 * The markdown renders asynchronously (and again while it streams), so a
 * MutationObserver adds the buttons to each new `<pre>` as it appears.
 */

import type { TranslationBundle } from '@jupyterlab/translation';
import { untranslated } from '../common/trans';

/** What the buttons do. */
export interface ICodeBlockActions {
  /** Insert the code as a new cell below the active cell of the notebook. */
  onInsert: (code: string) => void;
  /** Translates the buttons' labels. */
  trans?: TranslationBundle;
}

const BAR_CLASS = 'jp-AgentSidebar-codeActions';

/** Decorate the code blocks under `root`, now and as they appear; returns the cleanup. */
export function decorateCodeBlocks(
  root: HTMLElement,
  actions: ICodeBlockActions
): () => void {
  const decorate = () => {
    root.querySelectorAll('pre').forEach(pre => {
      if (pre.parentElement?.querySelector(`:scope > .${BAR_CLASS}`)) {
        return;
      }
      const wrapper = document.createElement('div');
      wrapper.className = 'jp-AgentSidebar-codeBlock';
      pre.replaceWith(wrapper);
      wrapper.appendChild(pre);
      wrapper.appendChild(toolbar(pre, actions));
    });
  };
  decorate();
  const observer = new MutationObserver(decorate);
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}

function toolbar(pre: HTMLElement, actions: ICodeBlockActions): HTMLElement {
  const bar = document.createElement('div');
  bar.className = BAR_CLASS;
  const code = () => (pre.textContent ?? '').replace(/\n$/, '');
  const trans = actions.trans ?? untranslated;
  const copy = trans.__('Copy');
  bar.appendChild(
    button(copy, trans.__('Copy the code'), async target => {
      await navigator.clipboard?.writeText(code());
      target.textContent = trans.__('Copied');
      window.setTimeout(() => (target.textContent = copy), 1500);
    })
  );
  if (pre.querySelector(':scope > code.language-text')) {
    return bar; // printed output, not code to run
  }
  bar.appendChild(
    button(
      trans.__('Insert as cell'),
      trans.__('Insert the code as a new cell below the active cell'),
      () => actions.onInsert(code())
    )
  );
  return bar;
}

function button(
  label: string,
  title: string,
  onClick: (target: HTMLButtonElement) => void | Promise<void>
): HTMLButtonElement {
  const element = document.createElement('button');
  element.className = 'jp-AgentSidebar-link';
  element.textContent = label;
  element.title = title;
  element.addEventListener('click', () => void onClick(element));
  return element;
}
