/**
 * What the sidebar says of a run's lifecycle: a soft timeout's card, a card
 * of a run a reload interrupted, the line naming the chat's notebook (and
 * its kernel still busy after a reload), and another notebook's view while
 * a run works elsewhere. Every string goes through the translation bundle.
 */
import React from 'react';
import type { TranscriptItem } from '../../agent/session';
import { NotebookLine, WorkingElsewhere } from '../chat/notebook-line';
import { ToolCallCard } from '../transcript/tool-call-card';
import { marking, render } from './render';

const text = (html: string) => html.replace(/<[^>]*>/g, '');

const card = (
  patch: Partial<Extract<TranscriptItem, { kind: 'tool' }>>
): React.ReactElement =>
  React.createElement(ToolCallCard, {
    item: {
      kind: 'tool',
      id: 'call-1',
      name: 'run_cell',
      arguments: '{"cell_id":"c1"}',
      status: 'done',
      ...patch
    }
  });

describe('lifecycle views', () => {
  it('a soft timeout’s card says "still running (30 s)", never "done"', () => {
    const html = render(
      card({ stillRunning: true, durationMs: 30_200, output: 'running\n1' })
    );
    expect(text(html)).toContain('still running (30 s)');
    expect(text(html)).not.toContain('done');
    expect(text(render(card({ durationMs: 1200 })))).toContain('done · 1.2 s');
  });

  it('a card of a run the reload interrupted says so', () => {
    const html = render(card({ status: 'interrupted' }));
    expect(text(html)).toContain('interrupted (page reloaded)');
    expect(text(html)).not.toContain('running…');
  });

  it('names the chat’s notebook, and the kernel still busy after a reload', () => {
    const idle = render(
      React.createElement(NotebookLine, {
        path: 'work/A.ipynb',
        kernelBusy: false,
        onInterrupt: () => undefined
      })
    );
    expect(text(idle)).toBe('Chat of A.ipynb');
    const busy = render(
      React.createElement(NotebookLine, {
        path: 'work/A.ipynb',
        kernelBusy: true,
        onInterrupt: () => undefined
      }),
      marking
    );
    expect(text(busy)).toContain(
      '«The kernel of A.ipynb is still busy with the agent’s cell from before the page was reloaded.»'
    );
    expect(busy).toContain('«Interrupt»');
  });

  it('on another notebook: "Working in A.ipynb — Go there · Stop"', () => {
    const props = {
      path: 'work/A.ipynb',
      waiting: false,
      onGo: () => undefined,
      onStop: () => undefined
    };
    expect(text(render(React.createElement(WorkingElsewhere, props)))).toBe(
      'Working in A.ipynb — Go there · Stop'
    );
    const marked = text(
      render(
        React.createElement(WorkingElsewhere, { ...props, waiting: true }),
        marking
      )
    );
    expect(marked).toBe(
      '«Working in A.ipynb (waiting for your approval) — «Go there» · «Stop»»'
    );
  });
});
