"""``notebook-agent/mcp``: the live notebook as an MCP server, for outside agents (#36).

Streamable HTTP as the MCP specification (2025-03-26 to 2025-11-25) has it: one ``POST`` per
JSON-RPC message, each request answered with ``application/json`` (one answer per call, through
the outbound filter as every route's); a notification or response is 202; ``GET`` is 405 (this
server sends nothing unasked); ``DELETE`` ends the session. A 2026 client's ``server/discover``
probe is "method not found", so it falls back to ``initialize``.

Guards, in order: Jupyter's Host check (loopback or ``local_hostnames`` unless
``allow_remote_access``); an ``Origin`` other than this server's own is 403 whatever
``allow_origin`` says (no web page of another site, DNS rebinding included); credentials only
from the ``Authorization`` header (a login cookie alone, or ``?token=`` in the URL, is 401);
the Authorizer with resource ``notebook-agent-outside``: ``read`` to connect and list, and
per tool the action ``outside_tools.json`` names (``write`` to edit cells or files,
``execute`` to run or interrupt), a 403 with a JSON-RPC error; paths inside the root and
not hidden (``path_check.py``'s rule) before a call goes anywhere.

Where a call runs is :mod:`.outside_hub`'s business (the page that has the notebook open).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any
from urllib.parse import urlparse

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from . import __version__
from .agent_handler import AuthorizedRoute
from .json_input import BadInputError, parse_json
from .outbound import OutboundFilter
from .outside_catalogue import outside_tools
from .outside_hub import SETTINGS_KEY, OutsideHub
from .outside_sessions import McpSessions, client_label
from .path_check import MAX_PATH, check_path

RESOURCE = "notebook-agent-outside"
#: The MCP revisions spoken here (the initialize handshake's), oldest first.
PROTOCOL_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
MAX_BODY = 4 * 1024 * 1024
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
SESSIONS_KEY = "notebook_agent_outside_sessions"

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INSTRUCTIONS = (
    "Tools of the user's live Jupyter notebooks (Notebook Agent). Name the notebook in every call "
    "(list_notebooks: those open in JupyterLab). Read a notebook before changing it: cells are named by "
    "id, and a cell changed since you read it is refused until you read it again. Changes and runs may "
    "wait for the user's approval in the notebook's sidebar; the user can stop your run and undo it."
)


def _allowed(_handler: Any) -> None:
    """What :func:`authorized` guards in :meth:`OutsideMcpHandler.authorize`: nothing more to do."""


class _RefusalError(Exception):
    """An HTTP status with a JSON-RPC error body."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error_message(message_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}


def _path_problem(root: str | None, path: Any, what: str, notebook: bool) -> str | None:
    """Why ``path`` may not be used, or None."""
    if not isinstance(path, str) or not path.strip():
        return f"{what} must be a path relative to the Jupyter server root."
    if len(path) > MAX_PATH or any(ord(c) < 0x20 or c == "\x7f" for c in path):
        return f"{what} is not a file name (too long, or holding a control character)."
    if notebook and not path.endswith(".ipynb"):
        return f"{what} must name a notebook (a .ipynb file): {path!r}."
    if root is None:
        return None
    verdict = check_path(root, path)
    if not verdict.inside:
        return f"{what} {path!r} leads outside the Jupyter server root: refused."
    if verdict.hidden:
        return f"{what} {path!r} is or lies in a hidden file or folder: refused."
    return None


class OutsideMcpHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    """The MCP endpoint; see the module's docstring."""

    auth_resource = RESOURCE

    def auth_action(self) -> str:
        # Connecting, listing and reading need read; each call asks again for its tool's action.
        return "read"

    def check_xsrf_cookie(self) -> None:
        # Only token-authenticated requests get past prepare(); Jupyter skips the XSRF check for those.
        return None

    async def prepare(self) -> None:  # type: ignore[override]
        # Before authenticating: refusals that must not depend on who asks.
        if self.get_query_argument("token", None) is not None:
            self._refuse_early(401, "Send the token in the Authorization header, not in the URL.")
            return
        origin = self.request.headers.get("Origin")
        if origin is not None and not self._same_origin(origin):
            self._refuse_early(403, "Requests from web pages of other origins are refused.")
            return
        await super().prepare()
        if self._finished:
            return
        if not self.current_user or (self.identity_provider.auth_enabled and not self.token_authenticated):
            self._refuse_early(401, "Authenticate with the Jupyter server's token: Authorization: Bearer <token>.")

    def _same_origin(self, origin: str) -> bool:
        parsed = urlparse(origin.lower())
        return bool(parsed.netloc) and parsed.netloc == (self.request.host or "").lower()

    def _refuse_early(self, status: int, message: str) -> None:
        self.set_status(status)
        if status == 401:
            self.set_header("WWW-Authenticate", 'Bearer realm="jupyter"')
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(_error_message(None, INVALID_REQUEST, message)))

    # --- the state this route keeps on the server

    def sessions(self) -> McpSessions:
        return self.settings.setdefault(SESSIONS_KEY, McpSessions())

    def hub(self) -> OutsideHub:
        return self.settings[SETTINGS_KEY]

    def user_name(self) -> str:
        user = self.current_user
        return str(getattr(user, "username", user))

    def principal(self) -> str:
        """Who a session belongs to: the credential it was opened with. Every request here is
        token-authenticated, and Jupyter names a token's user anew on each request that carries no
        login cookie (MCP clients keep none), so the token is what stays the same."""
        credential = self.request.headers.get("Authorization", "")
        return hashlib.sha256(credential.encode("utf-8", "replace")).hexdigest()

    def root(self) -> str | None:
        root = getattr(self.contents_manager, "root_dir", None)
        return os.path.realpath(root) if root is not None else None

    # --- HTTP

    def get(self) -> None:
        self.set_status(405)
        self.set_header("Allow", "POST, DELETE")
        self.finish(_error_message(None, INVALID_REQUEST, "No event stream here: POST each message."))

    def delete(self) -> None:
        session_id = self.request.headers.get(SESSION_HEADER, "")
        if not self.sessions().close(session_id, self.principal()):
            raise web.HTTPError(404, "No such session.")
        self.hub().session_ended(session_id)
        self.set_status(204)
        self.finish()

    async def post(self) -> None:
        message_id: Any = None
        try:
            message = self._message()
            message_id = message.get("id")
            if "method" not in message:  # a response to something this server never asks: accepted, ignored
                self.set_status(202)
                self.finish()
                return
            method = message["method"]
            if not isinstance(method, str):
                raise _RefusalError(400, INVALID_REQUEST, "method must be a string.")
            if "id" not in message:  # a notification
                self.set_status(202)
                self.finish()
                return
            if not isinstance(message_id, str | int) or isinstance(message_id, bool):
                raise _RefusalError(400, INVALID_REQUEST, "id must be a string or a number.")
            params = message.get("params", {})
            if not isinstance(params, dict):
                raise _RefusalError(400, INVALID_PARAMS, "params must be an object.")
            result = await self._answer(method, params)
        except _RefusalError as refusal:
            self.set_status(refusal.status)
            self.finish(_error_message(message_id, refusal.code, refusal.message))
            return
        self.finish({"jsonrpc": "2.0", "id": message_id, "result": result})

    def _message(self) -> dict[str, Any]:
        body = self.request.body or b""
        if len(body) > MAX_BODY:
            raise _RefusalError(413, INVALID_REQUEST, f"The message is larger than {MAX_BODY // 1024 // 1024} MiB.")
        try:
            message = parse_json(body, "The message")
        except BadInputError as error:
            raise _RefusalError(400, PARSE_ERROR, str(error)) from None
        if isinstance(message, list):
            raise _RefusalError(400, INVALID_REQUEST, "Send one JSON-RPC message per request (no batches).")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise _RefusalError(400, INVALID_REQUEST, 'Send a JSON-RPC 2.0 message ({"jsonrpc": "2.0", ...}).')
        version = self.request.headers.get(VERSION_HEADER)
        if version is not None and version not in PROTOCOL_VERSIONS:
            raise _RefusalError(400, INVALID_REQUEST, f"Unsupported {VERSION_HEADER} {version[:40]!r}.")
        return message

    # --- JSON-RPC

    async def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return self._initialize(params)
        if method not in ("ping", "tools/list", "tools/call"):
            raise _RefusalError(404, METHOD_NOT_FOUND, f"Method not found: {method[:80]}")
        session = self._session()
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [tool.listed for tool in outside_tools().values()]}
        if method == "tools/call":
            return await self._call(session, params)
        raise _RefusalError(404, METHOD_NOT_FOUND, f"Method not found: {method[:80]}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
        session = self.sessions().open(self.principal(), client_label(params.get("clientInfo")), version)
        self.set_header(SESSION_HEADER, session.id)
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "notebook-agent", "title": "Notebook Agent", "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    def _session(self) -> Any:
        session_id = self.request.headers.get(SESSION_HEADER)
        if not session_id:
            raise _RefusalError(400, INVALID_REQUEST, f"Send the {SESSION_HEADER} header that initialize answered.")
        session = self.sessions().find(session_id, self.principal())
        if session is None:
            raise _RefusalError(404, INVALID_REQUEST, "Session not found: initialize again.")
        return session

    async def authorize(self, action: str) -> None:
        """Ask the Authorizer for ``action`` on this route's resource; 403 with a JSON-RPC error when refused."""
        try:
            checked = authorized(action, RESOURCE)(_allowed)(self)
            if hasattr(checked, "__await__"):
                await checked
        except web.HTTPError as error:
            if error.status_code != 403:
                raise
            raise _RefusalError(
                403, INVALID_REQUEST, f"Not allowed: this call needs the {action!r} permission."
            ) from None

    async def _call(self, session: Any, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments", {})
        tool = outside_tools().get(name) if isinstance(name, str) else None
        if tool is None:
            raise _RefusalError(200, INVALID_PARAMS, f"Unknown tool: {str(name)[:80]!r}.")
        if not isinstance(arguments, dict):
            raise _RefusalError(200, INVALID_PARAMS, "arguments must be an object.")
        await self.authorize(tool.action)
        root = self.root()
        problems = []
        if tool.notebook:
            problems.append(_path_problem(root, arguments.get("notebook"), "notebook", notebook=True))
        if "path" in arguments:
            problems.append(_path_problem(root, arguments["path"], "path", notebook=False))
        problem = next((p for p in problems if p), None)
        if problem is not None:
            return tool_error(problem)
        if tool.name == "list_notebooks":
            return self.hub().list_notebooks(self.user_name())
        return await self.hub().call(self.user_name(), session, tool, arguments)


def tool_error(message: str) -> dict[str, Any]:
    """A tool result that failed, saying why (the client's model reads it)."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def setup_outside_mcp(web_app: Any, hub: OutsideHub) -> None:
    base = web_app.settings["base_url"]
    web_app.settings[SETTINGS_KEY] = hub
    web_app.add_handlers(".*$", [(url_path_join(base, "notebook-agent", "mcp"), OutsideMcpHandler)])
