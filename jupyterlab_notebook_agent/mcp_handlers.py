"""The MCP routes: the browser and the CLI reach MCP tools only through these.

  GET  notebook-agent/mcp/servers  the configured servers, their status and tools as they are now (starts nothing)
  POST notebook-agent/mcp/servers  the same, after starting the servers not yet started (and checking the rest)
  POST notebook-agent/mcp/call     {"name": "<server>__<tool>", "arguments": {...}} -> the result

Servers run here, on the Jupyter server (stdio subprocesses, HTTP endpoints with their
headers); the browser names a configured tool, never a command or URL. Every answer goes
through the outbound filter (every secret the server holds, in any encoding). A call that
fails, hangs or gets garbage answers a JSON error (502/504) the agent turns into an
observation; when the browser goes away (Stop), the call is cancelled on the MCP server too.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import AuthorizedRoute
from .mcp_config import SEPARATOR, TOOL_NAME, McpServerSet
from .mcp_connection import McpCallError, McpConnection
from .mcp_results import describe_tools, result_json
from .mcp_schema import SchemaChecker
from .outbound import OutboundFilter

SETTINGS_KEY = "notebook_agent_mcp"
#: A call's body: a tool name and its arguments.
MAX_BODY = 1024 * 1024
ERROR_STATUS = {"timeout": 504, "crashed": 502, "failed": 502, "invalid": 502}


class McpManager:
    """Every configured server's connection, kept in step with the config."""

    def __init__(self, config: Any, log: logging.Logger) -> None:
        from .mcp_config import resolve_mcp_servers

        self._resolve = lambda: resolve_mcp_servers(config)
        self.config = config
        self.log = log
        self.connections: dict[str, McpConnection] = {}
        self._retired: set[asyncio.Task[None]] = set()
        #: Per MCP server, the bounded worker process that checks call arguments against its schemas: a server
        #: whose schema is slow to check holds up only the calls to that server.
        self.checkers: dict[str, SchemaChecker] = {}

    def current(self) -> McpServerSet:
        """The configured servers now; a server whose entry changed (or went) is stopped."""
        servers = self._resolve()
        for name, connection in list(self.connections.items()):
            if servers.servers.get(name) != connection.spec:
                del self.connections[name]
                checker = self.checkers.pop(name, None)
                for stopping in (connection.stop(), *([checker.stop()] if checker is not None else [])):
                    task = asyncio.get_running_loop().create_task(stopping)
                    self._retired.add(task)
                    task.add_done_callback(self._retired.discard)
        for name, spec in servers.servers.items():
            if name not in self.connections:
                self.connections[name] = McpConnection(spec, self.log)
        return servers

    async def _listed(self, connection: McpConnection, start: bool) -> dict[str, Any]:
        if start:
            if connection.status == "connected":
                await connection.alive()
            try:
                await connection.ensure()
            except McpCallError:
                pass
        spec = connection.spec
        tools, skipped = describe_tools(spec, connection.tools) if connection.status == "connected" else ([], [])
        if tools:  # the agent may call them next: their checker's worker starts now, not at the first call
            self.checker(spec.name).warm()
        return {
            "name": spec.name,
            "transport": spec.transport,
            "source": spec.source,
            "status": connection.status,
            "error": connection.error,
            "notice": connection.notice,
            "restarts": connection.restarts,
            "timeout": spec.timeout,
            "tools": tools,
            "skipped_tools": skipped,
        }

    async def listing(self, start: bool) -> dict[str, Any]:
        """The servers and their tools; with ``start``, after starting (or checking) each one."""
        servers = self.current()
        listed = await asyncio.gather(*(self._listed(self.connections[n], start) for n in servers.servers))
        answer = {
            "servers": list(listed),
            "errors": servers.errors,
            "user_servers_allowed": servers.user_servers_allowed,
        }
        return answer

    def checker(self, server: str) -> SchemaChecker:
        """The schema checker of ``server`` (its worker starts when the server's tools are listed, or at the first
        check)."""
        if server not in self.checkers:
            self.checkers[server] = SchemaChecker(self.log)
        return self.checkers[server]

    def find(self, name: str) -> tuple[McpConnection, str] | None:
        """The connection and MCP tool name of a namespaced tool name."""
        server, _, tool = name.partition(SEPARATOR)
        connection = self.connections.get(server) if tool else None
        return (connection, tool) if connection is not None else None

    async def stop_all(self) -> None:
        await asyncio.gather(
            *(c.stop() for c in self.connections.values()),
            *self._retired,
            *(checker.stop() for checker in self.checkers.values()),
            return_exceptions=True,
        )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_call(body: bytes) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of a call body; ValueError says what is wrong."""
    if len(body) > MAX_BODY:
        raise ValueError(f"the body is larger than {MAX_BODY // 1024} KB")
    try:
        payload = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, RecursionError, ValueError) as error:
        raise ValueError(f"the body is not JSON ({type(error).__name__})") from None
    if not isinstance(payload, dict):
        raise ValueError('send a JSON object: {"name": "<server>__<tool>", "arguments": {...}}')
    unknown = sorted(k for k in payload if k not in ("name", "arguments"))
    if unknown:
        raise ValueError(f"unknown field(s): {', '.join(unknown)[:200]}")
    name, arguments = payload.get("name"), payload.get("arguments", {})
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name) or SEPARATOR not in name:
        raise ValueError("name must be a tool name as listed, '<server>__<tool>'")
    if not isinstance(arguments, dict):
        raise ValueError("arguments must be a JSON object")
    return name, arguments


class _McpHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    auth_resource = "notebook-agent-mcp"
    auth_execute = ("POST",)  # starting the servers runs their commands; a call runs a tool
    manager: McpManager

    def initialize(self, manager: McpManager) -> None:
        self.manager = manager

    def answer(self, status: int, payload: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(payload))

    def error(self, status: int, message: str, kind: str) -> None:
        self.answer(status, {"error": {"message": message, "type": kind}})


class McpServersHandler(_McpHandler):
    """GET notebook-agent/mcp/servers (as they are) and POST (started first).

    Starting a server runs its command, so it is a POST: Jupyter checks its XSRF token,
    and the Authorizer asks for ``execute``; looking is a GET that a read-only user may do.
    """

    @web.authenticated
    async def get(self) -> None:
        self.answer(200, await self.manager.listing(start=False))

    @web.authenticated
    async def post(self) -> None:
        self.answer(200, await self.manager.listing(start=True))


class McpCallHandler(_McpHandler):
    """POST notebook-agent/mcp/call: one tool call, cancelled when the browser goes away."""

    _call: asyncio.Task[Any] | None = None

    def on_connection_close(self) -> None:
        if self._call is not None:
            self._call.cancel()

    @web.authenticated
    async def post(self) -> None:
        try:
            name, arguments = parse_call(self.request.body or b"")
        except ValueError as error:
            self.error(400, str(error), "invalid_request")
            return
        self.manager.current()
        found = self.manager.find(name)
        if found is None:
            self.error(404, f"There is no MCP tool {name!r} on this Jupyter server.", "unknown_tool")
            return
        connection, tool = found
        self._call = asyncio.ensure_future(self._run(connection, tool, name, arguments))
        try:
            status, payload = await self._call
        except asyncio.CancelledError:
            self.log.info("Notebook Agent: MCP call %s cancelled (the client went away)", name)
            return
        self.answer(status, payload)

    async def _run(
        self, connection: McpConnection, tool: str, name: str, arguments: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        try:
            await connection.ensure()
            if not any(t.name == tool for t in connection.tools):
                return 404, {
                    "error": {"message": f"{connection.spec.name} has no tool {tool!r}", "type": "unknown_tool"}
                }
            # Only a tool the listing offers may be called (a skipped one says why).
            offered, skipped = describe_tools(connection.spec, connection.tools)
            listed = next((t for t in offered if t["tool"] == tool), None)
            if listed is None:
                why = next((s for s in skipped if s.startswith(f"{tool!r}:")), f"{tool!r}: not offered")
                return 404, {
                    "error": {"message": f"{connection.spec.name} does not offer {why}", "type": "unknown_tool"}
                }
            problem = await self.manager.checker(connection.spec.name).problem(listed["input_schema"], arguments)
            if problem:
                return 400, {
                    "error": {"message": f"invalid arguments for {name}: {problem}", "type": "invalid_arguments"}
                }
            result = await connection.call(tool, arguments)
        except McpCallError as error:
            return ERROR_STATUS[error.kind], {"error": {"message": str(error), "type": f"mcp_{error.kind}"}}
        return 200, result_json(name, result)


def mcp_handlers(web_app: Any, agent_config: Any) -> list[tuple[str, type, dict[str, Any]]]:
    """The MCP routes, with one manager for the server (kept in the settings for shutdown)."""
    server_app = web_app.settings.get("serverapp")
    log = getattr(server_app, "log", None) or logging.getLogger(__name__)
    manager = web_app.settings.setdefault(SETTINGS_KEY, McpManager(agent_config, log))
    base = url_path_join(web_app.settings["base_url"], "notebook-agent", "mcp")
    options = {"manager": manager}
    return [
        (url_path_join(base, "servers"), McpServersHandler, options),
        (url_path_join(base, "call"), McpCallHandler, options),
    ]


def stop_mcp_with(server_app: Any) -> None:
    """Stop every MCP server when Jupyter shuts down (after the extensions' own cleanup)."""
    cleanup = server_app.cleanup_extensions

    async def cleanup_extensions() -> None:
        await cleanup()
        manager = server_app.web_app.settings.get(SETTINGS_KEY)
        if manager is not None:
            await manager.stop_all()

    server_app.cleanup_extensions = cleanup_extensions
