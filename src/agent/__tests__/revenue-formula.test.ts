import { revenueHint } from '../context/revenue-formula';
import { stepPrompt } from '../workflows/generate-by-steps';
import type { IVariableRow } from '../tools/variables-probe';

const sales: IVariableRow = {
  name: 'df',
  type: 'pandas.DataFrame',
  columns: [
    ['region', 'str'],
    ['units', 'int64'],
    ['unit_price', 'float64']
  ]
};

describe('revenueHint', () => {
  it('gives the formula where revenue is asked for and no column holds it', () => {
    const hint = revenueHint('Compute and print revenue by region', [sales]);
    expect(hint).toContain("df['revenue'] = df['units'] * df['unit_price']");
    expect(hint).toContain('units × unit_price');
  });

  it('speaks of a chart of products by revenue too', () => {
    expect(
      revenueHint('Show a bar chart of the top products by revenue', [sales])
    ).not.toBeNull();
  });

  it.each([
    [
      'a step that does not ask for revenue',
      'Compute units by region',
      [sales]
    ],
    [
      'a formula already given',
      'Compute revenue (units × unit_price) by region',
      [sales]
    ],
    [
      'a frame that has a revenue column',
      'Plot revenue by month',
      [
        {
          ...sales,
          columns: [...sales.columns!, ['revenue', 'float64']]
        }
      ]
    ],
    [
      'no unit price',
      'Plot revenue by month',
      [{ ...sales, columns: [['units', 'int64']] }]
    ],
    ['no frame', 'Plot revenue by month', null]
  ])('says nothing for %s', (_why, text, rows) => {
    expect(revenueHint(text, rows as IVariableRow[] | null)).toBeNull();
  });

  it('is in the step’s prompt, before the request for its cell', () => {
    const step = 'Compute and print revenue by region';
    const prompt = stepPrompt(1, 3, step, 'Variables…', {
      revenue: revenueHint(step, [sales])
    });
    expect(prompt).toMatch(/No column holds revenue[^]*Write the code cell/);
  });
});
