"""A large model request is parsed and scanned in a worker process, never on the event loop.

Parsing a request body (``json.loads``) is one call into C that holds the GIL from start to end: in a
thread it stops the event loop all the same (a 33 MB body: 0.17 s of 0.19 s). A 200 MB prompt held
every other request of the server (``/api/status`` 6-9 s). So a body over :data:`OFF_LOOP_BYTES`
(the agent's and inline completion's are far smaller) is checked, given its default model and
scrubbed of secrets in one call of :func:`.model_requests.prepare` in a worker process of its own,
started on the first such body and kept for the next (one for the whole server: such bodies are
rare, and the route's size cap bounds each). Where a process cannot be had, a thread does it.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .model_requests import Prepared, prepare

#: Bodies larger than this are prepared in the worker process.
OFF_LOOP_BYTES = 1024 * 1024

log = logging.getLogger(__name__)

_pool: ProcessPoolExecutor | None = None


def _worker() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn: a fresh interpreter, not a fork of a server with threads (and their locks) running.
        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    return _pool


async def prepare_off_loop(route: str, body: bytes, default_model: str, secrets: tuple[str, ...]) -> Prepared:
    """:func:`.model_requests.prepare` in the worker process (in a thread where none can be had)."""
    global _pool
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_worker(), prepare, route, body, default_model, secrets)
    except (BrokenProcessPool, OSError, RuntimeError) as error:  # killed, or no process to be had: a thread
        log.warning("Notebook Agent: the request worker process failed (%s); preparing in a thread", error)
        _pool = None
        return await asyncio.to_thread(prepare, route, body, default_model, secrets)
