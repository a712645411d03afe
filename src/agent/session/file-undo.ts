/**
 * Undo of the files the agent wrote (write_file). The notebook's own undo
 * holds its cells, not the files of the server root, so the session keeps
 * each write's content before (in memory, never in the saved chat) and one
 * Undo on the tool's card puts it back, or removes the file the agent
 * created. Nothing of the user's is lost: a file changed since the agent
 * wrote it is left as it is, and the user is told.
 */
import type { INotebookPort } from '../ports';
import type { IFileChange } from '../types';

interface IEntry {
  notebook: INotebookPort;
  change: IFileChange;
}

/** The writes of this session that can still be undone, by tool call id. */
export class FileUndo {
  private readonly _entries = new Map<string, IEntry>();

  /** Remember a write of `notebook`'s tool call `callId`. */
  record(callId: string, notebook: INotebookPort, change: IFileChange): void {
    this._entries.set(callId, { notebook, change });
  }

  /** Whether the write of `callId` can be undone now. */
  has(callId: string): boolean {
    return this._entries.has(callId);
  }

  /** Forget every write (a new chat, another chat reopened). */
  clear(): void {
    this._entries.clear();
  }

  /**
   * Put the file of `callId` back as it was before the write (remove it
   * when the agent created it). Resolves with what happened, for a notice;
   * `undone` false when the file changed since (it is then left alone).
   */
  async undo(callId: string): Promise<{ undone: boolean; message: string }> {
    const entry = this._entries.get(callId);
    if (!entry) {
      return {
        undone: false,
        message:
          'That file change can no longer be undone (the chat was reloaded).'
      };
    }
    const { notebook, change } = entry;
    let now: string | null;
    try {
      now = await notebook.readFile(change.path);
    } catch {
      now = null;
    }
    if (now !== change.after) {
      return {
        undone: false,
        message:
          `${change.path} changed since the agent wrote it, so Undo left it as it is ` +
          '(nothing of yours was overwritten).'
      };
    }
    if (change.before === null) {
      await notebook.deleteFile(change.path);
    } else {
      await notebook.writeFile(change.path, change.before);
    }
    this._entries.delete(callId);
    return {
      undone: true,
      message:
        change.before === null
          ? `Removed ${change.path}, which the agent had created.`
          : `Restored ${change.path} as it was before the agent replaced it.`
    };
  }
}
