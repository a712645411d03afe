"""Where an outside agent's call runs: the page that has its notebook open.

A Jupyter server is one user's: every page connected to it (``outside_channel.py``) may take
the calls. Each page says which notebooks it has open; a call on one of them goes to the page
that said so last (the one the user opened it in most recently), which runs it through the
agent's own tools over the live notebook and answers. A page that goes away answers its
pending calls "the notebook was closed". A notebook no page has open goes to the server's
worker (``outside_worker.py``: the same tools over the headless port), or, without one, is
refused, saying to open it in JupyterLab.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any, Protocol

from .outside_worker import OutsideWorker, WorkerUnavailableError

SETTINGS_KEY = "notebook_agent_outside"
#: How long a call may take in the page (approval included) before the client is told.
CALL_TIMEOUT = 600.0
#: Open notebooks a page may name.
MAX_OPEN = 1000


class Page(Protocol):
    def send(self, payload: dict[str, Any]) -> bool: ...


def text_result(text: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _checked_result(result: Any) -> dict[str, Any]:
    """A page's answer as an MCP tool result: text and image blocks only, anything else refused."""
    if not isinstance(result, dict) or not isinstance(result.get("content"), list):
        return text_result("The notebook's page answered something that is not a tool result.", error=True)
    content = []
    for block in result["content"][:64]:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            content.append({"type": "text", "text": block["text"]})
        elif (
            block.get("type") == "image"
            and isinstance(block.get("data"), str)
            and block.get("mimeType") in ("image/png", "image/jpeg", "image/gif", "image/webp")
        ):
            content.append({"type": "image", "data": block["data"], "mimeType": block["mimeType"]})
    return {"content": content, "isError": bool(result.get("isError", False))}


class OutsideHub:
    """The pages connected to this server, what they have open, and the calls under way."""

    def __init__(self, call_timeout: float = CALL_TIMEOUT, worker: OutsideWorker | None = None) -> None:
        self.call_timeout = call_timeout
        #: Runs the calls on notebooks no page has open (None: they are refused).
        self.worker = worker
        self._open: dict[Page, list[str]] = {}
        self._order = itertools.count()
        self._said_at: dict[Page, int] = {}
        self._pending: dict[str, tuple[Page, asyncio.Future[dict[str, Any]]]] = {}
        self._ids = itertools.count(1)

    # --- pages

    def page_opened(self, page: Page) -> None:
        self._open[page] = []
        self._said_at[page] = next(self._order)

    def page_said(self, page: Page, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "open":
            notebooks = message.get("notebooks")
            if isinstance(notebooks, list):
                self._open[page] = [n for n in notebooks[:MAX_OPEN] if isinstance(n, str) and len(n) <= 4096]
                self._said_at[page] = next(self._order)
        elif kind == "result":
            pending = self._pending.get(str(message.get("id")))
            if pending is not None and pending[0] is page and not pending[1].done():
                pending[1].set_result(_checked_result(message.get("result")))

    def page_closed(self, page: Page) -> None:
        self._open.pop(page, None)
        self._said_at.pop(page, None)
        for call_id, (owner, future) in list(self._pending.items()):
            if owner is page and not future.done():
                future.set_result(
                    text_result("The notebook's JupyterLab page closed before the call finished.", error=True)
                )
                self._pending.pop(call_id, None)

    def page_for(self, notebook: str) -> Page | None:
        """The page that has ``notebook`` open (the one that said so last)."""
        having = [p for p, notebooks in self._open.items() if notebook in notebooks]
        return max(having, key=lambda p: self._said_at.get(p, -1)) if having else None

    def open_notebooks(self) -> list[str]:
        return sorted({n for notebooks in self._open.values() for n in notebooks})

    # --- calls

    def list_notebooks(self, user: str) -> dict[str, Any]:
        notebooks = self.open_notebooks()
        answer = {"open_in_jupyterlab": notebooks}
        return {**text_result(json.dumps(answer)), "structuredContent": answer}

    async def call(self, user: str, session: Any, tool: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        notebook = arguments["notebook"]
        page = self.page_for(notebook)
        if page is None:
            return await self._call_worker(session, tool, arguments)
        call_id = str(next(self._ids))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = (page, future)
        sent = page.send(
            {
                "type": "call",
                "id": call_id,
                "session": session.id,
                "client": session.client,
                "tool": tool.name,
                "arguments": arguments,
            }
        )
        try:
            if not sent:
                self.page_closed(page)
            return await asyncio.wait_for(asyncio.shield(future), self.call_timeout)
        except asyncio.TimeoutError:
            return text_result(
                f"No answer from {notebook}'s page within {int(self.call_timeout)} s (an approval not given?). "
                "The call may still run there.",
                error=True,
            )
        finally:
            self._pending.pop(call_id, None)

    async def _call_worker(self, session: Any, tool: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        notebook = arguments["notebook"]
        not_open = (
            f"{notebook} is not open in JupyterLab. Ask the user to open it there (list_notebooks names "
            "the notebooks open now), then call again."
        )
        if self.worker is None:
            return text_result(not_open, error=True)
        try:
            result = await asyncio.wait_for(
                self.worker.call(session.id, session.client, tool.name, arguments), self.call_timeout
            )
        except WorkerUnavailableError as error:
            return text_result(f"{not_open} ({error}.)", error=True)
        except asyncio.TimeoutError:
            return text_result(f"No answer for {notebook} within {int(self.call_timeout)} s.", error=True)
        if result is None:
            return text_result(f"The server's worker for {notebook} stopped before it answered.", error=True)
        return _checked_result(result)

    def session_ended(self, session_id: str) -> None:
        """The client ended its session: its runs end with it, in every page."""
        for page in list(self._open):
            page.send({"type": "ended", "session": session_id})
        if self.worker is not None:
            self.worker.session_ended(session_id)
