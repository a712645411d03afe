/**
 * How much of the model's context each real output costs, before and after
 * observation formatting. Run: npx tsx bench/observation-sizes.ts
 *
 * "before" is what a naive agent would paste: the nbformat output as JSON
 * (for images, their base64 alone is also shown); "after" is formatOutputs()
 * with the default budget. A missed target prints MISS; the exit status is
 * non-zero only when the benchmark itself crashes.
 */
import {
  OUTPUT_BUDGET,
  formatOutputs
} from '../src/agent/context/observations';
import {
  fixtureNames,
  fixtureOutputs,
  loadFixture
} from '../src/agent/__tests__/fixtures/load-outputs';

// Plain stdout writes: the repository's lint keeps console.log out of code.
function print(line = ''): void {
  process.stdout.write(line + '\n');
}

interface IRow {
  name: string;
  before: number;
  base64: number;
  after: number;
}

function base64Length(data: Record<string, unknown>): number {
  return ['image/png', 'image/jpeg', 'image/gif', 'image/webp']
    .map(mime => data[mime])
    .reduce<number>(
      (sum, value) => sum + (typeof value === 'string' ? value.length : 0),
      0
    );
}

const rows: IRow[] = fixtureNames().map(name => {
  const outputs = fixtureOutputs(loadFixture(name));
  const before = outputs.reduce(
    (sum, output) => sum + JSON.stringify(output).length,
    0
  );
  const base64 = outputs.reduce(
    (sum, output) =>
      sum +
      (output.type === 'display_data' || output.type === 'execute_result'
        ? base64Length(output.data)
        : 0),
    0
  );
  const started = performance.now();
  const after = formatOutputs(outputs, OUTPUT_BUDGET).length;
  const ms = performance.now() - started;
  print(
    `${name.padEnd(22)} before ${String(before).padStart(9)}` +
      `${base64 ? ` (base64 ${base64})` : ''}`.padEnd(18) +
      ` after ${String(after).padStart(5)}` +
      `  ratio ${(before / after).toFixed(1).padStart(7)}×` +
      `  ${ms.toFixed(1)} ms`
  );
  return { name, before, base64, after };
});

const png = rows.find(row => row.name === 'matplotlib-png');
const pass = !!png && png.after * 20 <= png.base64;
print(
  `\nTarget: a matplotlib PNG costs <= 1/20 of its base64 length in text: ` +
    `${pass ? 'PASS' : 'MISS'}` +
    (png ? ` (${png.after} chars vs ${png.base64} base64 chars)` : '')
);
const budget = rows.every(row => row.after <= OUTPUT_BUDGET);
print(
  `Target: every output within the ${OUTPUT_BUDGET}-character budget: ` +
    `${budget ? 'PASS' : 'MISS'}`
);
