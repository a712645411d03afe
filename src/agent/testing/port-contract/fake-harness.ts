/**
 * The port contract's harness for the fake notebook: each case gets a
 * FakeNotebook whose executor plays the contract's programs
 * (./programs.ts). The cases it cannot play honestly are listed, each
 * with the reason; every other case runs on it as on a real port.
 */
import type { INotebookPort } from '../../ports';
import { FakeNotebook } from '../fake-notebook';
import type { IPortHarness, IUserCell } from './contract';
import { FAKE_PLAYS } from './programs';

const NO_PROCESS =
  'the fake has no kernel process: its runs stop whenever they are aborted, and nothing can crash or restart it from outside';
const NO_IOPUB =
  'the fake has no iopub stream: its executor hands over finished outputs, so there are no kernel messages (stream chunks, clear_output, update_display_data) to turn into outputs';

/** A FakeNotebook that forgets its variables when restarted, as a kernel does. */
class ContractFake extends FakeNotebook {
  constructor(cells: IUserCell[], files: Map<string, string>) {
    const vars = new Map<string, number>();
    super({
      cells: cells.map(cell => ({ ...cell, executionCount: null })),
      execute: (source, signal, emit) =>
        FAKE_PLAYS.get(source)?.(signal, emit, vars) ?? []
    });
    this._vars = vars;
    files.forEach((text, path) => this.files.set(path, text));
  }

  async restartKernel(): Promise<void> {
    await super.restartKernel();
    this._vars.clear();
  }

  private readonly _vars: Map<string, number>;
}

/** The fake notebook's harness. */
export function fakeHarness(): IPortHarness {
  const files = new Map<string, string>();
  const opened = new Set<ContractFake>();
  return {
    name: 'FakeNotebook',
    notApplicable: {
      'code that ignores SIGINT: the hard timeout reports it still running':
        NO_PROCESS,
      'code that ignores SIGINT: the user’s Stop restarts the kernel':
        NO_PROCESS,
      'a hard timeout that falls before the cell starts still stops it':
        NO_PROCESS,
      'a stop that lands before the code runs ends the run as stopped':
        NO_PROCESS,
      'the kernel dies mid-cell': NO_PROCESS,
      'another client restarts the kernel mid-run': NO_PROCESS,
      'another client asks the kernel for its info while a cell runs: the kernel still reads busy':
        NO_PROCESS,
      '50 MB of stdout: the cell and the observation stay bounded': NO_IOPUB,
      'clear_output(wait=True) leaves the last frame': NO_IOPUB,
      '\\r and \\b in a stream read as the cell shows them': NO_IOPUB,
      'update_display_data replaces the display': NO_IOPUB
    },
    async open(cells = []): Promise<INotebookPort> {
      const fake = new ContractFake(cells, files);
      opened.add(fake);
      return fake;
    },
    async restartElsewhere(): Promise<void> {
      throw new Error(NO_PROCESS);
    },
    async askInfoElsewhere(): Promise<void> {
      throw new Error(NO_PROCESS);
    },
    async writeFile(path, text): Promise<void> {
      files.set(path, text);
      opened.forEach(fake => fake.files.set(path, text));
    },
    async close(port): Promise<void> {
      opened.delete(port as ContractFake);
    }
  };
}
