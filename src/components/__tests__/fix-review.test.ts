/**
 * The review of a fix in words: attempts only when a turn changed a cell,
 * why a fix stopped when the agent changed nothing, and changed cells named
 * as the user sees them.
 */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { IFixReview } from '../../agent/session';
import { FixReview } from '../transcript/fix-review';

const text = (review: IFixReview) =>
  renderToStaticMarkup(
    React.createElement(FixReview, {
      review,
      onAccept: () => undefined,
      onReject: () => undefined,
      onShowCell: () => 'shown' as const
    })
  )
    .replace(/<[^>]*>/g, '')
    .replace(/&#x27;/g, "'");

describe('the fix review', () => {
  it('ended by turns without an edit: no attempt count, and says why it stopped', () => {
    const shown = text({
      cellId: 'c1',
      status: 'not-fixed',
      attempts: 0,
      turnsWithoutEdit: 2,
      gaveUp: 'no-edit',
      changes: [],
      names: {},
      problem: "NameError: name 'q' is not defined"
    });
    expect(shown).toContain('The agent could not fix the cell.');
    expect(shown).not.toContain('attempt');
    expect(shown).toContain(
      'The agent answered 2 times without changing a cell, so the fix stopped there.'
    );
    expect(shown).toContain('No cell was changed.');
  });

  it('ended by turns without an edit after a change: says they came after it', () => {
    const shown = text({
      cellId: 'c1',
      status: 'not-fixed',
      attempts: 1,
      turnsWithoutEdit: 2,
      gaveUp: 'no-edit',
      changes: [
        {
          cellId: 'c1',
          kind: 'edited',
          type: 'code',
          before: 'print(q)',
          after: 'print(r)'
        }
      ],
      names: { c1: '[3]' },
      problem: "NameError: name 'r' is not defined"
    });
    expect(shown).toContain('The agent could not fix the cell. (1 attempt)');
    expect(shown).toContain(
      'After its last change the agent answered 2 times without changing the cell again, so the fix stopped there.'
    );
    expect(shown).not.toContain('without changing a cell');
  });

  it('names a changed cell by its number, not its id', () => {
    const shown = text({
      cellId: 'c1',
      status: 'fixed',
      attempts: 1,
      turnsWithoutEdit: 1,
      changes: [
        {
          cellId: 'c1-long-cell-id',
          kind: 'edited',
          type: 'code',
          before: 'print(q)',
          after: 'print(1)'
        }
      ],
      names: { 'c1-long-cell-id': '[4]' }
    });
    expect(shown).toContain('The cell runs without error now. (1 attempt)');
    expect(shown).toContain('Changed code cell [4]');
    expect(shown).not.toContain('c1-long');
    expect(shown).not.toContain('without changing a cell');
  });
});
