"""Chat history, kept per user on the server (never in the notebook file).

Each chat is one JSON file in ``<jupyter_data_dir>/notebook_agent/chats/``
(readable by the user only): the transcript the sidebar shows, the model
conversation, token usage, and the notebook it belongs to. Beside it, a
small ``<id>.meta`` file holds what the History list shows (id, title,
notebook, time), so listing reads a few hundred bytes per chat instead of
parsing every transcript (up to 20 MB each). ``c.NotebookAgent.max_chats``
(default 0: keep all) keeps only the newest chats. Every PUT is checked
against the chat's schema (``chat_schema.py``) and refused with a 400 naming
the field at fault; the list skips (and logs) a record it cannot read, and
forgetting old chats never makes a save fail. A disk error (a full disk, a
read-only or unwritable folder) is answered with its cause: 507 when the disk
is full, 500 otherwise, as JSON. Routes, under the server's base_url, Jupyter's
authentication and its Authorizer (resource ``notebook-agent-chats``: GET
read, PUT and DELETE write). A PUT's body may be at most 20 MiB (a 413 beyond).
A PUT's body, or a GET's file, over :data:`OFF_LOOP_CHAT_BYTES` (128 KiB) is
parsed, checked and serialised in the request worker (``request_worker.py``),
so that saving or loading a long chat never holds the event loop; a smaller one
is handled on the loop (the worker costs a round trip).

  GET    notebook-agent/chats[?notebook=PATH]  the chats (of that notebook), newest first
  GET    notebook-agent/chats/<id>             one chat
  PUT    notebook-agent/chats/<id>             save it (the body is the chat)
  DELETE notebook-agent/chats/<id>             forget it
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import AuthorizedRoute
from .chat_schema import CHAT_ID, listable, validate_chat
from .json_input import BadInputError, parse_json, query_text
from .outbound import OutboundFilter
from .private_dir import ensure_private_dir
from .request_worker import off_loop

# A chat holds observations already trimmed to budgets; this bounds a runaway client.
MAX_CHAT_BYTES = 20 * 1024 * 1024

#: Disk errors that mean "no room": 507 Insufficient Storage (the rest are 500s).
NO_ROOM = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG})

#: A PUT's body or a GET's file larger than this is parsed and serialised in the request worker. Chats of
#: many small JSON values (the slowest kind) cost the loop about 10-20 ms per 128 KiB to parse and
#: serialise, a 1 MiB one 90-190 ms (measured); a smaller chat stays on the loop (the worker costs a round trip).
OFF_LOOP_CHAT_BYTES = 128 * 1024


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


def _encoded(chat: Any, chat_id: str) -> tuple[str, str]:
    """The text of the chat's file and of its ``.meta``; raises :class:`BadInputError` when it does not fit."""
    validate_chat(chat, chat_id)
    chat = {**chat, "id": chat_id}
    meta = json.dumps(_summary(chat, chat_id), ensure_ascii=False)
    return json.dumps(chat, ensure_ascii=False, allow_nan=False), meta


def encode_chat(chat_id: str, body: bytes) -> tuple[bytes, str]:
    """A PUT's body made ready to write: parsed, checked, serialised and encoded (the file's bytes), all at once.

    A plain function of bytes, run in the request worker for a large body: parsing and serialising a
    20 MB chat each hold the GIL for the best part of a second, so a thread would not free the loop (nor
    would encoding its text on the loop: bytes come back as one copy, and are written without the GIL).
    """
    data, meta = _encoded(parse_json(body, "The chat"), chat_id)
    return data.encode("utf-8"), meta


def _load(path: Path) -> dict[str, Any]:
    """The chat in the file at ``path``; raises ValueError when it is damaged (OSError when it cannot be read)."""
    try:
        chat = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    if not isinstance(chat, dict):
        raise ValueError("it is not a JSON object")
    return chat


def chat_text(path: Path) -> str:
    """What a GET answers for the chat file at ``path``: read, parsed, checked and serialised, all at once.

    Raises ValueError (saying what is wrong) when the file is damaged, OSError when it cannot be read. A plain
    function of a path, run in the request worker for a large file (:func:`chat_text_in_worker`, like
    :func:`encode_chat`): what comes back is the answer, never the parsed tree. The answer is the file
    re-serialised, not its bytes: the file keeps non-ASCII text as it is (the answer escapes it), and a file
    written by hand is answered in the same form.
    """
    return json.dumps(_load(path), allow_nan=False)


