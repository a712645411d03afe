/**
 * The project rules in the browser: read for each run (the session asks),
 * and shown in the sidebar for the active notebook, kept current when the
 * user switches notebooks, edits an AGENTS.md or turns the setting off.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Contents, ServerConnection } from '@jupyterlab/services';
import {
  RULES_FILE,
  type IProjectRules
} from '../../agent/context/project-rules';
import { ValueStore } from '../../agent/value-store';
import { readProjectRules } from '../../server-api/project-rules';

/** Reads the project rules of notebooks and holds those of the shown one. */
export class ProjectRulesStore extends ValueStore<IProjectRules | null> {
  /** `enabled`: the setting that turns rules on (read at each use). */
  constructor(
    private readonly _contents: Contents.IManager,
    private readonly _settings: ServerConnection.ISettings,
    private readonly _enabled: () => boolean
  ) {
    super(null);
    // An AGENTS.md saved, renamed or deleted: show the rules as they are now.
    _contents.fileChanged.connect((_, change) => {
      const paths = [change.oldValue?.path, change.newValue?.path];
      if (paths.some(path => path && PathExt.basename(path) === RULES_FILE)) {
        this.refresh();
      }
    });
  }

  /** The rules of `notebookPath` (null when turned off); shown when it is the active one. */
  async read(notebookPath: string): Promise<IProjectRules | null> {
    if (!this._enabled()) {
      if (notebookPath === this._shown) {
        this.set(null);
      }
      return null;
    }
    const asked = ++this._asked;
    const rules = await readProjectRules(
      this._contents,
      this._settings,
      notebookPath
    );
    // Only the latest answer for the shown notebook is shown.
    if (notebookPath === this._shown && asked === this._asked) {
      this.set(rules);
    }
    return rules;
  }

  /** Show the rules of `notebookPath` (null: no notebook is active). */
  show(notebookPath: string | null): void {
    this._shown = notebookPath;
    this.refresh();
  }

  /** Read the shown notebook's rules again. */
  refresh(): void {
    const path = this._shown;
    if (path === null) {
      this.set(null);
      return;
    }
    this.read(path).catch(() => {
      if (this._shown === path) {
        this.set(null);
      }
    });
  }

  private _shown: string | null = null;
  /** Reads started, so that a slow earlier answer does not replace a later one. */
  private _asked = 0;
}
