import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { outsideCatalogue, OUTSIDE_TOOLS } from '../catalogue';
import { outsideCatalogueText } from '../catalogue-file';
import { AGENT_TOOL_NAMES } from '../../tools/agent-tool-names';

const FILE = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'jupyterlab_notebook_agent',
  'outside_tools.json'
);

describe('the outside catalogue', () => {
  it('is the file the Python server reads (npx tsx scripts/outside-tools.ts writes it)', () => {
    expect(readFileSync(FILE, 'utf-8')).toBe(outsideCatalogueText());
  });

  it('names only agent tools, each once, and never the ones left out', () => {
    const names = OUTSIDE_TOOLS.map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(AGENT_TOOL_NAMES).toContain(name);
    }
    for (const left of [
      'update_plan',
      'run_code',
      'restart_kernel',
      'install_package',
      'run_shell'
    ]) {
      expect(names).not.toContain(left);
    }
  });

  it('gives every notebook tool a required notebook argument and an action', () => {
    for (const tool of outsideCatalogue().filter(t => t.notebook)) {
      const schema = tool.inputSchema as {
        properties: Record<string, unknown>;
        required: string[];
      };
      expect(schema.properties.notebook).toBeDefined();
      expect(schema.required[0]).toBe('notebook');
      expect(['read', 'write', 'execute']).toContain(tool.action);
    }
  });

  it('asks execute for whatever runs code, and read only of tools that change nothing', () => {
    const action = new Map(outsideCatalogue().map(t => [t.name, t.action]));
    expect(action.get('run_cell')).toBe('execute');
    expect(action.get('insert_cell')).toBe('execute');
    expect(action.get('inspect_variables')).toBe('execute');
    expect(action.get('write_file')).toBe('write');
    for (const tool of outsideCatalogue()) {
      if (tool.annotations.readOnlyHint) {
        expect(tool.action).toBe('read');
      }
    }
  });
});
