/**
 * MCP tool results as observations, through the same budgets as cell
 * outputs: each part becomes an output (text as text/plain, images as
 * image data, resources with their URI), so long text keeps its head and
 * tail, images are described in text and attached for vision models, and
 * nothing a server sends can fill the context.
 */
import type { CellOutput } from '../ports';
import type { IMcpResult, McpCallAnswer } from '../tools/mcp-types';
import type { IToolResult } from '../types';
import { collectImages, formatOutputs } from './observations';
import { formatBytes } from './text';

const plain = (text: string): CellOutput => ({
  type: 'display_data',
  data: { 'text/plain': text }
});

function more(count: number | undefined): string {
  return count ? `\n[${count} more characters not sent by the server]` : '';
}

/** The parts of `result` as outputs. */
export function mcpOutputs(result: IMcpResult): CellOutput[] {
  const outputs = result.content.map((part): CellOutput => {
    switch (part.type) {
      case 'text':
        return plain(part.text + more(part.truncated));
      case 'image':
        return part.data
          ? { type: 'display_data', data: { [part.mime_type]: part.data } }
          : plain(
              `[image ${part.mime_type}, ${formatBytes(part.bytes ?? 0)}, not passed on]`
            );
      case 'resource':
        return plain(
          part.text !== undefined
            ? `[resource ${part.uri}]\n${part.text}${more(part.truncated)}`
            : `[resource ${part.uri} (${part.mime_type ?? 'binary'}), ${formatBytes(part.bytes ?? 0)}, not passed on]`
        );
      case 'resource_link':
        return plain(`[link to resource ${part.name}: ${part.uri}]`);
      case 'audio':
        return plain(
          `[audio ${part.mime_type}, ${formatBytes(part.bytes)}, not passed on]`
        );
      // Also a kind the server sends that this client's types do not name.
      case 'unknown':
      default:
        return plain('[a part of a kind this client does not read]');
    }
  });
  if (!outputs.length && result.structured !== undefined) {
    outputs.push({
      type: 'display_data',
      data: { 'application/json': result.structured }
    });
  }
  return outputs;
}

/** What the model should do about each kind of failure. */
const ADVICE: Record<string, string> = {
  mcp_timeout:
    'The MCP server did not answer in time and the call was cancelled. Do not call it again with the same arguments; continue without it or tell the user.',
  mcp_crashed:
    'The MCP server stopped; it is restarted on the next call. Retry once at most.',
  mcp_failed:
    'The MCP server is not available. Continue without its tools and tell the user.',
  mcp_invalid:
    'The MCP server answered with something that is not a tool result. Continue without it.',
  invalid_arguments: 'Fix the arguments to match the schema and call again.',
  unreachable:
    'The Jupyter server could not be reached for this call. Continue without it.'
};

/** The observation of one MCP call. */
export function mcpObservation(
  name: string,
  answer: McpCallAnswer
): IToolResult {
  if (!answer.ok) {
    const advice = ADVICE[answer.type] ?? '';
    return {
      ok: false,
      output: `Error: ${name} failed: ${answer.message}${advice ? `\n${advice}` : ''}`
    };
  }
  const outputs = mcpOutputs(answer.result);
  const text = formatOutputs(outputs) || '(no content)';
  const images = collectImages(outputs);
  if (answer.result.is_error) {
    return { ok: false, output: `Error from ${name}: ${text}`, images };
  }
  return { ok: true, output: text, images };
}
