/**
 * What a command of the command line answers with and writes to: the
 * dispatcher (cli.ts) and the commands it loads (cli-generate.ts,
 * cli-fix.ts) share these, so they live apart from both.
 */

/** Exit codes: 0 done (verified/fixed), 1 failed, 2 done but unverified/unfixed, 64 usage. */
export type ExitCode = 0 | 1 | 2 | 64;

/** Where output goes (tests capture it). */
export interface ICliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
}
