/**
 * Chats saved before the one record (`items` for the transcript and
 * `history` for the model, kept apart): read and converted to entries.
 * Each list keeps its order in the entries: the history's messages as
 * entries the model reads, then the transcript's items as entries the
 * user sees (a request, a reply, a card or a line without a message), so
 * the history and the transcript derived from them are the ones saved.
 * Old cards did not say what they ran: that is read here, once, from the
 * agent's own tools' names and arguments, as the old card read it.
 */
import type { ChatMessage } from '../types';
import type { ChatEntry, ToolCard } from './chat-entries';
import type { TranscriptItem } from './types';

/**
 * The cell a saved call of the tool named `name` with these arguments (JSON)
 * runs or watches, or null: for cards saved before a card carried that cell
 * itself (`runsCell`, from the tool-call event).
 */
export type RunsCellLookup = (name: string, args: string) => string | null;

/**
 * The agent's own tools that run or wait for the cell they name
 * (`runsNamedCell`: interrupted-run.test.ts holds this list against their
 * definitions), for cards saved before they carried their cell. Named here
 * so that reopening a chat loads no tool.
 */
const SAVED_RUN_CELL_TOOLS: ReadonlySet<string> = new Set(['run_cell', 'wait']);

/** The tool that ran the cell it named, whose card showed its output unopened. */
const SAVED_RUN_TOOL = 'run_cell';

/** `RunsCellLookup` over the agent's own tools (their argument `cell_id`). */
export function agentRunsCell(): RunsCellLookup {
  return (name, args) => {
    if (!SAVED_RUN_CELL_TOOLS.has(name)) {
      return null;
    }
    const cell = parseArguments(args).cell_id;
    return typeof cell === 'string' ? cell : null;
  };
}

/** A chat saved before the one record, as far as its two lists go. */
export interface ILegacyChat {
  items: ReadonlyArray<TranscriptItem>;
  history: ReadonlyArray<ChatMessage>;
}

/** The entries of a chat saved with its transcript and history apart. */
export function entriesOfLegacy(
  chat: ILegacyChat,
  runsCell: RunsCellLookup = agentRunsCell()
): ChatEntry[] {
  return [
    ...chat.history.map((message): ChatEntry => ({ kind: 'message', message })),
    ...chat.items.map((item): ChatEntry => {
      switch (item.kind) {
        case 'user':
          return {
            kind: 'prompt',
            id: item.id,
            message: null,
            line: { kind: 'user', text: item.text }
          };
        case 'assistant':
          return {
            kind: 'reply',
            id: item.id,
            message: null,
            shown: item.text,
            ...(item.notComputed ? { notComputed: item.notComputed } : {})
          };
        case 'tool':
          return {
            kind: 'call',
            card: legacyCard(item, runsCell),
            message: null
          };
        case 'notice':
          return { kind: 'notice', notice: item };
        default: {
          const unhandled: never = item;
          throw new Error(`Not a saved item: ${JSON.stringify(unhandled)}.`);
        }
      }
    })
  ];
}

/** An old card with what it ran said, as the old card read it from its arguments. */
function legacyCard(card: ToolCard, runsCell: RunsCellLookup): ToolCard {
  if (card.code !== undefined || card.toolKind !== undefined) {
    return card;
  }
  const args = parseArguments(card.arguments);
  const cell = card.runsCell ?? runsCell(card.name, card.arguments);
  return {
    ...card,
    ...(cell !== null ? { runsCell: cell } : {}),
    ...(typeof args.source === 'string' ? { code: args.source } : {}),
    ...(card.name === SAVED_RUN_TOOL || args.run === true
      ? { toolKind: 'run' as const }
      : {})
  };
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
