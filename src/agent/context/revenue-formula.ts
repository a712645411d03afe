/**
 * Revenue asked for where no column holds it, said to a small model with
 * the formula the data allows: a frame's quantity times its unit price.
 *
 * Walked in Chromium with Qwen2.5-Coder-1.5B (2026-12-08): Generate on
 * "Analyse sales.csv: revenue by region and by month, a bar chart of the top
 * products by revenue" printed `groupby('region')['units'].sum()` as the
 * revenue by region and by month, and plotted units by month as "top
 * products by revenue"; the notebook looked finished. A data scientist
 * computes revenue as quantity × unit price and says so: the hint names the
 * frame, the two columns and the new column, so the code shows the formula.
 */
import type { IVariableRow } from '../tools/variables-probe';

/** Words that ask for revenue (sales in money, not a count). */
const REVENUE = /\b(?:revenues?|turnover|sales\s+(?:amount|value)s?)\b/i;

/** A formula already given ("revenue (units × unit_price)"). */
const FORMULA = /[×*]/;

/** Columns that count what was sold. */
const QUANTITY =
  /^(?:units?|quantity|quantities|qty|units_sold|quantity_sold|items|volume)$/i;

/** Columns that price one unit. */
const UNIT_PRICE = /^(?:unit_?price|price|price_per_unit|unit_?cost_?price)$/i;

/** A column that already holds revenue (or money per row). */
const HAS_REVENUE = /revenue|turnover|sales_(?:amount|value)|^amount$/i;

/**
 * The hint for `text` (a step or a question) given the kernel's frames, or
 * null: when it asks for revenue with no formula, no frame has a revenue
 * column, and a frame has a quantity and a unit-price column.
 */
export function revenueHint(
  text: string,
  rows: ReadonlyArray<IVariableRow> | null
): string | null {
  if (!REVENUE.test(text) || FORMULA.test(text)) {
    return null;
  }
  const frames = (rows ?? []).filter(
    row => row.type === 'pandas.DataFrame' && row.columns
  );
  if (frames.some(row => row.columns!.some(([c]) => HAS_REVENUE.test(c)))) {
    return null;
  }
  for (const row of frames) {
    const names = row.columns!.map(([column]) => column);
    const quantity = names.find(name => QUANTITY.test(name));
    const price = names.find(name => UNIT_PRICE.test(name));
    if (quantity && price) {
      const f = row.name;
      return (
        `No column holds revenue: it is ${quantity} × ${price}. Make it a column first, ` +
        `\`${f}['revenue'] = ${f}['${quantity}'] * ${f}['${price}']\`, then sum or group \`revenue\`, not \`${quantity}\`.`
      );
    }
  }
  return null;
}
