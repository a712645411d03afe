"""Let the next restart of a stuck kernel kill it at once, for the agent's Stop.

The agent restarts a kernel only after the user's Stop, and only when its interrupt went
unanswered for the grace period: code that ignores SIGINT. The browser restarts it the way
JupyterLab does (``POST /api/kernels/{id}/restart`` through its kernel connection, which clears
the connection's state and its cells' pending runs), but that restart is graceful: jupyter_client
interrupts, asks the kernel to shut down, and sends SIGTERM only after half of
``KernelManager.shutdown_wait_time`` (5 s by default), SIGKILL after all of it. A kernel stuck in
user code cannot answer, so every such restart waited it out (measured: the kernel idle ~4.5 s
after the restart began; ~1 s when it is killed at once). Its state is lost either way.

``POST notebook-agent/kernels/<kernel_id>/no-wait-restart`` makes that kernel's next restart an
immediate one (``restart_kernel(now=True)``: the process is killed, not asked): it replaces the
kernel manager's ``restart_kernel`` on that one manager by a wrapper that removes itself when
called (or after ``RESTORE_AFTER`` seconds if no restart came), so other kernels and this kernel's
later restarts stay graceful. (Lowering ``shutdown_wait_time`` until the restart had begun, as
before, relied on a poller seeing the short shutting-down window: under load it could miss it and
leave the setting low for a minute.) Answers ``{"no_wait": true}``; ``false`` for a kernel whose
manager restarts its own way (a kernel on a gateway: no ``shutdown_wait_time``); 404 for a kernel
the server does not have. Authorized as the kernels API is (resource ``kernels``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_client.utils import ensure_async
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import AuthorizedRoute
from .outbound import OutboundFilter

#: As jupyter_server spells a kernel id in its routes.
KERNEL_ID = r"(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)"
#: The next restart is graceful again after this long if none came.
RESTORE_AFTER = 60.0


def _disarm(manager: Any) -> None:
    """Back to the class's own (graceful) restart."""
    manager.__dict__.pop("restart_kernel", None)


def brief_next_restart(manager: Any) -> bool:
    """Make ``manager``'s next restart immediate; False when it restarts its own way."""
    if not isinstance(getattr(manager, "shutdown_wait_time", None), (int, float)):
        return False
    if "restart_kernel" in manager.__dict__:
        return True  # already armed
    graceful = type(manager).restart_kernel

    async def restart_now(*args: Any, now: bool = False, **kwargs: Any) -> Any:
        _disarm(manager)
        timer.cancel()
        return await ensure_async(graceful(manager, *args, now=True, **kwargs))

    timer = asyncio.get_running_loop().call_later(RESTORE_AFTER, _disarm, manager)
    manager.restart_kernel = restart_now
    return True


class NoWaitRestartHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    # A restart of a kernel: the kernels API's resource and action (POST: write).
    auth_resource = "kernels"

    @web.authenticated
    async def post(self, kernel_id: str) -> None:
        if kernel_id not in self.kernel_manager:
            raise web.HTTPError(404, f"There is no kernel {kernel_id} on this server.")
        brief = brief_next_restart(self.kernel_manager.get_kernel(kernel_id))
        self.finish(json.dumps({"no_wait": brief}))


def setup_kernel_restart(web_app: Any) -> None:
    route = url_path_join(web_app.settings["base_url"], "notebook-agent", "kernels", KERNEL_ID, "no-wait-restart")
    web_app.add_handlers(".*$", [(route, NoWaitRestartHandler)])
