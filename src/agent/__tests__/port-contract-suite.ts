/**
 * The port contract (src/agent/testing/port-contract/) as a Jest suite:
 * one test per case for the port `harness` makes. A case the port declares
 * not applicable gets no test; the suite prints each with its reason, and
 * checks that every declaration names a real case, so a renamed case
 * cannot silently drop out.
 */
import { PORT_CASES } from '../testing/port-contract/cases';
import {
  runPortCase,
  type IPortHarness
} from '../testing/port-contract/contract';

/** Describe the contract for the port of `makeHarness()` (called in beforeAll). */
export function describePortContract(
  label: string,
  makeHarness: () => Promise<IPortHarness> | IPortHarness,
  notApplicable: Readonly<Record<string, string>>
): void {
  describe(`port contract: ${label}`, () => {
    let harness: IPortHarness;
    beforeAll(async () => {
      harness = await makeHarness();
    }, 120000);

    it('declares only real cases as not applicable, each with a reason', () => {
      const names = new Set(PORT_CASES.map(c => c.name));
      for (const [name, reason] of Object.entries(notApplicable)) {
        expect(names.has(name) ? name : `unknown case: ${name}`).toBe(name);
        expect(reason.length).toBeGreaterThan(20);
      }
      const lines = Object.entries(notApplicable).map(
        ([name, reason]) => `  not applicable: ${name} (${reason})`
      );
      process.stdout.write(
        `\n[port-contract] ${label}: ${PORT_CASES.length - lines.length} cases run, ${lines.length} not applicable\n${lines.join('\n')}\n`
      );
    });

    for (const testCase of PORT_CASES) {
      if (notApplicable[testCase.name] || !selected(testCase.name)) {
        continue;
      }
      for (const run of runs()) {
        it(
          `${testCase.name}${run}`,
          async () => {
            const outcome = await runPortCase(harness, testCase);
            if (outcome.status === 'failed') {
              throw new Error(outcome.error);
            }
            expect(outcome.status).toBe('passed');
          },
          testCase.timeoutMs + 10000
        );
      }
    }
  });
}

/**
 * PORT_CASE_ONLY (a case's exact name) and PORT_CASE_REPEAT (a count) run
 * one case many times, as scripts/stress-port-case.sh does to reproduce a
 * race under load; unset, every case runs once.
 */
function selected(name: string): boolean {
  const only = process.env.PORT_CASE_ONLY;
  return !only || only === name;
}

/** The suffixes of the repeated runs: [''] when the case runs once. */
function runs(): string[] {
  const count = Number(process.env.PORT_CASE_REPEAT ?? 1);
  if (!Number.isInteger(count) || count <= 1) {
    return [''];
  }
  return Array.from({ length: count }, (_, i) => ` (run ${i + 1} of ${count})`);
}
