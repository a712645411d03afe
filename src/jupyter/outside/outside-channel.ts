/**
 * The page's side of notebook-agent/outside/channel (outside_channel.py),
 * loaded at start and kept tiny: it tells the server which notebooks this
 * page has open, and hands each call an outside agent makes on one of them
 * to `run`, which loads what runs it (./outside-calls.ts, with the runs
 * part) on the first call. Nothing else loads until an outside agent calls.
 */
import { URLExt } from '@jupyterlab/coreutils';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';

/** A call relayed by the server, as outside-session.ts's `IOutsideCall`. */
export interface IOutsideCallMessage {
  type: 'call';
  id: string;
  session: string;
  client: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** What answers the calls (loaded with the first). */
export interface IOutsideRunner {
  run(call: IOutsideCallMessage, panel: NotebookPanel): Promise<unknown>;
  ended(session: string): void;
}

/** The route of the channel under the server's base URL. */
export const CHANNEL_ROUTE = 'notebook-agent/outside/channel';

const RETRY_MS = [1000, 2000, 5000, 10000, 30000];

/**
 * Hold the channel for this page: reconnects when it drops, and says the
 * open notebooks on each change. `load` imports the runner on first use.
 */
export function listenForOutsideAgents(
  tracker: INotebookTracker,
  load: () => Promise<IOutsideRunner>,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): void {
  let socket: WebSocket | null = null;
  let attempt = 0;
  let runner: IOutsideRunner | null = null;
  const paths = (): string[] => {
    const open: string[] = [];
    tracker.forEach(panel => {
      open.push(panel.context.localPath);
    });
    return [...new Set(open)];
  };
  const sayOpen = () => {
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: 'open', notebooks: paths() }));
    }
  };
  const panelOf = (path: unknown): NotebookPanel | null =>
    tracker.find(panel => panel.context.localPath === path) ?? null;
  const answer = (id: string, result: unknown) => {
    socket?.send(JSON.stringify({ type: 'result', id, result }));
  };
  const onMessage = async (data: unknown) => {
    const message = JSON.parse(String(data)) as
      IOutsideCallMessage | { type: 'ended'; session: string };
    if (message.type === 'ended') {
      runner?.ended(message.session);
      return;
    }
    if (message.type !== 'call') {
      return;
    }
    const panel = panelOf(message.arguments.notebook);
    if (!panel) {
      answer(message.id, {
        content: [
          {
            type: 'text',
            text: `${String(message.arguments.notebook)} is no longer open in JupyterLab.`
          }
        ],
        isError: true
      });
      return;
    }
    try {
      runner ??= await load();
      answer(message.id, await runner.run(message, panel));
    } catch (error) {
      answer(message.id, {
        content: [
          {
            type: 'text',
            text: `The call failed in JupyterLab: ${(error as Error).message ?? String(error)}`
          }
        ],
        isError: true
      });
    }
  };
  const connect = () => {
    let url = URLExt.join(settings.wsUrl, CHANNEL_ROUTE);
    if (settings.appendToken && settings.token) {
      url += `?token=${encodeURIComponent(settings.token)}`;
    }
    const opened = new settings.WebSocket(url);
    socket = opened;
    opened.onopen = () => {
      attempt = 0;
      sayOpen();
    };
    opened.onmessage = event => void onMessage(event.data);
    opened.onclose = () => {
      if (socket === opened) {
        socket = null;
        const wait = RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)];
        setTimeout(connect, wait);
      }
    };
  };
  tracker.widgetAdded.connect((_, panel) => {
    void panel.context.ready.then(sayOpen);
    panel.context.pathChanged.connect(sayOpen);
    panel.disposed.connect(() => setTimeout(sayOpen, 0));
  });
  connect();
}
