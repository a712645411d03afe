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
  code: 'print(42)',
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

  it('reads what the record says of the call (code, kind), not its tool’s name or arguments', () => {
    // A tool no definition here knows, arguments that are not JSON: the
    // card shows the code and, for a call that ran code, its output.
    const ran = renderToStaticMarkup(
      React.createElement(ToolCallCard, {
        item: item({
          name: 'some_extension_tool',
          title: 'Run the extension’s code',
          arguments: 'not json',
          code: 'x = 6 * 7',
          toolKind: 'run',
          status: 'done',
          output: 'printed 42'
        })
      })
    );
    expect(text(ran)).toContain('x = 6 * 7');
    expect(text(ran)).toContain('printed 42');
    // A call that ran no code keeps its output in the closed card; one
    // named run_cell whose record says nothing of code shows none.
    const read = renderToStaticMarkup(
      React.createElement(ToolCallCard, {
        item: item({
          name: 'run_cell',
          arguments: '{"source":"y = 1"}',
          code: undefined,
          toolKind: 'read',
          status: 'done',
          output: 'the notebook'
        })
      })
    );
    expect(text(read)).not.toContain('the notebook');
    expect(text(read)).not.toContain('y = 1');
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
