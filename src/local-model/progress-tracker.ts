/**
 * Folds transformers.js `progress_callback` events into progress events for
 * the whole model: bytes and percent over all files, at most one event per
 * percent, then "compiling" once every file has arrived.
 */
import type { WorkerEvent } from '../agent/model/local/worker-protocol';

/** A transformers.js progress event (the fields the tracker reads). */
export interface IProgressInfo {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
}

/** Turns file events into whole-model progress. */
export class ProgressTracker {
  private _files = new Map<string, { loaded: number; total: number }>();
  private _lastPercent = -1;

  constructor(
    private readonly _id: number,
    private readonly _post: (event: WorkerEvent) => void
  ) {}

  /** Feed one transformers.js event. */
  update(info: IProgressInfo): void {
    if (!info.file) {
      return;
    }
    if (info.status === 'progress' && typeof info.total === 'number') {
      this._files.set(info.file, {
        loaded: info.loaded ?? 0,
        total: info.total
      });
    } else if (info.status === 'done') {
      const known = this._files.get(info.file);
      if (known) {
        known.loaded = known.total;
      }
    } else {
      return;
    }
    let loaded = 0;
    let total = 0;
    for (const file of this._files.values()) {
      loaded += file.loaded;
      total += file.total;
    }
    const percent = total ? Math.floor((loaded / total) * 100) : 0;
    if (percent !== this._lastPercent || info.status === 'done') {
      this._lastPercent = percent;
      this._post({
        type: 'progress',
        id: this._id,
        stage: 'download',
        file: info.file,
        loaded,
        total,
        percent
      });
    }
  }

  /** Say that the files are in and the sessions are being built. */
  compiling(): void {
    const total = [...this._files.values()].reduce((n, f) => n + f.total, 0);
    this._post({
      type: 'progress',
      id: this._id,
      stage: 'compiling',
      loaded: total,
      total,
      percent: 100
    });
  }
}
