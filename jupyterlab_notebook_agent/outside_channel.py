"""``notebook-agent/outside/channel``: the websocket a JupyterLab page holds for outside agents.

The page says which notebooks it has open (``{"type": "open", "notebooks": [...]}``, the whole
list each time it changes); the server sends it the calls on them (``{"type": "call", "id",
"session", "client", "tool", "arguments"}``) and the end of a session (``{"type": "ended",
"session"}``); the page answers each call (``{"type": "result", "id", "result"}``, an MCP
tool result). Jupyter's websocket authentication applies, an Origin other than the server's own
is refused, and the Authorizer is asked for ``read`` on ``notebook-agent-outside`` (the page
runs each call as its user, through the kernels and contents it may use anyway).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

from jupyter_server.utils import url_path_join
from tornado import web, websocket

from .agent_handler import AuthorizedRoute
from .outside_hub import SETTINGS_KEY, OutsideHub

#: A page's message, at most (an answer carries a budgeted observation and maybe images).
MAX_MESSAGE = 16 * 1024 * 1024


class OutsideChannelHandler(AuthorizedRoute, websocket.WebSocketHandler):
    """One page's channel."""

    auth_resource = "notebook-agent-outside"

    def check_origin(self, origin: str | None = None) -> bool:
        """Only this server's own pages (or a client that sends no Origin), whatever ``allow_origin`` says."""
        origin = self.request.headers.get("Origin") if origin is None else origin
        if not origin:
            return True
        return urlparse(origin.lower()).netloc == (self.request.host or "").lower()

    def hub(self) -> OutsideHub:
        return self.settings[SETTINGS_KEY]

    async def get(self, *args: Any, **kwargs: Any) -> None:
        if not self.current_user:
            raise web.HTTPError(403)
        await super().get(*args, **kwargs)

    def open(self, *args: Any, **kwargs: Any) -> None:
        self.hub().page_opened(self)

    def on_message(self, message: str | bytes) -> None:
        if len(message) > MAX_MESSAGE:
            self.close(1009, "message too large")
            return
        try:
            payload = json.loads(message)
        except ValueError:
            self.close(1003, "not JSON")
            return
        if isinstance(payload, dict):
            self.hub().page_said(self, payload)

    def on_close(self) -> None:
        self.hub().page_closed(self)

    def send(self, payload: dict[str, Any]) -> bool:
        """Send a message to the page; False when it is gone."""
        try:
            self.write_message(json.dumps(payload))
        except websocket.WebSocketClosedError:
            return False
        return True


def setup_outside_channel(web_app: Any) -> None:
    route = url_path_join(web_app.settings["base_url"], "notebook-agent", "outside", "channel")
    web_app.add_handlers(".*$", [(route, OutsideChannelHandler)])
