/**
 * Notebook Agent as a JupyterLab inline completion provider (the completer's
 * inline API, JupyterLab ≥ 4.1): ghost text in code cells, accepted with Tab.
 * It asks once typing pauses (our own debounce: JupyterLab's is set to 0 so
 * every keystroke reaches us and aborts the request before it), stays quiet
 * while the agent or the kernel needs the machine more (completion-policy),
 * and says why it cannot suggest only when asked explicitly (Alt+\).
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { CompletionScheduler } from '../../agent/completion/completion-scheduler';
import { quietReason } from '../../agent/completion/completion-policy';
import type { SourceChoice } from '../../agent/completion/source-choice';
import { suggest, type ISuggestion } from '../../agent/completion/suggest';
import type { ICompletionSource } from '../../agent/completion/types';
import type { ICompletionSettings } from './completion-settings';
import {
  PROVIDER_INFO,
  type IInlineContext,
  type IInlineItem,
  type IInlineProvider,
  type IInlineRequest
} from './inline-provider-info';
import { notebookCursor } from './notebook-cursor';

/** InlineCompletionTriggerKind.Invoke. */
const INVOKED = 0;

/** What the provider needs from the rest of the extension. */
export interface IInlineProviderDeps {
  settings(): ICompletionSettings;
  /** Where suggestions come from now. */
  choice(): SourceChoice;
  /** The source for an endpoint or local choice (kept per choice). */
  source(choice: Exclude<SourceChoice, { kind: 'none' }>): ICompletionSource;
  agentBusy(): boolean;
  /** Tell the user of a failure while typing (once per kind of failure). */
  notify(message: string): void;
}

/** The last request's outcome, for the UI tests and the benchmark. */
export interface IInlineOutcome {
  kind: 'suggested' | 'empty' | 'quiet' | 'cancelled' | 'failed';
  detail: string;
  suggestion?: ISuggestion;
}

/** Notebook Agent's inline completion provider. */
export class AgentInlineProvider implements IInlineProvider {
  readonly name = PROVIDER_INFO.name;
  readonly identifier = PROVIDER_INFO.identifier;
  readonly schema = PROVIDER_INFO.schema;
  /** The last outcome. */
  last: IInlineOutcome | null = null;

  private readonly _scheduler: CompletionScheduler;
  /** The failures already told. */
  private readonly _told = new Set<string>();

  constructor(private readonly _deps: IInlineProviderDeps) {
    this._scheduler = new CompletionScheduler(
      () => _deps.settings().debounceMs
    );
  }

  async fetch(
    request: IInlineRequest,
    context: IInlineContext
  ): Promise<{ items: IInlineItem[] }> {
    const invoked = context.triggerKind === INVOKED;
    const panel =
      context.widget instanceof NotebookPanel ? context.widget : null;
    const cursor = panel
      ? notebookCursor(panel, request.text, request.offset)
      : null;
    // Typing in an emptied cell asks nothing; a next cell is suggested when invoked.
    if (!panel || !cursor || (!invoked && !request.text.trim())) {
      return this._done({ kind: 'empty', detail: 'not a code cell with text' });
    }
    const choice = this._deps.choice();
    if (choice.kind === 'none') {
      return this._quiet(choice.reason, invoked);
    }
    const reason = quietReason({
      agentBusy: this._deps.agentBusy(),
      kernelBusy: panel.sessionContext.session?.kernel?.status === 'busy',
      sharesAgentModel: choice.sharesAgentModel,
      onThisMachine: choice.onThisMachine
    });
    if (reason) {
      this._scheduler.cancel();
      return this._quiet(`No suggestion while ${reason}.`, invoked);
    }
    const source = this._deps.source(choice);
    const loading = source.notReady?.();
    if (loading) {
      return this._quiet(loading, invoked);
    }
    const { maxTokens } = this._deps.settings();
    try {
      const result = await this._scheduler.schedule(signal =>
        suggest(source, cursor, { maxTokens }, signal)
      );
      if (!result) {
        return this._done({ kind: 'cancelled', detail: 'a later keystroke' });
      }
      if (!result.text) {
        return this._done({
          kind: 'empty',
          detail: 'the model suggested nothing new',
          suggestion: result
        });
      }
      this.last = {
        kind: 'suggested',
        detail: source.model,
        suggestion: result
      };
      return { items: [{ insertText: result.text }] };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `Inline completion from ${source.model || 'the model'} failed: ${reason}`;
      this.last = { kind: 'failed', detail: message };
      if (invoked) {
        return { items: [{ insertText: '', error: { message } }] };
      }
      // While typing, a failure is said once (not at every pause), with what to do.
      if (!this._told.has(reason)) {
        this._told.add(reason);
        this._deps.notify(
          `${message}. Choose another model ("Inline completion model") or turn it off ("Inline completion") in Settings › Notebook Agent.`
        );
      }
      return { items: [] };
    }
  }

  /** Stop what waits or runs (the notebook closed, the setting changed). */
  cancel(): void {
    this._scheduler.cancel();
  }

  private _quiet(reason: string, invoked: boolean): { items: IInlineItem[] } {
    this.last = { kind: 'quiet', detail: reason };
    // Said only when the user asked: while typing, a reason per keystroke is noise.
    return invoked
      ? { items: [{ insertText: '', error: { message: reason } }] }
      : { items: [] };
  }

  private _done(outcome: IInlineOutcome): { items: IInlineItem[] } {
    this.last = outcome;
    return { items: [] };
  }
}
