/**
 * The MCP servers of the Jupyter server, in the sidebar: a button that
 * says how many tools there are (and warns when a server is down), and a
 * panel listing each server's status, its error and its tools.
 */
import React, { useId, useRef, useState, useSyncExternalStore } from 'react';
import type { McpListing } from '../../agent/tools/mcp-listing';
import type { IMcpServerInfo } from '../../agent/tools/mcp-types';
import { useTrans } from '../common/trans';
import { useDismiss } from '../common/use-dismiss';

/** Props of `McpServers`. */
export interface IMcpServersProps {
  source: McpListing;
  /** Any change closes the panel (a new chat, the sidebar hidden). */
  closeKey?: unknown;
}

/** The MCP section; nothing when the server has no MCP servers. */
export function McpServers({
  source,
  closeKey
}: IMcpServersProps): JSX.Element | null {
  const trans = useTrans();
  const { listing, error, loading } = useSyncExternalStore(
    source.subscribe,
    source.getSnapshot
  );
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useDismiss({
    open,
    close: () => setOpen(false),
    anchor: button,
    popover: panel,
    closeKey
  });
  const servers = listing?.servers ?? [];
  if (!servers.length && !listing?.errors.length) {
    return null;
  }
  const down = servers.filter(
    s => s.status === 'failed' || s.status === 'crashed'
  );
  const troubled = servers.filter(s => s.notice).length;
  const tools = servers.reduce((n, s) => n + s.tools.length, 0);
  return (
    <div className="jp-AgentSidebar-mcp">
      <button
        ref={button}
        className={`jp-AgentSidebar-link${down.length || troubled ? ' jp-mod-warn' : ''}`}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
      >
        {down.length
          ? trans.__('MCP tools: %1 (%2 server(s) down)', tools, down.length)
          : troubled
            ? trans.__('MCP tools: %1 (a call failed)', tools)
            : trans.__('MCP tools: %1', tools)}
      </button>
      {open && (
        <div
          ref={panel}
          id={panelId}
          className="jp-AgentSidebar-mcpPanel"
          role="region"
          aria-label={trans.__('MCP servers')}
        >
          <ul className="jp-AgentSidebar-mcpServers">
            {servers.map(server => (
              <McpServerItem key={server.name} server={server} />
            ))}
          </ul>
          {listing?.errors.map(text => (
            <p key={text} className="jp-AgentSidebar-mcpError">
              {text}
            </p>
          ))}
          {error && <p className="jp-AgentSidebar-mcpError">{error}</p>}
          <button
            className="jp-AgentSidebar-link"
            disabled={loading}
            onClick={() => void source.refresh()}
          >
            {loading ? trans.__('Refreshing…') : trans.__('Refresh')}
          </button>
        </div>
      )}
    </div>
  );
}

function McpServerItem({ server }: { server: IMcpServerInfo }): JSX.Element {
  const trans = useTrans();
  const status: Record<IMcpServerInfo['status'], string> = {
    idle: trans.__('not started'),
    starting: trans.__('starting'),
    connected: trans.__('connected'),
    failed: trans.__('failed'),
    crashed: trans.__('stopped unexpectedly'),
    stopped: trans.__('stopped')
  };
  return (
    <li className="jp-AgentSidebar-mcpServer" data-status={server.status}>
      <strong>{server.name}</strong>{' '}
      <span className="jp-AgentSidebar-mcpStatus">
        {status[server.status]}
        {server.source === 'user' ? ` · ${trans.__('yours')}` : ''}
      </span>
      {server.error && (
        <p className="jp-AgentSidebar-mcpError">{server.error}</p>
      )}
      {server.notice && (
        <p className="jp-AgentSidebar-mcpError" role="status">
          {trans.__('Last call: %1', server.notice)}
        </p>
      )}
      {server.tools.length > 0 && (
        <ul className="jp-AgentSidebar-mcpTools">
          {server.tools.map(tool => (
            <li key={tool.name} title={tool.description}>
              <code>{tool.tool}</code>{' '}
              <span className="jp-AgentSidebar-mcpApproval">
                {tool.auto_approve
                  ? trans.__('runs without asking')
                  : trans.__('asks first')}
              </span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
