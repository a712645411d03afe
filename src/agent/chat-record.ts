/**
 * A chat as it is saved on the server (notebook-agent/chats): its one
 * record (session/chat-entries.ts: what the model reads and what the
 * sidebar shows, step by step), usage and the model choice, tied to its
 * notebook. Images are dropped from saved observations (they can be
 * megabytes, and the model only needs the newest ones).
 */
import type { IContextSummary } from './context/summary-slot';
import type { ChatEntry } from './session/chat-entries';
import { transcriptOf } from './session/transcript';
import type { IModelChoice, TranscriptItem } from './session/types';
import type { ChatMessage, IPlanStep, IUsage } from './types';

/**
 * Bump when the shape changes; older records are read as far as possible.
 * 2: the one record (`entries`); 1 kept the transcript (`items`) and the
 * model's history (`history`) apart (read and converted: legacy-chat.ts).
 */
export const CHAT_RECORD_VERSION = 2;

/** A saved chat. */
export interface IChatRecord {
  version: number;
  id: string;
  /** The notebook the chat belongs to (path from the server root). */
  notebook: string;
  /** The first request, shortened: the history list shows it. */
  title: string;
  created: number;
  updated: number;
  /** The chat, step by step (absent in chats saved before version 2). */
  entries?: ChatEntry[];
  /** Version 1: the transcript (read to convert, never written). */
  items?: TranscriptItem[];
  /** Version 1: the model's history (read to convert, never written). */
  history?: ChatMessage[];
  usage: IUsage;
  plan: IPlanStep[] | null;
  choice: IModelChoice | null;
  /**
   * Whether a run was in progress when this was saved (absent in older
   * records): reopened, such a run shows as interrupted (interrupted-run.ts).
   */
  running?: boolean;
  /**
   * The summary that stands in for the history's older messages when the
   * model reads it (context/summary.ts); absent in older records.
   */
  summary?: IContextSummary | null;
}

/** A short title from the chat's first request. */
export function chatTitle(items: ReadonlyArray<TranscriptItem>): string {
  const first = items.find(item => item.kind === 'user');
  const text = first && first.kind === 'user' ? first.text : 'New chat';
  const line = text.split('\n')[0].trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The history without image payloads. */
export function withoutImages(
  history: ReadonlyArray<ChatMessage>
): ChatMessage[] {
  return history.map(message =>
    message.role === 'user' && message.images?.length
      ? {
          role: 'user',
          content: `${message.content}\n[${message.images.length} image(s) not kept in the saved chat]`,
          observation: message.observation
        }
      : message
  );
}

/** Whether `value` looks like a record this version can restore. */
export function isChatRecord(value: unknown): value is IChatRecord {
  const record = value as Partial<IChatRecord> | null;
  return (
    !!record &&
    typeof record.id === 'string' &&
    typeof record.notebook === 'string' &&
    (Array.isArray(record.entries) ||
      (Array.isArray(record.items) && Array.isArray(record.history)))
  );
}

/** A new chat id: time-ordered and unique enough for one user's chats. */
export function newChatId(now = Date.now()): string {
  return `${now.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The chat as markdown, for export: its transcript (given, or derived from its entries). */
export function chatToMarkdown(
  record: Pick<IChatRecord, 'title' | 'notebook' | 'usage' | 'entries'> & {
    items?: ReadonlyArray<TranscriptItem>;
  }
): string {
  const items = record.items ?? transcriptOf(record.entries ?? []);
  const lines = [
    `# ${record.title}`,
    '',
    `Notebook: \`${record.notebook || '(none)'}\``,
    ''
  ];
  for (const item of items) {
    switch (item.kind) {
      case 'user':
        lines.push(`## You`, '', item.text, '');
        break;
      case 'assistant':
        lines.push(`## Notebook Agent`, '', item.text, '');
        break;
      case 'tool': {
        const duration =
          item.durationMs !== undefined
            ? `, ${(item.durationMs / 1000).toFixed(1)} s`
            : '';
        lines.push(`**${item.name}** (${item.status}${duration})`, '');
        if (item.arguments && item.arguments !== '{}') {
          lines.push(fence(item.arguments, 'json'), '');
        }
        if (item.output) {
          lines.push(fence(item.output, 'text'), '');
        }
        const images = (item.images?.length ?? 0) + (item.moreImages ?? 0);
        if (images) {
          lines.push(`_${images} image(s) in the output, not exported._`, '');
        }
        break;
      }
      case 'notice':
        lines.push(`> ${item.text}`, '');
        if (item.summary) {
          // What the model read instead of the earlier steps.
          lines.push(...item.summary.split('\n').map(line => `> ${line}`), '');
        }
        break;
    }
  }
  const { promptTokens, completionTokens } = record.usage;
  if (promptTokens + completionTokens > 0) {
    lines.push(
      `---`,
      '',
      `Tokens: ${promptTokens} prompt + ${completionTokens} completion.`,
      ''
    );
  }
  return lines.join('\n');
}

/** A fenced block that the text cannot close early. */
function fence(text: string, language: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map(m => m.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}
