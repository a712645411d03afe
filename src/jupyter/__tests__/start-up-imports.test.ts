/**
 * What JupyterLab loads at start is the shell (#34): the plugins' static
 * imports (type-only and `import()` ones left out) reach the chat's state,
 * the configuration and the sidebar's glue, never what runs a task (the
 * runner, the loop, the tools, the live port, the kernel engine), which
 * the runs part (../runs/runs-part.ts) loads with the first task. An import
 * that pulls one of those in at start fails here, before it shows in
 * bench/lab-startup.ts's bytes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const SRC = resolve(__dirname, '..', '..');

/** The modules `file` imports for its values (relative ones, resolved). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest
  );
  const found: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypes =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!bindings &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every(element => element.isTypeOnly)));
      specifier = onlyTypes ? undefined : statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      specifier = statement.moduleSpecifier;
    }
    if (specifier && ts.isStringLiteral(specifier)) {
      const target = resolveModule(file, specifier.text);
      if (target) {
        found.push(target);
      }
    }
  }
  return found;
}

function resolveModule(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) {
    return null;
  }
  const base = resolve(dirname(from), specifier);
  return (
    [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find(existsSync) ??
    null
  );
}

/** Every module loaded with `entry`, relative to src/. */
function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const name = relative(SRC, file).split('\\').join('/');
    if (!seen.has(name)) {
      seen.add(name);
      valueImports(file).forEach(visit);
    }
  };
  visit(join(SRC, entry));
  return seen;
}

describe('the extension at JupyterLab’s start', () => {
  const loaded = closure('index.ts');

  it('holds the shell', () => {
    for (const module of [
      'agent/session/chat-session.ts',
      'agent/session/store.ts',
      'agent/tools/mcp-listing.ts',
      'agent/tools/tool-queue.ts',
      'jupyter/core/agent-shell.ts',
      'jupyter/core/lazy-runs.ts',
      'jupyter/live-port/run-log.ts',
      'jupyter/outside/outside-channel.ts'
    ]) {
      expect(loaded).toContain(module);
    }
  });

  it('loads nothing that runs a task', () => {
    const runs = [...loaded].filter(module =>
      /^(agent\/(loop|workflows)\/(?!code-block-names|code-blocks|conversation)|agent\/session\/(agent-session|runner|run-setup)\.ts|agent\/tools\/(all-tools|registry|mcp-tools|external-tool|kernel-tools)\.ts|jupyter\/(runs|live-port\/(?!run-log))|kernel\/(?!path-exists))/.test(
        module
      )
    );
    expect(runs).toEqual([]);
  });

  it('holds the endpoint client only as its lazy stand-in (the real one loads with the first request)', () => {
    expect(loaded).toContain('jupyter/core/lazy-openai-client.ts');
    expect(loaded).not.toContain('agent/model/openai-client.ts');
  });

  it('holds only the channel of outside agents, not what runs their calls', () => {
    const outside = [...loaded].filter(module =>
      /^(agent\/outside\/|jupyter\/outside\/(?!outside-channel\.ts))/.test(
        module
      )
    );
    expect(outside).toEqual([]);
  });
});
