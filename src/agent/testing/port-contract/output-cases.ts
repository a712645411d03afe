/**
 * Contract cases for how kernel messages become outputs: what the agent
 * reads of a run must be what the cell shows, for clear_output(wait=True),
 * `\r` / `\b` progress text and update_display_data.
 */
import * as check from './check';
import { withPort, type IPortCase } from './contract';
import { PROGRAMS } from './programs';
import { cellShowsResult, codeCell } from './run-cases';

export const OUTPUT_CASES: IPortCase[] = [
  {
    name: 'clear_output(wait=True) leaves the last frame',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const result = await port.runCell(
          await codeCell(port, PROGRAMS.frames)
        );
        check.equal(
          result.outputs,
          [{ type: 'stream', name: 'stdout', text: 'frame 2\n' }],
          'outputs'
        );
        await cellShowsResult(port, result);
      })
  },
  {
    name: '\\r and \\b in a stream read as the cell shows them',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const result = await port.runCell(
          await codeCell(port, PROGRAMS.progress)
        );
        check.equal(
          check.streamText(result.outputs),
          '100% done\nac\n',
          'stdout'
        );
        await cellShowsResult(port, result);
      })
  },
  {
    name: 'update_display_data replaces the display',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const result = await port.runCell(
          await codeCell(port, PROGRAMS.display)
        );
        check.equal(
          result.outputs.map(
            o => o.type === 'display_data' && o.data['text/plain']
          ),
          ["'100%'"],
          'the display'
        );
        await cellShowsResult(port, result);
      })
  }
];
