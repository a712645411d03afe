"""Chat history, kept per user on the server (never in the notebook file).

Each chat is one JSON file in ``<jupyter_data_dir>/notebook_agent/chats/``
(readable by the user only): the transcript the sidebar shows, the model
conversation, token usage, and the notebook it belongs to. Beside it, a
small ``<id>.meta`` file holds what the History list shows (id, title,
notebook, time), so listing reads a few hundred bytes per chat instead of
parsing every transcript (up to 20 MB each). ``c.NotebookAgent.max_chats``
(default 0: keep all) keeps only the newest chats. Routes, under the
server's base_url and Jupyter's authentication:

  GET    notebook-agent/chats[?notebook=PATH]  the chats (of that notebook), newest first
  GET    notebook-agent/chats/<id>             one chat
  PUT    notebook-agent/chats/<id>             save it (the body is the chat)
  DELETE notebook-agent/chats/<id>             forget it
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .outbound import OutboundFilter

CHAT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A chat holds observations already trimmed to budgets; this bounds a runaway client.
MAX_CHAT_BYTES = 20 * 1024 * 1024


def default_chats_dir() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "notebook_agent" / "chats"


def _summary(chat: dict[str, Any], chat_id: str) -> dict[str, Any]:
    """What the History list shows of a chat."""
    return {
        "id": chat.get("id", chat_id),
        "title": chat.get("title", ""),
        "notebook": chat.get("notebook", ""),
        "updated": chat.get("updated", 0),
    }


class ChatStore:
    """Chats as files, written atomically, readable by the user only."""

    def __init__(self, directory: Path, max_chats: int = 0) -> None:
        self.directory = directory
        self.max_chats = max_chats

    def _path(self, chat_id: str) -> Path:
        if not CHAT_ID.match(chat_id):
            raise ValueError(f"invalid chat id {chat_id!r}")
        return self.directory / f"{chat_id}.json"

    def _summaries(self) -> list[dict[str, Any]]:
        """Every chat's summary, from its .meta file (or, for a chat saved before those, the chat)."""
        if not self.directory.is_dir():
            return []
        summaries = []
        for file in self.directory.glob("*.json"):
            try:
                meta = file.with_suffix(".meta")
                if meta.exists() and meta.stat().st_mtime >= file.stat().st_mtime:
                    summaries.append(json.loads(meta.read_text(encoding="utf-8")))
                else:
                    summaries.append(_summary(json.loads(file.read_text(encoding="utf-8")), file.stem))
            except (OSError, ValueError):
                continue  # a damaged file must not hide the others
        return summaries

    def list(self, notebook: str | None = None) -> list[dict[str, Any]]:
        chats = [c for c in self._summaries() if notebook is None or c.get("notebook") == notebook]
        return sorted(chats, key=lambda c: c.get("updated", 0), reverse=True)

    def get(self, chat_id: str) -> dict[str, Any] | None:
        path = self._path(chat_id)
        if not path.exists():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def put(self, chat_id: str, chat: dict[str, Any]) -> None:
        path = self._path(chat_id)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        chat = {**chat, "id": chat_id}
        self._write(path, json.dumps(chat, ensure_ascii=False))
        # After the chat: a .meta older than its chat is not trusted (see _summaries).
        self._write(path.with_suffix(".meta"), json.dumps(_summary(chat, chat_id), ensure_ascii=False))
        self._prune(keep=chat_id)

    def _write(self, path: Path, data: str) -> None:
        # Write then rename: a crash never leaves half a file.
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(data)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _prune(self, keep: str) -> None:
        """Beyond max_chats, forget the least recently updated chats (never the one just saved)."""
        if self.max_chats <= 0:
            return
        newest_first = sorted(self._summaries(), key=lambda c: c.get("updated", 0), reverse=True)
        extra = len(newest_first) - self.max_chats
        for summary in reversed(newest_first):
            if extra <= 0:
                break
            if summary.get("id") != keep and CHAT_ID.match(str(summary.get("id", ""))):
                self.delete(summary["id"])
                extra -= 1

    def delete(self, chat_id: str) -> bool:
        path = self._path(chat_id)
        path.with_suffix(".meta").unlink(missing_ok=True)
        if not path.exists():
            return False
        path.unlink()
        return True


class _ChatHandler(OutboundFilter, APIHandler):
    store: ChatStore

    def initialize(self, store: ChatStore) -> None:
        self.store = store

    def _error(self, status: int, message: str) -> None:
        self.set_status(status)
        self.finish(json.dumps({"error": {"message": message}}))


class ChatListHandler(_ChatHandler):
    @web.authenticated
    def get(self) -> None:
        self.finish(json.dumps({"chats": self.store.list(self.get_query_argument("notebook", None))}))


class ChatHandler(_ChatHandler):
    @web.authenticated
    def get(self, chat_id: str) -> None:
        try:
            chat = self.store.get(chat_id)
        except ValueError as error:
            return self._error(400, str(error))
        if chat is None:
            return self._error(404, f"There is no chat {chat_id}.")
        self.finish(json.dumps(chat))

    @web.authenticated
    def put(self, chat_id: str) -> None:
        if len(self.request.body) > MAX_CHAT_BYTES:
            return self._error(413, f"A chat may take at most {MAX_CHAT_BYTES // 2**20} MB.")
        try:
            chat = json.loads(self.request.body or b"{}")
            if not isinstance(chat, dict):
                raise ValueError("the body must be a JSON object")
            self.store.put(chat_id, chat)
        except ValueError as error:
            return self._error(400, str(error))
        self.finish(json.dumps({"id": chat_id}))

    @web.authenticated
    def delete(self, chat_id: str) -> None:
        try:
            found = self.store.delete(chat_id)
        except ValueError as error:
            return self._error(400, str(error))
        self.set_status(204 if found else 404)
        self.finish()


def setup_chat_handlers(web_app: Any, store: ChatStore) -> None:
    base = url_path_join(web_app.settings["base_url"], "notebook-agent", "chats")
    options = {"store": store}
    web_app.add_handlers(
        ".*$",
        [
            (base, ChatListHandler, options),
            (url_path_join(base, r"([^/]+)"), ChatHandler, options),
        ],
    )
