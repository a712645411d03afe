/**
 * The inline completion provider as JupyterLab's completer sees it: its
 * name, id and settings, known at start (the plugin registers it then),
 * and the completer's types, declared here structurally: JupyterLab 4.0,
 * which the extension still supports, has no inline API to import.
 */
import type { Widget } from '@lumino/widgets';

/** The completer's request (CompletionHandler.IRequest). */
export interface IInlineRequest {
  text: string;
  offset: number;
}

/** The completer's context (IInlineCompletionContext). */
export interface IInlineContext {
  widget: Widget;
  /** 0: invoked by the user (Alt+\, or a next-cell suggestion), 1: while typing. */
  triggerKind: number;
}

/** One suggestion (IInlineCompletionItem). */
export interface IInlineItem {
  insertText: string;
  error?: { message: string };
}

/** The completer's provider interface (IInlineCompletionProvider). */
export interface IInlineProvider {
  readonly name: string;
  readonly identifier: string;
  readonly schema?: { default?: Record<string, unknown> };
  fetch(
    request: IInlineRequest,
    context: IInlineContext
  ): Promise<{ items: IInlineItem[] }>;
}

/** Notebook Agent's provider: its name and id, and JupyterLab's settings for it. */
export const PROVIDER_INFO = {
  name: 'Notebook Agent',
  identifier: 'notebook-agent',
  /**
   * No debounce of JupyterLab's own (ours aborts the previous request),
   * suggestions in the middle of a line too (fill-in-the-middle is what the
   * models are for), and a timeout long enough for a local model's first,
   * uncached prompt.
   */
  schema: {
    default: { debouncerDelay: 0, autoFillInMiddle: true, timeout: 30000 }
  }
} as const;
