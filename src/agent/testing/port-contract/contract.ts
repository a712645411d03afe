/**
 * The port contract: one set of behavioural cases every INotebookPort must
 * pass (the fake notebook, the headless server port, the live JupyterLab
 * port). A case gets a harness that opens notebooks on the port under test
 * and does the few things a case needs from outside the port (another
 * client restarting the kernel, a file on the server). A port that cannot
 * do a case (the fake has no kernel process to ignore SIGINT) names it in
 * `notApplicable` with the reason, and the runners report it so.
 *
 * The cases are plain async functions with their own checks (./check.ts),
 * so the same module runs under Jest (Node) and inside the page (the live
 * port, through the extension's test hook; src/jupyter/testing/test-hooks.ts).
 */
import type { INotebookPort } from '../../ports';

/** A cell of the user's notebook a case starts from. */
export interface IUserCell {
  type: 'code' | 'markdown' | 'raw';
  source: string;
}

/** What a case needs of the port under test. */
export interface IPortHarness {
  /** The port's name, for reports. */
  readonly name: string;
  /** Case name → why this port cannot do it. */
  readonly notApplicable: Readonly<Record<string, string>>;
  /** A notebook of its own with `cells`, its kernel ready. */
  open(cells?: IUserCell[]): Promise<INotebookPort>;
  /** Restart the kernel of `port` as another client would (REST), not through the port. */
  restartElsewhere(port: INotebookPort): Promise<void>;
  /**
   * As another client (a websocket of its own), ask the kernel of `port`
   * for its info on the control channel, and wait for the answer.
   */
  askInfoElsewhere(port: INotebookPort): Promise<void>;
  /** Put a text file at `path` (relative to the server root). */
  writeFile(path: string, text: string): Promise<void>;
  /** Let go of `port`, shutting its kernel down. */
  close(port: INotebookPort): Promise<void>;
}

/** One behavioural case. */
export interface IPortCase {
  readonly name: string;
  /** A bound on the whole case (its own checks bound each step). */
  readonly timeoutMs: number;
  run(harness: IPortHarness): Promise<void>;
}

/** How a case went on one port. */
export type CaseOutcome =
  | { name: string; status: 'passed'; ms: number }
  | { name: string; status: 'failed'; ms: number; error: string }
  | { name: string; status: 'not-applicable'; reason: string };

/** Run `body` on a notebook of its own, closed afterwards whatever happens. */
export async function withPort<T>(
  harness: IPortHarness,
  cells: IUserCell[],
  body: (port: INotebookPort) => Promise<T>
): Promise<T> {
  const port = await harness.open(cells);
  try {
    return await body(port);
  } finally {
    await harness.close(port).catch(() => undefined);
  }
}

/** Run `testCase` on `harness`'s port, or say why it does not apply. */
export async function runPortCase(
  harness: IPortHarness,
  testCase: IPortCase
): Promise<CaseOutcome> {
  const reason = harness.notApplicable[testCase.name];
  if (reason) {
    return { name: testCase.name, status: 'not-applicable', reason };
  }
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      testCase.run(harness),
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`did not end within ${testCase.timeoutMs} ms`)),
          testCase.timeoutMs
        );
      })
    ]);
    return { name: testCase.name, status: 'passed', ms: Date.now() - started };
  } catch (error) {
    const message =
      error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error);
    return {
      name: testCase.name,
      status: 'failed',
      ms: Date.now() - started,
      error: message
    };
  } finally {
    clearTimeout(timer);
  }
}
