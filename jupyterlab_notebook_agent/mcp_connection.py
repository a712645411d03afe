"""One MCP server's connection: started on first use, restarted after a crash, stopped with Jupyter.

The SDK's ``Client`` holds anyio task groups that must be entered and left in one task,
so each connection has an *owner* task that opens the client, lists the tools, and then
waits until it is told to stop. Requests (list, call) are sent from the route handlers'
tasks through the connected client. Everything is bounded by the server's ``timeout``: a
server that does not start, or a tool that does not answer, is an error, never a hang.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, Implementation
from pydantic import ValidationError

from .mcp_config import McpServerSpec, redact

if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10 (anyio brings the backport)
    from exceptiongroup import BaseExceptionGroup

#: A tools/list that never ends its pages cannot hang a start.
MAX_PAGES = 20
#: At most this many tools of one server reach the model.
MAX_TOOLS = 128
#: Characters of the server's stderr shown to explain a failure.
STDERR_TAIL = 2000
#: Bytes of the server's stderr kept (the last ones): a chatty server costs no more than this.
STDERR_RING = 64 * 1024
#: After a failed start, wait this long before trying again (each try may take ``timeout``).
RETRY_AFTER_S = 5.0

CLIENT_INFO = Implementation(name="jupyterlab-notebook-agent", version="0.1.0")


#: The message of the SDK's own CONNECTION_CLOSED (mcp/shared/jsonrpc_dispatcher.py).
CLOSED_MESSAGE = "Connection closed"


def connection_closed(error: MCPError) -> bool:
    """Whether the SDK raised ``error`` because the connection closed (not an error a server answered).

    The SDK reports a closed connection as CONNECTION_CLOSED (-32000) with its own message; -32000 is also
    JSON-RPC's generic "server error", which a server may answer with and still be there.
    """
    return error.code == CONNECTION_CLOSED and error.message == CLOSED_MESSAGE


class McpCallError(Exception):
    """A call that did not give a tool result; ``kind`` is ``timeout``, ``crashed``, ``failed`` or ``invalid``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class StderrRing:
    """The last :data:`STDERR_RING` bytes a stdio server wrote to stderr.

    The server writes into a pipe that a thread drains into memory: nothing reaches a file
    (a chatty server once filled a deleted temporary file by 5 MB a second), and the server
    never blocks on a full pipe. The thread ends when every writer closed its end.
    """

    def __init__(self, limit: int = STDERR_RING) -> None:
        self.limit = limit
        read_fd, write_fd = os.pipe()
        #: What the server's process gets as its stderr (this side's copy is closed with the connection).
        self.writer = open(write_fd, "wb", buffering=0)
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(read_fd,), name="mcp-stderr", daemon=True)
        self._thread.start()

    def _drain(self, read_fd: int) -> None:
        try:
            while True:
                chunk = os.read(read_fd, 65536)
                if not chunk:
                    break
                with self._lock:
                    self._buffer += chunk
                    if len(self._buffer) > self.limit:
                        del self._buffer[: len(self._buffer) - self.limit]
        except OSError:
            pass
        finally:
            os.close(read_fd)

    def __len__(self) -> int:
        with self._lock:
            return len(self._buffer)

    def tail(self, chars: int) -> str:
        """The last ``chars`` characters (decoded leniently, stripped)."""
        with self._lock:
            data = bytes(self._buffer[-chars * 4 :])
        return data.decode("utf-8", errors="replace")[-chars:].strip()

    def close(self) -> None:
        """Close this side's end of the pipe (the kept tail stays readable)."""
        try:
            self.writer.close()
        except OSError:
            pass


