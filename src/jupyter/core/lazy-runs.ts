/**
 * The chat's tasks, with their machinery loaded on demand (IAgentRuns): the
 * runs part (../runs/runs-part.ts) is imported with the first Send, Retry,
 * Generate or Fix, or ahead of it by `preload` (the prompt's first focus,
 * which warms the model too). Once loaded, a task starts exactly as it
 * always has. The first one meanwhile: what the runner would refuse before
 * anything runs (a task running, no notebook, no model configured) is
 * refused at once, in its words, so the prompt is kept; otherwise the chat
 * shows busy (Stop works) until the part is there and the task starts.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IAttachments } from '../../agent/context/attachments';
import { describeModelError } from '../../agent/model/errors';
import type { ChatSession } from '../../agent/session/chat-session';
import { NO_NOTEBOOK } from '../../agent/session/task-refusals';
import type {
  IGenerateRequestOptions,
  IRunTarget
} from '../../agent/session/types';
import type { IReadable } from '../../agent/value-store';
import type { IRunsPart } from './runs-seam';
import type { IAgentRuns } from './parts';

/** What the lazy runs are built from. */
export interface ILazyRunsOptions {
  session: ChatSession;
  trans: TranslationBundle;
  /** The model client the chat uses now (throws when none is configured). */
  currentModel: () => unknown;
  /** Since when a model server reads the chat's prompt without answering (null: none). */
  modelWait: IReadable<number | null>;
  /** Import and build the runs part. */
  load: () => Promise<IRunsPart>;
}

/** The chat's tasks; their machinery loads with the first. */
export class LazyRuns implements IAgentRuns {
  constructor(private readonly _options: ILazyRunsOptions) {
    this.session = _options.session;
    this.trans = _options.trans;
    this.modelWait = _options.modelWait;
  }

  readonly session: ChatSession;
  readonly trans: TranslationBundle;
  readonly modelWait: IReadable<number | null>;

  send(
    prompt: string,
    panel: NotebookPanel | null,
    attachments: IAttachments
  ): boolean {
    if (!prompt.trim()) {
      return false;
    }
    return (
      this._start(panel, (part, target) =>
        part.session.send(prompt, target, attachments)
      ) !== null
    );
  }

  retry(panel: NotebookPanel | null): void {
    void this._start(panel, (part, target) => part.session.retry(target));
  }

  fixCell(panel: NotebookPanel, cellId: string): void {
    void this._start(panel, (part, target) =>
      part.session.fixCell(cellId, target)
    );
  }

  async generate(
    request: string,
    panel: NotebookPanel,
    options: IGenerateRequestOptions
  ): Promise<void> {
    await this._start(panel, (part, target) =>
      part.session.generate(request, target, options)
    );
  }

  preload(): void {
    void this.loaded().catch(() => undefined);
  }

  /** The runs part, loaded (once; a failed load is tried again next time). */
  loaded(): Promise<IRunsPart> {
    this._loading ??= this._options.load().then(
      part => (this._part = part),
      (error: unknown) => {
        this._loading = null;
        throw error;
      }
    );
    return this._loading;
  }

  /**
   * Start a task in `panel` with `begin`; null when it cannot start (the
   * chat says why), as `AgentSession`'s tasks answer.
   */
  private _start<T>(
    panel: NotebookPanel | null,
    begin: (part: IRunsPart, target: IRunTarget) => Promise<T> | null
  ): Promise<T | undefined> | null {
    const part = this._part;
    if (part) {
      return begin(part, part.targetFor(panel));
    }
    const session = this.session;
    if (session.busy) {
      return null;
    }
    if (!panel) {
      session.reportError(NO_NOTEBOOK);
      return null;
    }
    try {
      this._options.currentModel();
    } catch (error) {
      session.reportError(describeModelError(error));
      return null;
    }
    const release = session.holdForStart();
    return this.loaded().then(
      loaded => {
        const held = release();
        if (held === 'drop') {
          return undefined;
        }
        const run = begin(loaded, loaded.targetFor(panel));
        if (held === 'stop') {
          session.stop();
        }
        return run ?? undefined;
      },
      (error: unknown) => {
        release();
        session.reportError({
          kind: 'unknown',
          message: this.trans.__(
            'Notebook Agent could not load what runs its tasks: %1',
            (error as Error).message ?? String(error)
          ),
          hint: this.trans.__(
            'Check the connection to the Jupyter server (or reload the page), then ask again.'
          )
        });
        return undefined;
      }
    );
  }

  private _part: IRunsPart | null = null;
  private _loading: Promise<IRunsPart> | null = null;
}
