/**
 * The working line says what the run waits for: "Reading the prompt… 5 s"
 * while the model has been asked and its answer has not begun (a remote or
 * local server, as the in-browser model's line does), "Working…" otherwise.
 */
import React from 'react';
import { ValueStore } from '../../agent/value-store';
import { WorkingLine } from '../transcript/working-line';
import { marking, render } from './render';

const text = (html: string) => html.replace(/<[^>]*>/g, '');

describe('the working line', () => {
  it('says "Reading the prompt… 5 s" while the model has not begun its answer', () => {
    const wait = new ValueStore<number | null>(Date.now() - 5_200);
    expect(
      text(render(React.createElement(WorkingLine, { modelWait: wait })))
    ).toBe('Reading the prompt… 5 s');
    expect(
      text(
        render(React.createElement(WorkingLine, { modelWait: wait }), marking)
      )
    ).toBe('«Reading the prompt… 5 s»');
  });

  it('says "Working…" once the answer began, or with nothing to wait for', () => {
    const wait = new ValueStore<number | null>(null);
    expect(
      text(render(React.createElement(WorkingLine, { modelWait: wait })))
    ).toBe('Working…');
    expect(text(render(React.createElement(WorkingLine, {})))).toBe('Working…');
  });
});