def chat_text_in_worker(path: Path) -> bytes:
    """:func:`chat_text` as the request worker runs it, encoded there (the same bytes the handler would send:
    the text is ASCII; bytes cost the loop a copy, text a decode and an encode)."""
    try:
        return chat_text(path).encode("utf-8")
    except ValueError as error:
        # Only the message: a JSONDecodeError pickles the whole document, sent back from the worker for nothing.
        raise ValueError(str(error)) from None


class ChatStore:
    """Chats as files, written atomically, readable by the user only."""

    def __init__(self, directory: Path, max_chats: int = 0, log: logging.Logger | None = None) -> None:
        self.directory = directory
        self.max_chats = max_chats
        self.log = log or logging.getLogger(__name__)

    def _path(self, chat_id: str) -> Path:
        if not isinstance(chat_id, str) or not CHAT_ID.fullmatch(chat_id):
            raise BadInputError(f"invalid chat id {chat_id!r}: 1-64 letters, digits, '_' or '-'", "id")
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
                    summary = json.loads(meta.read_text(encoding="utf-8"))
                else:
                    chat = json.loads(file.read_text(encoding="utf-8"))
                    summary = _summary(chat, file.stem) if isinstance(chat, dict) else None
            except (OSError, ValueError, RecursionError) as error:
                summary, problem = None, f"{type(error).__name__}: {error}"
            else:
                problem = "its fields have the wrong types"
            shown = listable(summary)
            if shown is None:
                # A damaged file must not hide the others (nor break the list or the retention).
                self.log.warning("Notebook Agent: skipped the unreadable chat %s (%s)", file.name, problem[:200])
                continue
            summaries.append(shown)
        return summaries

    def list(self, notebook: str | None = None) -> list[dict[str, Any]]:
        chats = [c for c in self._summaries() if notebook is None or c.get("notebook") == notebook]
        return sorted(chats, key=lambda c: c["updated"], reverse=True)

    def get(self, chat_id: str) -> dict[str, Any] | None:
        """The chat, or None when there is none; raises ValueError when its file is damaged."""
        path = self.file(chat_id)
        return None if path is None else _load(path)

    def file(self, chat_id: str) -> Path | None:
        """The chat's file, or None when there is none; raises :class:`BadInputError` for a bad id."""
        path = self._path(chat_id)
        return path if path.exists() else None

    def check_id(self, chat_id: str) -> None:
        """Raise :class:`BadInputError` when ``chat_id`` cannot name a chat."""
        self._path(chat_id)

    def put(self, chat_id: str, chat: Any) -> None:
        """Save ``chat``; raises :class:`BadInputError` (naming the field) when it does not fit the schema."""
        self.check_id(chat_id)
        self.write(chat_id, *_encoded(chat, chat_id))

    def write(self, chat_id: str, data: str | bytes, meta: str) -> None:
        """Save a chat already checked and serialised (:func:`encode_chat`): its file, then its ``.meta``."""
        path = self._path(chat_id)
        ensure_private_dir(self.directory)
        self._write(path, data)
        # After the chat: a .meta older than its chat is not trusted (see _summaries).
        self._write(path.with_suffix(".meta"), meta)
        try:
            self._prune(keep=chat_id)
        except Exception:  # forgetting old chats must never make this save fail
            self.log.exception("Notebook Agent: could not forget old chats beyond max_chats")

    def _write(self, path: Path, data: str | bytes) -> None:
        # Write then rename: a crash never leaves half a file.
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data if isinstance(data, bytes) else data.encode("utf-8"))
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _prune(self, keep: str) -> None:
        """Beyond max_chats, forget the least recently updated chats (never the one just saved)."""
        if self.max_chats <= 0:
            return
        newest_first = sorted(self._summaries(), key=lambda c: c["updated"], reverse=True)
        extra = len(newest_first) - self.max_chats
        for summary in reversed(newest_first):
            if extra <= 0:
                break
            if summary["id"] == keep:
                continue
            try:
                self.delete(summary["id"])
            except OSError as error:  # another chat's file: never this save's problem
                self.log.warning("Notebook Agent: could not forget chat %s: %s", summary["id"], error)
                continue
            extra -= 1

    def delete(self, chat_id: str) -> bool:
        path = self._path(chat_id)
        path.with_suffix(".meta").unlink(missing_ok=True)
        if not path.exists():
            return False
        path.unlink()
        return True


