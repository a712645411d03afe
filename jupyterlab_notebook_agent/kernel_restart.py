"""Let the next restart of a stuck kernel kill it at once, for the agent's Stop.

The agent restarts a kernel only after the user's Stop, and only when its interrupt went
unanswered for the grace period: code that ignores SIGINT. The browser restarts it the way
JupyterLab does (``POST /api/kernels/{id}/restart`` through its kernel connection, which clears
the connection's state and its cells' pending runs), but that restart is graceful: jupyter_client
interrupts, asks the kernel to shut down, and sends SIGTERM only after half of
``KernelManager.shutdown_wait_time`` (5 s by default), SIGKILL after all of it. A kernel stuck in
user code cannot answer, so every such restart waited it out (measured: the kernel idle ~4.5 s
after the restart began; ~1 s when it is killed at once). Its state is lost either way.

``POST notebook-agent/kernels/<kernel_id>/no-wait-restart`` lowers that kernel's own
``shutdown_wait_time`` to ``BRIEF_WAIT`` until its next restart has begun (or ``RESTORE_AFTER``
seconds passed), then puts the setting back: other kernels, and this kernel's later restarts,
keep the server's setting. Answers ``{"no_wait": true}``; ``false`` for a kernel whose manager has
no such setting (a kernel on a gateway, which restarts it its own way); 404 for a kernel the
server does not have. Authorized as the kernels API is (resource ``kernels``).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .outbound import OutboundFilter

#: As jupyter_server spells a kernel id in its routes.
KERNEL_ID = r"(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)"
#: The next restart's wait, in seconds (SIGTERM after half of it, SIGKILL after all).
BRIEF_WAIT = 0.2
#: The setting is put back after this long if no restart came.
RESTORE_AFTER = 60.0
#: How often the restore task looks at the kernel manager.
POLL = 0.05

#: Kernel managers whose next restart is brief, and their own setting.
_pending: dict[int, float] = {}
#: The restore tasks (held, or the event loop could drop them before they ran).
_restores: set[asyncio.Future] = set()


async def _restore_after_restart(manager: Any, original: float) -> None:
    """Put ``shutdown_wait_time`` back once the restart passed the wait (the new kernel is starting)."""
    deadline = time.monotonic() + RESTORE_AFTER
    try:
        while not manager.shutting_down and time.monotonic() < deadline:
            await asyncio.sleep(POLL)  # the restart has not begun
        while manager.shutting_down and time.monotonic() < deadline:
            await asyncio.sleep(POLL)  # shutting down: the wait is read in here
    finally:
        manager.shutdown_wait_time = original
        _pending.pop(id(manager), None)


def brief_next_restart(manager: Any) -> bool:
    """Make ``manager``'s next restart brief; False when it has no wait to shorten."""
    if not isinstance(getattr(manager, "shutdown_wait_time", None), (int, float)):
        return False
    if id(manager) not in _pending:
        _pending[id(manager)] = manager.shutdown_wait_time
        manager.shutdown_wait_time = min(BRIEF_WAIT, manager.shutdown_wait_time)
        task = asyncio.ensure_future(_restore_after_restart(manager, _pending[id(manager)]))
        _restores.add(task)
        task.add_done_callback(_restores.discard)
    return True


class NoWaitRestartHandler(OutboundFilter, APIHandler):
    auth_resource = "kernels"

    @web.authenticated
    @authorized
    async def post(self, kernel_id: str) -> None:
        if kernel_id not in self.kernel_manager:
            raise web.HTTPError(404, f"There is no kernel {kernel_id} on this server.")
        brief = brief_next_restart(self.kernel_manager.get_kernel(kernel_id))
        self.finish(json.dumps({"no_wait": brief}))


def setup_kernel_restart(web_app: Any) -> None:
    route = url_path_join(web_app.settings["base_url"], "notebook-agent", "kernels", KERNEL_ID, "no-wait-restart")
    web_app.add_handlers(".*$", [(route, NoWaitRestartHandler)])
