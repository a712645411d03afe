/**
 * The tool card's words: its title from the tool, "awaiting your approval"
 * (without the code, which the approval card shows) while it waits, and a
 * neutral "Rejected by you: …" with the model's text behind a disclosure.
 */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { TranscriptItem } from '../../agent/session';
import { ApprovalCard } from '../transcript/approval-card';
import { ToolCallCard } from '../transcript/tool-call-card';

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

const item = (patch: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  id: 'call-1',
  name: 'insert_cell',
  title: 'Insert this cell',
  arguments: '{"source":"print(42)"}',
  status: 'running',
  ...patch
});

const text = (html: string) => html.replace(/<[^>]*>/g, '');

describe('tool cards', () => {
  it('waiting for approval: says so, and shows no code (the approval card has it)', () => {
    const html = renderToStaticMarkup(
      React.createElement(ToolCallCard, { item: item({}), awaiting: true })
    );
    expect(text(html)).toContain('Insert this cell');
    expect(text(html)).toContain('awaiting your approval');
    expect(text(html)).not.toContain('running…');
    expect(text(html)).not.toContain('print(42)');
    const running = renderToStaticMarkup(
      React.createElement(ToolCallCard, { item: item({}) })
    );
    expect(text(running)).toContain('running…');
    expect(text(running)).toContain('print(42)');
  });

  it('a rejection is neutral: "Rejected by you: <reason>", the model’s text in a disclosure', () => {
    const html = renderToStaticMarkup(
      React.createElement(ToolCallCard, {
        item: item({
          status: 'rejected',
          reason: 'not now',
          output:
            'The user rejected this insert_cell call and said: "not now". Do not retry it unchanged: …'
        })
      })
    );
    expect(text(html)).toContain('Rejected by you: not now');
    expect(html).toContain('<details class="jp-AgentSidebar-told">');
    expect(html).not.toContain('<details class="jp-AgentSidebar-told" open');
    expect(html).not.toContain('jp-AgentSidebar-tool-error');
  });

  it('a saved card without a title shows its tool’s name', () => {
    const html = renderToStaticMarkup(
      React.createElement(ToolCallCard, {
        item: item({ title: undefined, status: 'done', durationMs: 200 })
      })
    );
    expect(text(html)).toContain('insert_cell');
    expect(text(html)).toContain('done · 0.2 s');
  });

  it('the approval card is a named group with an assertive announcement, Run before Reject', () => {
    const html = renderToStaticMarkup(
      React.createElement(ApprovalCard, {
        request: {
          call: { id: 'c', name: 'run_cell', arguments: '{}' },
          kind: 'run',
          title: 'Run this cell',
          code: 'print(1)'
        },
        onDecide: () => undefined
      })
    );
    expect(html).toContain('aria-label="Approval needed: Run this cell?"');
    expect(html).toContain('role="alert"');
    expect(html).toContain('tabindex="-1"');
    expect(text(html).indexOf('Run')).toBeLessThan(
      text(html).lastIndexOf('Reject')
    );
    expect(html.indexOf('>Run<')).toBeLessThan(html.indexOf('>Reject<'));
  });
});
