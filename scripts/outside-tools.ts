/**
 * Writes jupyterlab_notebook_agent/outside_tools.json from the agent's tools
 * (src/agent/outside/catalogue.ts): `npx tsx scripts/outside-tools.ts`.
 * src/agent/outside/__tests__/catalogue.test.ts fails when it is out of date.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outsideCatalogueText } from '../src/agent/outside/catalogue-file';

const target = join(
  __dirname,
  '..',
  'jupyterlab_notebook_agent',
  'outside_tools.json'
);
writeFileSync(target, outsideCatalogueText());
process.stdout.write(`wrote ${target}\n`);
