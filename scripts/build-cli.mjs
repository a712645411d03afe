// Builds the `notebook-agent` command line: src/headless/cli/cli.ts and what it
// imports from src/ bundled by esbuild into one CommonJS file,
// lib/cli/notebook-agent.cjs, that bin/notebook-agent.cjs loads. Packages
// stay external (node_modules holds them), so the file holds only our code
// and no TypeScript compiler runs when the command starts.
//
// Written to a temporary name, then renamed: `npm pack` (which runs this
// through `prepare`) and a build started by a test at the same time never
// read half a file.
import { build } from 'esbuild';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'lib', 'cli', 'notebook-agent.cjs');

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/headless/cli/cli.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  packages: 'external',
  sourcemap: 'external',
  // The sources ship in the package (src/); the map points at them.
  sourcesContent: false,
  logLevel: 'warning',
  write: false
});

await mkdir(dirname(outfile), { recursive: true });
for (const file of result.outputFiles) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  await writeFile(temporary, file.contents);
  await rename(temporary, file.path);
}
