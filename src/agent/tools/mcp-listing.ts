/**
 * The Jupyter server's MCP listing, kept for the sidebar and the runs:
 * which servers there are, their status and their tools' definitions. It
 * loads none of the tools themselves (./mcp-tools.ts makes agent tools of
 * the listing when a run needs them), so the browser keeps it from start.
 */
import type { IMcpClient, IMcpListing } from './mcp-types';
import { ValueStore } from '../value-store';

/** What the sidebar shows of the MCP servers. */
export interface IMcpSnapshot {
  listing: IMcpListing | null;
  /** Why the listing could not be read (the server is older, or gone). */
  error: string | null;
  loading: boolean;
}

/**
 * The Jupyter server's MCP listing: read at start and on `refresh()` (the
 * sidebar's Refresh, and after a call failed, so a crashed server shows at
 * once).
 */
export class McpListing {
  /** `client` reaches the Jupyter server's MCP routes (its tools' calls go there too). */
  constructor(readonly client: IMcpClient) {}

  /** Read the listing again (starts servers not yet started). */
  async refresh(): Promise<void> {
    this._set({ ...this._snapshot, loading: true });
    try {
      const listing = await this.client.listServers();
      this._set({ listing, error: null, loading: false });
    } catch (error) {
      this._set({
        ...this._snapshot,
        error: (error as Error).message ?? String(error),
        loading: false
      });
    }
  }

  /** The current state (a new object after each change). */
  getSnapshot = (): IMcpSnapshot => this._store.getSnapshot();

  /** Call `listener` after each change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) =>
    this._store.subscribe(listener);

  private _set(snapshot: IMcpSnapshot): void {
    this._store.set(snapshot);
  }

  private get _snapshot(): IMcpSnapshot {
    return this._store.getSnapshot();
  }

  private readonly _store = new ValueStore<IMcpSnapshot>({
    listing: null,
    error: null,
    loading: false
  });
}
