/**
 * The browser side of notebook-agent/chats: chats saved per user on the
 * Jupyter server, never in the notebook file or the browser's storage.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { isChatRecord, type IChatRecord } from '../../agent/chat-record';
import type { IChatSummary } from '../../components/config/sidebar-config';

export type { IChatSummary };

/** Characters a keepalive request may carry (the browsers' limit is 64 KiB). */
const KEEPALIVE_LIMIT = 60_000;

/** Chats on the server. */
export class ChatStoreClient {
  constructor(private readonly _settings: ServerConnection.ISettings) {}

  /** The chats (of one notebook), newest first; empty when the server has none or fails. */
  async list(notebook?: string): Promise<IChatSummary[]> {
    const query = notebook ? `?notebook=${encodeURIComponent(notebook)}` : '';
    const response = await this._request(`${this._url()}${query}`);
    if (!response.ok) {
      return [];
    }
    const body = (await response.json()) as { chats?: IChatSummary[] };
    return body.chats ?? [];
  }

  /** One chat, or null when it is gone or unreadable. */
  async get(id: string): Promise<IChatRecord | null> {
    const response = await this._request(this._url(id));
    if (!response.ok) {
      return null;
    }
    const record: unknown = await response.json();
    return isChatRecord(record) ? record : null;
  }

  /**
   * Save a chat; throws with the server's message when it refuses.
   * `leaving`: the page is going away (a reload, a closed tab): the request
   * is sent so that it outlives the page when the browser allows it (a
   * keepalive request, at most 64 KiB).
   */
  async put(record: IChatRecord, leaving = false): Promise<void> {
    const body = JSON.stringify(record);
    const response = await this._request(this._url(record.id), {
      method: 'PUT',
      body,
      keepalive: leaving && body.length < KEEPALIVE_LIMIT
    });
    if (!response.ok) {
      throw new Error(
        `The chat could not be saved on the server (${response.status}).`
      );
    }
  }

  /** Forget a chat. */
  async remove(id: string): Promise<void> {
    await this._request(this._url(id), { method: 'DELETE' });
  }

  private _url(id?: string): string {
    return URLExt.join(
      this._settings.baseUrl,
      'notebook-agent',
      'chats',
      ...(id ? [encodeURIComponent(id)] : [])
    );
  }

  private _request(url: string, init: RequestInit = {}): Promise<Response> {
    return ServerConnection.makeRequest(url, init, this._settings);
  }
}
