/**
 * A tool's result as an outside agent receives it: the same observation the
 * agent's own model reads (budgeted, kernel output already through the
 * server's secret filter), as an MCP tool result.
 */
import type { IToolResult } from '../types';

/** One block of an MCP tool result. */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

/** An MCP `CallToolResult`, as the page answers it to the server. */
export interface IMcpToolResult {
  content: McpContent[];
  isError: boolean;
}

/** An MCP result of one text block; an error when `error`. */
export function textResult(text: string, error = false): IMcpToolResult {
  return { content: [{ type: 'text', text }], isError: error };
}

/** The MCP result of a tool's result: its observation, then its images. */
export function mcpResult(result: IToolResult): IMcpToolResult {
  const images: McpContent[] = (result.images ?? []).map(image => ({
    type: 'image',
    data: image.base64,
    mimeType: image.mime
  }));
  return {
    content: [{ type: 'text', text: result.output }, ...images],
    isError: !result.ok
  };
}
