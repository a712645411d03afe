/**
 * What the user attached to the next prompt (files copied next to the
 * notebook, cells they picked), as a small store the tray and the commands
 * share. Sending the prompt empties it.
 */
import type {
  IAttachments,
  ICellAttachment,
  IFileAttachment
} from '../../agent/context/attachments';
import { ValueStore } from '../../agent/value-store';

/** The store. */
export class AttachmentStore {
  private readonly _store = new ValueStore<Required<IAttachments>>({
    files: [],
    cells: []
  });

  readonly subscribe = this._store.subscribe;

  readonly getSnapshot = this._store.getSnapshot;

  private get _state(): Required<IAttachments> {
    return this._store.getSnapshot();
  }

  addFiles(files: ReadonlyArray<IFileAttachment>): void {
    const names = new Set(files.map(file => file.name));
    this._set({
      files: [...this._state.files.filter(f => !names.has(f.name)), ...files]
    });
  }

  addCells(cells: ReadonlyArray<ICellAttachment>): void {
    const ids = new Set(cells.map(cell => cell.id));
    this._set({
      cells: [...this._state.cells.filter(c => !ids.has(c.id)), ...cells]
    });
  }

  /** Remove one file (by name) or cell (by id). */
  remove(key: string): void {
    this._set({
      files: this._state.files.filter(file => file.name !== key),
      cells: this._state.cells.filter(cell => cell.id !== key)
    });
  }

  clear(): void {
    this._set({ files: [], cells: [] });
  }

  private _set(patch: Partial<Required<IAttachments>>): void {
    this._store.patch(patch);
  }
}
