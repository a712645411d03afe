/**
 * nbformat outputs ↔ the agent's output type.
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

/** The agent's outputs back to nbformat (`executionCount` for execute results). */
export function toNbOutputs(
  outputs: ReadonlyArray<CellOutput>,
  executionCount: number | null
): nbformat.IOutput[] {
  return outputs.map((output): nbformat.IOutput => {
    switch (output.type) {
      case 'stream':
        return { output_type: 'stream', name: output.name, text: output.text };
      case 'error':
        return {
          output_type: 'error',
          ename: output.ename,
          evalue: output.evalue,
          traceback: [...output.traceback]
        };
      case 'execute_result':
        return {
          output_type: 'execute_result',
          execution_count: executionCount,
          data: output.data as nbformat.IMimeBundle,
          metadata: (output.metadata ?? {}) as nbformat.OutputMetadata
        };
      default:
        return {
          output_type: 'display_data',
          data: output.data as nbformat.IMimeBundle,
          metadata: (output.metadata ?? {}) as nbformat.OutputMetadata
        };
    }
  });
}
