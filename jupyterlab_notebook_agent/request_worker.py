"""A large request body is parsed (and scanned, and serialised) in a worker process, never on the event loop.

Parsing a request body (``json.loads``) is one call into C that holds the GIL from start to end: in a
thread it stops the event loop all the same (a 33 MB body: 0.17 s of 0.19 s). A 200 MB prompt held
every other request of the server (``/api/status`` 6-9 s). So a body over :data:`OFF_LOOP_BYTES`
(the agent's and inline completion's are far smaller) goes through :func:`off_loop`: one call of a plain
function of bytes in a worker process of its own, started on the first such body and kept for the next
(one for the whole server: such bodies are rare, and each route's size cap bounds each). The model
routes run :func:`.model_requests.prepare` there (checked, given the default model, scrubbed of
secrets), a chat's PUT :func:`.chats.encode_chat` (parsed, checked, serialised). The function gets
bytes and hands back text or bytes, never a parsed tree: unpickling one costs the loop nearly what parsing did.
Where a process cannot be had, a thread does it.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from .model_requests import Prepared, prepare

#: Bodies larger than this are handled in the worker process.
OFF_LOOP_BYTES = 1024 * 1024

log = logging.getLogger(__name__)

_pool: ProcessPoolExecutor | None = None

_T = TypeVar("_T")


def _worker() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn: a fresh interpreter, not a fork of a server with threads (and their locks) running.
        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    return _pool


async def off_loop(function: Callable[..., _T], *args: object) -> _T:
    """``function(*args)`` in the worker process (in a thread where none can be had).

    ``function`` is a module-level function (the worker imports it by name); what it raises is raised here, and
    is never taken for a failure of the worker: an ``OSError`` of its own (a file it cannot read) or a
    ``RecursionError`` is not run again in a thread, and the worker is kept.
    """
    global _pool
    loop = asyncio.get_running_loop()
    try:
        raised, value = await loop.run_in_executor(_worker(), _call, function, args)
    except (BrokenProcessPool, OSError, RuntimeError) as error:  # killed, or no process to be had: a thread
        log.warning("Notebook Agent: the request worker process failed (%s); working in a thread", error)
        _pool = None
        return await asyncio.to_thread(function, *args)
    if raised is not None:
        raise raised
    return value


def _call(function: Callable[..., _T], args: tuple[object, ...]) -> tuple[Exception | None, _T | None]:
    """In the worker: ``function(*args)``, with what it raised handed back as a value, apart from what the pool
    itself raises when it fails (both would arrive as one exception otherwise)."""
    try:
        return None, function(*args)
    except Exception as error:  # noqa: BLE001 (every error is the caller's to see, raised by off_loop)
        return error, None


async def prepare_off_loop(route: str, body: bytes, default_model: str, secrets: tuple[str, ...]) -> Prepared:
    """:func:`.model_requests.prepare` in the worker process (in a thread where none can be had)."""
    return await off_loop(prepare, route, body, default_model, secrets)
