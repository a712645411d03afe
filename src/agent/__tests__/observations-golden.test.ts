/**
 * Golden tests: outputs recorded from a real ipykernel
 * (scripts/make-output-fixtures.py) formatted exactly as the model sees them.
 * Rewrite the expectations with UPDATE_GOLDEN=1 after an intended change and
 * review the diff of fixtures/golden/.
 */
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import {
  collectImages,
  formatOutputs,
  formatRunResult
} from '../context/observations';
import {
  GOLDEN_DIR,
  fixtureNames,
  fixtureOutputs,
  loadFixture
} from './fixtures/load-outputs';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface IGoldenCase {
  golden: string;
  fixture: string;
  budget: number;
  render: (budget: number) => string;
}

function outputsCase(fixture: string, budget = 4000, suffix = ''): IGoldenCase {
  const outputs = fixtureOutputs(loadFixture(fixture));
  return {
    golden: `${fixture}${suffix}.txt`,
    fixture,
    budget,
    render: b => formatOutputs(outputs, b)
  };
}

const CASES: IGoldenCase[] = [
  outputsCase('traceback-read-csv'),
  outputsCase('tqdm-progress'),
  outputsCase('dataframe-1000x5'),
  // A tight budget: shape first, then as many rows as fit.
  outputsCase('dataframe-1000x5', 300, '.budget-300'),
  outputsCase('matplotlib-png'),
  outputsCase('pil-jpeg'),
  outputsCase('big-stream'),
  {
    golden: 'traceback-call-chain.run-result.txt',
    fixture: 'traceback-call-chain',
    budget: 4000,
    render: b =>
      formatRunResult(
        {
          cellId: 'cell-2',
          status: 'error',
          executionCount: 4,
          elapsedMs: 120,
          outputs: fixtureOutputs(loadFixture('traceback-call-chain'))
        },
        b
      )
  }
];

describe('observation goldens (real ipykernel outputs)', () => {
  it('covers every fixture', () => {
    expect(new Set(CASES.map(c => c.fixture))).toEqual(new Set(fixtureNames()));
  });

  it.each(CASES.map(c => [c.golden, c] as const))('%s', (_, testCase) => {
    const text = testCase.render(testCase.budget);
    const path = join(GOLDEN_DIR, testCase.golden);
    if (UPDATE) {
      writeFileSync(path, text + '\n');
    }
    if (!existsSync(path)) {
      throw new Error(`${path} is missing: run with UPDATE_GOLDEN=1`);
    }
    expect(text + '\n').toBe(readFileSync(path, 'utf8'));
    // Invariants that hold for every observation, whatever the golden says.
    const statusLine = testCase.golden.includes('run-result') ? 300 : 0;
    expect(text.length).toBeLessThanOrEqual(testCase.budget + statusLine);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\r');
    expect(text).not.toMatch(/[A-Za-z0-9+/]{100,}/);
  });

  it('reads the fixtures as they came from the kernel', () => {
    const stream = fixtureOutputs(loadFixture('big-stream'))[0];
    expect(stream.type === 'stream' && stream.text.length).toBe(5_280_000);
    const tqdm = fixtureOutputs(loadFixture('tqdm-progress'));
    expect(
      tqdm.some(o => o.type === 'stream' && o.text.split('\r').length > 20)
    ).toBe(true);
    const error = fixtureOutputs(loadFixture('traceback-read-csv'));
    expect(JSON.stringify(error)).toContain('\\u001b[');
  });

  it('collects the real PNG and JPEG with their pixel size', () => {
    const images = collectImages([
      ...fixtureOutputs(loadFixture('matplotlib-png')),
      ...fixtureOutputs(loadFixture('pil-jpeg'))
    ]);
    expect(
      images.map(({ mime, width, height }) => ({ mime, width, height }))
    ).toEqual([
      { mime: 'image/png', width: 547, height: 434 },
      { mime: 'image/jpeg', width: 320, height: 200 }
    ]);
    expect(images[0].base64.startsWith('iVBORw0KGgo')).toBe(true);
  });
});