class McpConnection:
    """The connection to one configured server."""

    def __init__(self, spec: McpServerSpec, log: logging.Logger) -> None:
        self.spec = spec
        self.log = log
        #: ``idle`` (not started), ``starting``, ``connected``, ``failed`` (did not start), ``crashed``, ``stopped``.
        self.status = "idle"
        self.error: str | None = None
        self.tools: list[Any] = []
        self.restarts = 0
        #: What went wrong with the last call (a timeout, garbage, a crash), for the sidebar; None after a good one.
        self.notice: str | None = None
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._failed_at = 0.0
        self._stderr: StderrRing | None = None

    # -- start and stop ----------------------------------------------------------------------

    def _transport(self) -> Any:
        spec = self.spec
        if spec.command:
            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=spec.cwd or None
            )
            if self._stderr is not None:
                self._stderr.close()
            self._stderr = StderrRing()
            return stdio_client(params, errlog=self._stderr.writer)  # type: ignore[arg-type]
        http = httpx2.AsyncClient(headers=dict(spec.headers), timeout=httpx2.Timeout(spec.timeout, read=None))
        return streamable_http_client(spec.url, http_client=http)

    async def _own(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """The owner task: open the client, list the tools, keep it open until ``stop``."""
        try:
            async with Client(self._transport(), client_info=CLIENT_INFO) as client:
                tools: list[Any] = []
                cursor = None
                for _ in range(MAX_PAGES):
                    page = await client.list_tools(cursor=cursor)
                    tools += page.tools
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                self.tools = tools
                self._client = client
                if not ready.done():
                    ready.set_result(None)
                await stop.wait()
        except BaseException as error:  # noqa: BLE001 - the owner reports every end, then ends quietly
            if not ready.done():
                if isinstance(error, Exception):
                    ready.set_exception(error)
                else:
                    ready.cancel()
            elif not isinstance(error, asyncio.CancelledError):
                self.log.info("Notebook Agent: MCP server %r closed: %s", self.spec.name, self.describe(error))
        finally:
            self._client = None

    async def ensure(self) -> Client:
        """The connected client, starting (or restarting) the server first when needed."""
        async with self._lock:
            if self._client is not None and self.status == "connected":
                return self._client
            if self.status == "failed" and time.monotonic() - self._failed_at < RETRY_AFTER_S:
                raise McpCallError("failed", self.error or "the server did not start")
            if self.status in ("crashed", "failed"):
                self.restarts += 1
            await self._close()
            self.status, self.error = "starting", None
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[None] = loop.create_future()
            # Read here or not at all (a start that timed out): never "exception was never retrieved".
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._stop = asyncio.Event()
            self._owner = loop.create_task(self._own(ready, self._stop))
            try:
                await asyncio.wait_for(asyncio.shield(ready), self.spec.start_timeout)
            except BaseException as error:
                if isinstance(error, asyncio.TimeoutError):
                    self.error = f"the server did not start within {self.spec.start_timeout:g} s"
                else:
                    self.error = f"the server did not start: {self.describe(error)}"
                tail = self.stderr_tail()
                await self._close(cancel=True)
                if isinstance(error, asyncio.CancelledError):  # the caller went away: try again next time
                    self.status, self.error = "idle", None
                    raise
                self._failed_at = time.monotonic()
                self.status = "failed"
                if isinstance(error, asyncio.TimeoutError) and tail:
                    self.error += f" (stderr: {self._one_line(tail)[-500:]})"
                self.log.warning("Notebook Agent: MCP server %r: %s", self.spec.name, self.error)
                raise McpCallError("failed", self.error) from None
            self.status = "connected"
            assert self._client is not None
            return self._client

    async def _close(self, cancel: bool = False) -> None:
        """End the owner task: told to stop (a clean close), or cancelled (a start that hangs)."""
        if self._stop is not None:
            self._stop.set()
        owner, self._owner = self._owner, None
        if owner is not None and not owner.done():
            if cancel:
                owner.cancel()
            # The SDK closes stdin, then terminates and kills the process within a few seconds.
            await asyncio.wait({owner}, timeout=8)
            if not owner.done():
                owner.cancel()
        self._client = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def stop(self) -> None:
        """Stop the server (Jupyter is shutting down, or its config changed)."""
        async with self._lock:
            await self._close()
            self.status = "stopped"

    # -- requests ----------------------------------------------------------------------------

    async def alive(self) -> bool:
        """Whether a connected server still answers (a crash shows here before the next call).

        Asks for the tool list again (MCP 2026 has no ping), which also picks up changed tools.
        """
        client = self._client
        if client is None or self.status != "connected":
            return False
        try:
            page = await asyncio.wait_for(client.list_tools(cache_mode="refresh"), min(self.spec.timeout, 10.0))
        except MCPError as error:
            if not connection_closed(error):
                return True  # an error answer (-32000 included) is an answer: the server is there
            self._crashed(error)
            return False
        except (asyncio.TimeoutError, ValidationError) as error:
            self._crashed(error)
            return False
        if page.next_cursor is None:
            self.tools = list(page.tools)
        return True

    async def _answers(self, client: Client) -> bool:
        """Whether the server still answers a request (asked after an error that may mean it is gone)."""
        try:
            await asyncio.wait_for(client.list_tools(cache_mode="refresh"), min(self.spec.timeout, 5.0))
        except MCPError as error:
            return not connection_closed(error)
        except Exception:  # noqa: BLE001 - a timeout, a closed stream, garbage: not answering
            return False
        return True

    def _crashed(self, error: BaseException) -> None:
        self.status = "crashed"
        self.error = f"the server stopped: {self.describe(error)}"
        self.log.warning("Notebook Agent: MCP server %r: %s", self.spec.name, self.error)
        if self._stop is not None:
            self._stop.set()

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call ``tool``; raises McpCallError for anything that is not a tool result (and keeps it as ``notice``)."""
        try:
            result = await self._call(tool, arguments)
        except McpCallError as error:
            self.notice = redact(str(error), self.spec.secrets())
            raise
        self.notice = None
        return result

    async def _call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        client = await self.ensure()
        timeout = self.spec.timeout
        try:
            return await asyncio.wait_for(client.call_tool(tool, arguments), timeout)
        except asyncio.TimeoutError:
            raise McpCallError(
                "timeout", f"{tool} did not answer within {timeout:g} s; the call was cancelled"
            ) from None
        except MCPError as error:
            # CONNECTION_CLOSED (-32000) is also JSON-RPC's generic "server error", which a tool
            # may answer with: a crash only when the server no longer answers at all.
            if connection_closed(error) and not await self._answers(client):
                self._crashed(error)
                raise McpCallError(
                    "crashed", f"the server stopped during {tool}; it restarts on the next call"
                ) from None
            raise McpCallError("failed", f"{tool} failed: {self.describe(error)}") from None
        except ValidationError:
            raise McpCallError("invalid", f"{tool} answered with something that is not an MCP tool result") from None

    # -- what to show ------------------------------------------------------------------------

    def stderr_tail(self) -> str:
        ring = self._stderr
        return ring.tail(STDERR_TAIL) if ring is not None else ""

    def describe(self, error: BaseException) -> str:
        """A one-line, secret-free account of ``error`` (with the server's last stderr lines)."""
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        text = str(error).strip() or type(error).__name__
        if isinstance(error, FileNotFoundError):
            text = f"command not found: {self.spec.command}"
        stderr = self.stderr_tail()
        if stderr:
            text += f" (stderr: {self._one_line(stderr)[-500:]})"
        return self._one_line(text)[:1000]

    def _one_line(self, text: str) -> str:
        """``text`` without the server's secrets, then on one line. In that order: a secret with a line break (a PEM
        in the server's ``env``) is no longer itself once its line breaks are spaces, and a cut made first could
        leave part of one."""
        return " ".join(redact(text, self.spec.secrets()).split())