class _ChatHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    auth_resource = "notebook-agent-chats"
    store: ChatStore
    changes: asyncio.Lock

    def initialize(self, store: ChatStore, changes: asyncio.Lock) -> None:
        self.store = store
        self.changes = changes

    def _error(self, status: int, message: str, field: str | None = None, **extra: Any) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        error: dict[str, Any] = {"message": message, **extra}
        if field:
            error["field"] = field
        self.finish(json.dumps({"error": error}))

    def _disk_error(self, error: OSError, doing: str, chat_id: str) -> None:
        """A disk error, answered with its cause (never the server's paths)."""
        cause = error.strerror or (os.strerror(error.errno) if error.errno else "") or type(error).__name__
        code = errno.errorcode.get(error.errno or 0, "")
        self.log.error("Notebook Agent: could not %s chat %s: %s", doing, chat_id, cause)
        full = error.errno in NO_ROOM
        advice = " Free some space on the Jupyter server's disk, then save again." if full else ""
        self._error(
            507 if full else 500,
            f"Could not {doing} the chat on the Jupyter server ({cause}).{advice}",
            type="chat_store_error",
            errno=code or None,
        )


class ChatListHandler(_ChatHandler):
    @web.authenticated
    async def get(self) -> None:
        try:
            notebook = query_text(self, "notebook")
        except BadInputError as error:
            return self._error(400, str(error), error.field)
        # After the changes that came before it (see ChatHandler.get).
        async with self.changes:
            chats = self.store.list(notebook)
        self.finish(json.dumps({"chats": chats}, allow_nan=False))


class ChatHandler(_ChatHandler):
    @web.authenticated
    async def get(self, chat_id: str) -> None:
        try:
            # A read waits for the changes that came before it: a save of a large chat is still in the worker when
            # a reload asks for the chats (the page saved, then reloaded), and the old chat would come back.
            async with self.changes:
                path = self.store.file(chat_id)
                if path is None:
                    return self._error(404, f"There is no chat {chat_id}.")
                if path.stat().st_size > OFF_LOOP_CHAT_BYTES:
                    body = await off_loop(chat_text_in_worker, path)
                else:
                    body = chat_text(path)
        except BadInputError as error:
            return self._error(400, str(error), error.field)
        except OSError as error:
            return self._disk_error(error, "read", chat_id)
        except ValueError as error:
            self.log.warning("Notebook Agent: the saved chat %s cannot be read: %s", chat_id, error)
            return self._error(404, f"The saved chat {chat_id} is damaged and cannot be loaded ({error}).")
        self.finish(body)

    @web.authenticated
    async def put(self, chat_id: str) -> None:
        body = self.request.body or b""
        if len(body) > MAX_CHAT_BYTES:
            return self._error(413, f"A chat may take at most {MAX_CHAT_BYTES // 2**20} MB.")
        try:
            self.store.check_id(chat_id)  # before a large body goes to the worker
            async with self.changes:
                if len(body) > OFF_LOOP_CHAT_BYTES:
                    data, meta = await off_loop(encode_chat, chat_id, body)
                else:
                    data, meta = encode_chat(chat_id, body)
                self.store.write(chat_id, data, meta)
        except BadInputError as error:
            return self._error(400, str(error), error.field)
        except OSError as error:
            return self._disk_error(error, "save", chat_id)
        self.finish(json.dumps({"id": chat_id}))

    @web.authenticated
    async def delete(self, chat_id: str) -> None:
        try:
            async with self.changes:
                found = self.store.delete(chat_id)
        except BadInputError as error:
            return self._error(400, str(error), error.field)
        except OSError as error:
            return self._disk_error(error, "delete", chat_id)
        self.set_status(204 if found else 404)
        self.finish()


def setup_chat_handlers(web_app: Any, store: ChatStore) -> None:
    base = url_path_join(web_app.settings["base_url"], "notebook-agent", "chats")
    # The store's changes are applied one at a time, in the order they came: a large PUT waits for the
    # worker, and a later PUT or DELETE of the same chat must not be undone when that one ends.
    options = {"store": store, "changes": asyncio.Lock()}
    web_app.add_handlers(
        ".*$",
        [
            (base, ChatListHandler, options),
            (url_path_join(base, r"([^/]+)"), ChatHandler, options),
        ],
    )
