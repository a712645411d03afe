import { unshownRankings } from '../context/rankings';

/** What the walk's Generate notebook printed (ui-tests/walk, Qwen2.5-Coder-1.5B). */
const UNITS_BY_REGION =
  '  region  units\n0   East    297\n1  North    408\n2  South    336\n3   West    245\n';
const UNITS_SERIES =
  'region\nEast     297\nNorth    408\nSouth    336\nWest     245\nName: units, dtype: int64';
const MONTHS =
  '      date  units\n0  2024-01    204\n1  2024-02    175\n2  2024-03    332\n';
const REVENUE_FRAME =
  '  region  units  unit_price  total_revenue\n' +
  '0   East    297     1178.83      350112.51\n' +
  '1  North    408     1607.27      655766.16\n' +
  '2  South    336     1180.62      396688.32\n' +
  '3   West    245     1062.62      260341.90\n';

const labels = (text: string, evidence: string[]) =>
  unshownRankings(text, evidence).map(r => [r.label, r.extreme]);

describe('unshownRankings', () => {
  it("finds the walk's summary: East named highest where the table shows North", () => {
    const summary =
      'The revenue by region is East has the highest revenue, followed by North and South, ' +
      'and West has the lowest revenue.';
    const found = unshownRankings(summary, [UNITS_BY_REGION, MONTHS]);
    expect(found).toEqual([
      {
        clause: 'The revenue by region is East has the highest revenue',
        label: 'East',
        extreme: 'top',
        shown: 'North 408, East 297'
      }
    ]);
  });

  it('passes rankings the tables show, in any column, as a Series, a frame or a dict', () => {
    expect(labels('North has the highest total.', [UNITS_SERIES])).toEqual([]);
    expect(labels('West has the lowest units.', [UNITS_BY_REGION])).toEqual([]);
    expect(
      labels('The region with the most revenue is North.', [REVENUE_FRAME])
    ).toEqual([]);
    // West is the lowest in units, unit_price and revenue; East in none.
    expect(labels('East sold the least.', [REVENUE_FRAME])).toEqual([
      ['East', 'bottom']
    ]);
    expect(
      labels('Gadget is the best-selling product.', [
        "{'Gadget': 120.5, 'Widget': 99.0, 'Sprocket': 14}"
      ])
    ).toEqual([]);
    expect(
      labels('Widget is the top product.', [
        "{'Gadget': 120.5, 'Widget': 99.0, 'Sprocket': 14}"
      ])
    ).toEqual([['Widget', 'top']]);
  });

  it('judges one sentence with several labels clause by clause', () => {
    expect(
      labels('North has the highest units, followed by South and East.', [
        UNITS_BY_REGION
      ])
    ).toEqual([]);
    expect(
      labels('South leads with the highest units, ahead of North.', [
        UNITS_BY_REGION
      ])
    ).toEqual([['South', 'top']]);
  });

  it('judges two extremes joined by "and" in one clause each', () => {
    // The eval's 1.5B (gen-segments, stop 56): counts printed, public said lowest, business is.
    const counts =
      'segment\nretail      696\npublic      667\nbusiness    637\nName: count, dtype: int64';
    expect(
      labels(
        'The bar chart shows the number of customers in each customer segment, with retail customers ' +
          'having the highest number (696) and public customers having the lowest (667).',
        [counts]
      )
    ).toEqual([['public', 'bottom']]);
    expect(
      labels('Retail has the most customers and business the fewest.', [counts])
    ).toEqual([]);
  });

  it('leaves alone what is not one extreme of one label, or not in a table', () => {
    const cases = [
      // A few at the top, a second place, a negation, a comparison.
      'The top products are Gadget, Widget and Sprocket.',
      'East has the second highest units.',
      'The top 3 regions are North, South and East.',
      'East does not have the highest units.',
      'East has the highest units after North.',
      // A bound, a time.
      'East sold at least 200 units.',
      'The most recent region added is East.',
      // Two labels in one clause.
      'North and East have the highest units',
      // A label no table prints, or no ranking at all.
      'Central has the highest units.',
      'East sold 297 units.'
    ];
    for (const text of cases) {
      expect(labels(text, [UNITS_BY_REGION])).toEqual([]);
    }
    // Code is no table, nor describe()'s rows.
    expect(
      labels('x has the highest value.', [
        'x = 5\ny = 10',
        'count  200.0\nmean     5.2\nmax     12.0'
      ])
    ).toEqual([]);
    expect(labels('The max is the highest.', ['max 12\nmin 1'])).toEqual([]);
  });

  it('reads dollar amounts, thousands separators and percentages', () => {
    const shares =
      'North   $1,200.50   41%\nEast      $980.00   33%\nWest      $120.10    4%';
    expect(labels('North has the largest share.', [shares])).toEqual([]);
    expect(labels('West has the largest share.', [shares])).toEqual([
      ['West', 'top']
    ]);
  });
});
