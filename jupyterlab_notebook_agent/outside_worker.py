"""The worker for outside agents' calls on notebooks no JupyterLab page has open.

A subprocess of the Jupyter server, started on first use: ``notebook-agent mcp-worker`` (the
command line's, ``c.NotebookAgent.outside_worker_command``), which runs the agent's own tools
over the headless port (``src/headless/mcp-bridge/worker.ts``). It gets this server's URL and,
in its environment, the server's token; calls go to it as JSON lines and come back the same
way. A worker that exits fails its pending calls, saying so, and the next call starts another.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import shutil
from typing import Any

#: An answer line, at most (a budgeted observation, maybe images).
MAX_LINE = 32 * 1024 * 1024


class WorkerUnavailableError(Exception):
    """No worker can be started (no command); the message says what to do."""


class OutsideWorker:
    """One worker process, started on first use."""

    def __init__(self, command: list[str], server_url: str, token: str, log: logging.Logger) -> None:
        self.command, self.server_url, self.token, self.log = command, server_url, token, log
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._starting = asyncio.Lock()

    def _resolved(self) -> list[str]:
        if not self.command:
            raise WorkerUnavailableError("the server has no worker for notebooks that are not open")
        executable = shutil.which(self.command[0])
        if executable is None:
            raise WorkerUnavailableError(
                f"{self.command[0]!r} is not installed on the server (npm install -g jupyterlab-notebook-agent)"
            )
        return [executable, *self.command[1:]]

    async def _start(self) -> asyncio.subprocess.Process:
        async with self._starting:
            if self._process is not None and self._process.returncode is None:
                return self._process
            command = self._resolved()
            env = {**os.environ, "JUPYTER_TOKEN": self.token}
            self._process = await asyncio.create_subprocess_exec(
                *command,
                "--server",
                self.server_url,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env=env,
                limit=MAX_LINE,
            )
            self._reader = asyncio.get_running_loop().create_task(self._read(self._process))
            return self._process

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        try:
            while line := await process.stdout.readline():
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                future = self._pending.pop(str(message.get("id")), None)
                if future is not None and not future.done():
                    future.set_result(message.get("result"))
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_result(None)
            self._pending.clear()

    async def call(self, session: str, client: str, tool: str, arguments: dict[str, Any]) -> Any:
        """The worker's answer (an MCP tool result), or None when it went away first."""
        process = await self._start()
        call_id = str(next(self._ids))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = future
        line = json.dumps({"id": call_id, "session": session, "client": client, "tool": tool, "arguments": arguments})
        assert process.stdin is not None
        process.stdin.write(line.encode("utf-8") + b"\n")
        await process.stdin.drain()
        return await future

    def session_ended(self, session_id: str) -> None:
        """Tell the worker (if it runs) that a session ended: it closes that session's notebooks."""
        process = self._process
        if process is not None and process.returncode is None and process.stdin is not None:
            process.stdin.write(json.dumps({"type": "ended", "session": session_id}).encode("utf-8") + b"\n")

    async def stop(self) -> None:
        process = self._process
        if process is None or process.returncode is not None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()


def stop_worker_with(server_app: Any, worker: OutsideWorker) -> None:
    """Stop the worker (closing the kernels it started) when Jupyter shuts down."""
    cleanup = server_app.cleanup_extensions

    async def cleanup_extensions() -> None:
        await cleanup()
        await worker.stop()

    server_app.cleanup_extensions = cleanup_extensions
