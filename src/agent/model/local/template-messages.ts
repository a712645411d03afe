/**
 * Our messages and tools in the shape chat templates read (the Hugging Face
 * `apply_chat_template` convention): assistant tool calls with arguments as
 * objects, tool results as `tool` messages, tools as OpenAI function specs.
 */
import type { ChatMessage, IToolSpec } from '../../types';

/** A tool call inside an assistant message, as templates read it. */
export interface ITemplateToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: Record<string, unknown> | string };
}

/** One message for the chat template. */
export interface ITemplateMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ITemplateToolCall[];
  tool_call_id?: string;
  /** The tool's name on tool messages (some templates print it). */
  name?: string;
}

/** A tool for the chat template. */
export interface ITemplateTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

/** Convert the conversation; images are left out (the models read text). */
export function toTemplateMessages(
  messages: readonly ChatMessage[]
): ITemplateMessage[] {
  const names = new Map<string, string>();
  return messages.map(message => {
    switch (message.role) {
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        calls.forEach(call => names.set(call.id, call.name));
        return {
          role: 'assistant',
          content: message.content ?? '',
          ...(calls.length
            ? {
                tool_calls: calls.map(call => ({
                  id: call.id,
                  type: 'function' as const,
                  function: {
                    name: call.name,
                    arguments: parseArgs(call.arguments)
                  }
                }))
              }
            : {})
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: message.content,
          tool_call_id: message.toolCallId,
          ...(names.has(message.toolCallId)
            ? { name: names.get(message.toolCallId) }
            : {})
        };
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
    }
  });
}

/** Convert the tools. */
export function toTemplateTools(tools: readonly IToolSpec[]): ITemplateTool[] {
  return tools.map(tool => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters
    }
  }));
}

/** Arguments as an object, which templates serialize with `tojson`. */
function parseArgs(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : text;
  } catch {
    return text;
  }
}
