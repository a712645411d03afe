"""The MCP sessions of outside agents: who opened each, and the client's name.

A session begins with ``initialize`` (its ``clientInfo`` names the outside run in the sidebar:
"<client name> is working in analysis.ipynb") and is bound to the Jupyter user who opened it:
another user naming its id gets 404, as for an unknown id. At most :data:`MAX_SESSIONS` are
kept; the one used longest ago goes first.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, field

MAX_SESSIONS = 64
#: A client's name as shown in the sidebar: printable, at most this long.
MAX_NAME = 60
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def client_label(info: object) -> str:
    """The name an outside agent gave (``clientInfo.title`` or ``.name``), safe to show; "An MCP client" if none."""
    if isinstance(info, dict):
        for key in ("title", "name"):
            value = info.get(key)
            if isinstance(value, str):
                text = " ".join(_UNPRINTABLE.sub(" ", value).split())[:MAX_NAME]
                if text:
                    return text
    return "An MCP client"


@dataclass
class McpSession:
    """One outside agent's session."""

    id: str
    user: str
    client: str
    protocol_version: str
    used: float = field(default_factory=time.monotonic)


class McpSessions:
    """The sessions of this server, bounded."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: dict[str, McpSession] = {}

    def open(self, user: str, client: str, protocol_version: str) -> McpSession:
        while len(self._sessions) >= self.limit:
            oldest = min(self._sessions.values(), key=lambda s: s.used)
            del self._sessions[oldest.id]
        session = McpSession(secrets.token_urlsafe(24), user, client, protocol_version)
        self._sessions[session.id] = session
        return session

    def find(self, session_id: str, user: str) -> McpSession | None:
        session = self._sessions.get(session_id)
        if session is None or session.user != user:
            return None
        session.used = time.monotonic()
        return session

    def close(self, session_id: str, user: str) -> bool:
        if self.find(session_id, user) is None:
            return False
        del self._sessions[session_id]
        return True

    def __len__(self) -> int:
        return len(self._sessions)
