/**
 * An outside agent for the UI tests: ../outside/mcp_step_client.py (the
 * official MCP SDK client) in a child process, one call at a time.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'child_process';
import * as path from 'path';
import { createInterface, type Interface } from 'readline';

/** What one call answered. */
export interface IStepResult {
  isError: boolean;
  text: string;
  images: number;
}

/** The SDK client, connected (HTTP, or stdio through a command). */
export class OutsideAgent {
  private constructor(
    private readonly _child: ChildProcessWithoutNullStreams,
    private readonly _lines: Interface
  ) {}

  /** Start the client against `url` as `name`; `stdio` starts that command instead. */
  static async start(
    url: string,
    name: string,
    stdio: string[] = []
  ): Promise<OutsideAgent> {
    const script = path.join(__dirname, '..', 'outside', 'mcp_step_client.py');
    const args = [
      script,
      url,
      name,
      ...(stdio.length ? ['--stdio', ...stdio] : [])
    ];
    const child = spawn('python', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.on('data', (data: Buffer) => process.stderr.write(data));
    const agent = new OutsideAgent(
      child,
      createInterface({ input: child.stdout })
    );
    const ready = JSON.parse(await agent._next()) as { ready?: boolean };
    if (!ready.ready) {
      throw new Error('the MCP client did not connect');
    }
    return agent;
  }

  /** Make one call; resolves with what it answered. */
  async call(
    tool: string,
    args: Record<string, unknown>
  ): Promise<IStepResult> {
    this._child.stdin.write(`${JSON.stringify({ tool, arguments: args })}\n`);
    return JSON.parse(await this._next()) as IStepResult;
  }

  /** Start a call without waiting for it (it may wait for an approval). */
  begin(tool: string, args: Record<string, unknown>): Promise<IStepResult> {
    return this.call(tool, args);
  }

  /** End the session (the SDK's DELETE) and the process. */
  async close(): Promise<void> {
    this._child.stdin.end('\n');
    await new Promise(resolve => this._child.once('exit', resolve));
  }

  private _next(): Promise<string> {
    return new Promise((resolve, reject) => {
      const onLine = (line: string) => {
        cleanup();
        resolve(line);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`the MCP client exited (${code})`));
      };
      const cleanup = () => {
        this._lines.off('line', onLine);
        this._child.off('exit', onExit);
      };
      this._lines.once('line', onLine);
      this._child.once('exit', onExit);
    });
  }
}
