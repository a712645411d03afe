/**
 * The rewrite prompt puts the cell last: a small model copies the code
 * block nearest the request, and the code above the cell (the agent's own
 * earlier attempts, often) came after it before 2026-12-08.
 */
import { earlierCode, rewritePrompt } from '../workflows/fix-rewrite';
import type { ICellSnapshot } from '../ports';

function code(id: string, source: string): ICellSnapshot {
  return { id, type: 'code', source, outputs: [], executionCount: 1 };
}

const cells = [
  code('a', "import pandas as pd\nsales = pd.read_csv('sales.csv')"),
  code('b', "by_region = sales.groupby('region')[['units']].sum()"),
  code('c', "units = sales.groupby('regoin')['units'].sum()"),
  code('d', 'print(units)')
];

function blocks(prompt: string): string[] {
  return [...prompt.matchAll(/```python\n([\s\S]*?)\n```/g)].map(m => m[1]);
}

describe('rewritePrompt', () => {
  const context = {
    earlier: earlierCode(cells, 'c'),
    variables: 'Variables in the kernel now:\n- sales: pandas.DataFrame',
    files: 'First lines of sales.csv, as stored:\n```\nregion,units\n```'
  };

  it.each([false, true, 'unchanged'] as const)(
    'ends with the cell and the request (again: %s)',
    again => {
      const prompt = rewritePrompt(
        cells[2],
        '[3]',
        "It failed:\nKeyError: 'regoin'",
        context,
        again
      );
      const found = blocks(prompt);
      expect(found).toEqual([context.earlier, cells[2].source]);
      const tail = prompt.slice(
        prompt.indexOf('```python\n' + cells[2].source)
      );
      expect(tail).toContain("KeyError: 'regoin'");
      expect(tail).not.toContain('Variables in the kernel');
      expect(tail).not.toContain('First lines of');
      expect(prompt.trimEnd()).toMatch(
        /nothing else\. .*change only what is wrong\.$/
      );
      expect(prompt).toContain('The code that ran before cell [3]');
    }
  );

  it('has no earlier-code block when nothing ran before the cell', () => {
    const prompt = rewritePrompt(
      cells[0],
      '[1]',
      'It failed:\nNameError',
      { earlier: '', variables: null },
      false
    );
    expect(blocks(prompt)).toEqual([cells[0].source]);
    expect(prompt).not.toContain('ran before');
  });
});
