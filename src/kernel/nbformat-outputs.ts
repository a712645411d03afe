/**
 * nbformat outputs (as in a notebook file or a live cell's model) to and
 * from the agent's output type, for every port. Parsing is defensive: a
 * notebook on disk may be hand-edited or from an old nbformat.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { CellOutput } from '../agent/ports';

/** Convert one nbformat output (as JSON) to the agent's type; [] for unknown kinds. */
export function parseOutput(raw: unknown): CellOutput[] {
  const output = asObject(raw);
  switch (output.output_type) {
    case 'stream':
      return [
        {
          type: 'stream',
          name: output.name === 'stderr' ? 'stderr' : 'stdout',
          text: multiline(output.text)
        }
      ];
    case 'execute_result':
    case 'display_data': {
      const data = asObject(output.data);
      for (const [mime, value] of Object.entries(data)) {
        // Text mimetypes may be split into lines on disk; the agent reads
        // them whole. JSON mimetypes are left as they are.
        if (Array.isArray(value) && !mime.endsWith('json')) {
          data[mime] = multiline(value);
        }
      }
      return [
        {
          type: output.output_type,
          data,
          metadata: asObject(output.metadata)
        }
      ];
    }
    case 'error':
      return [
        {
          type: 'error',
          ename: String(output.ename ?? ''),
          evalue: String(output.evalue ?? ''),
          traceback: Array.isArray(output.traceback)
            ? output.traceback.map(String)
            : []
        }
      ];
    default:
      return [];
  }
}

/** Convert nbformat outputs (a cell's `outputs`) to the agent's type. */
export function parseOutputs(raw: readonly unknown[]): CellOutput[] {
  return raw.flatMap(parseOutput);
}

/** Convert an agent output back to nbformat. */
export function toOutput(
  output: CellOutput,
  executionCount: number | null
): nbformat.IOutput {
  switch (output.type) {
    case 'stream':
      return { output_type: 'stream', name: output.name, text: output.text };
    case 'error':
      return {
        output_type: 'error',
        ename: output.ename,
        evalue: output.evalue,
        traceback: output.traceback
      };
    case 'execute_result':
      return {
        output_type: 'execute_result',
        execution_count: executionCount,
        data: output.data as nbformat.IMimeBundle,
        metadata: (output.metadata ?? {}) as nbformat.OutputMetadata
      };
    case 'display_data':
      return {
        output_type: 'display_data',
        data: output.data as nbformat.IMimeBundle,
        metadata: (output.metadata ?? {}) as nbformat.OutputMetadata
      };
  }
}

/** An nbformat multiline string (a string or a list of lines) as one string. */
export function multiline(value: unknown): string {
  if (Array.isArray(value)) {
    return value.map(String).join('');
  }
  return typeof value === 'string' ? value : '';
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : {};
}
