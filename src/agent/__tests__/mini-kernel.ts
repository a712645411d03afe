/**
 * A few lines of "Python" for workflow tests: assignments, imports and
 * print(name), with a namespace that a restart clears. Enough to tell a
 * notebook that runs top to bottom from one that relies on lost state.
 */
import type { CellOutput } from '../ports';
import { FakeNotebook, type FakeExecutor } from '../testing/fake-notebook';

const BUILTINS = new Set(['sum', 'len', 'range', 'print']);

function nameError(name: string): CellOutput {
  return {
    type: 'error',
    ename: 'NameError',
    evalue: `name '${name}' is not defined`,
    traceback: [`NameError: name '${name}' is not defined`]
  };
}

/** Run `source` against `vars`; stops at the first NameError. */
function run(source: string, vars: Map<string, string>): CellOutput[] {
  const outputs: CellOutput[] = [];
  for (const line of source.split('\n').map(l => l.trim())) {
    let match = /^import (\w+)(?: as (\w+))?$/.exec(line);
    if (match) {
      vars.set(match[2] ?? match[1], 'module');
      continue;
    }
    match = /^(\w+) = (.+)$/.exec(line);
    if (match) {
      const missing = (match[2].match(/[A-Za-z_]\w*/g) ?? []).find(
        name => !vars.has(name) && !BUILTINS.has(name)
      );
      if (missing) {
        return [...outputs, nameError(missing)];
      }
      vars.set(match[1], match[2]);
      continue;
    }
    match = /^print\((\w+)\)$/.exec(line);
    if (match) {
      if (!vars.has(match[1])) {
        return [...outputs, nameError(match[1])];
      }
      outputs.push({
        type: 'stream',
        name: 'stdout',
        text: `${vars.get(match[1])}\n`
      });
    }
  }
  return outputs;
}

/** A FakeNotebook whose kernel keeps variables until it restarts. */
export class MiniKernelNotebook extends FakeNotebook {
  readonly vars = new Map<string, string>();

  constructor(options: ConstructorParameters<typeof FakeNotebook>[0] = {}) {
    const vars = new Map<string, string>();
    const execute: FakeExecutor = source => run(source, vars);
    super({ ...options, execute });
    this.vars = vars;
  }

  async restartKernel(): Promise<void> {
    await super.restartKernel();
    this.vars.clear();
  }
}
