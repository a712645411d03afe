/**
 * Every case of the port contract (./contract.ts), in the order they run.
 */
import { CELL_CASES } from './cell-cases';
import type { IPortCase } from './contract';
import { FAULT_CASES } from './fault-cases';
import { FILE_CASES } from './file-cases';
import { OUTPUT_CASES } from './output-cases';
import { RUN_CASES } from './run-cases';

export const PORT_CASES: readonly IPortCase[] = [
  ...CELL_CASES,
  ...FILE_CASES,
  ...RUN_CASES,
  ...OUTPUT_CASES,
  ...FAULT_CASES
];

/** The case named `name`; throws for an unknown name. */
export function portCase(name: string): IPortCase {
  const found = PORT_CASES.find(c => c.name === name);
  if (!found) {
    throw new Error(`no port contract case named "${name}"`);
  }
  return found;
}
