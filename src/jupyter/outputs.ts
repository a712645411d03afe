/**
 * nbformat outputs → the agent's output type.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { CellOutput } from '../agent/ports';

function text(value: nbformat.MultilineString | undefined): string {
  return Array.isArray(value) ? value.join('') : (value ?? '');
}

/** Convert nbformat outputs to the agent's output type. */
export function toCellOutputs(outputs: nbformat.IOutput[]): CellOutput[] {
  const result: CellOutput[] = [];
  for (const output of outputs) {
    switch (output.output_type) {
      case 'stream': {
        const stream = output as nbformat.IStream;
        result.push({
          type: 'stream',
          name: stream.name,
          text: text(stream.text)
        });
        break;
      }
      case 'error': {
        const error = output as nbformat.IError;
        result.push({
          type: 'error',
          ename: error.ename,
          evalue: error.evalue,
          traceback: error.traceback ?? []
        });
        break;
      }
      case 'execute_result':
      case 'display_data': {
        const display = output as nbformat.IDisplayData;
        result.push({
          type: output.output_type,
          data: { ...(display.data as Record<string, unknown>) },
          metadata: { ...((display.metadata ?? {}) as Record<string, unknown>) }
        });
        break;
      }
      default:
        break;
    }
  }
  return result;
}
