"""The request worker (request_worker.off_loop): what its function raises is the function's, not the worker's.

off_loop falls back to a thread when the worker process fails (it was killed, or none can be started). It took an
``OSError`` or ``RuntimeError`` raised by the function itself (a chat file that cannot be read; a
``RecursionError``) for such a failure: the worker was dropped, and the function ran a second time, in a thread,
where a large body's parse holds the event loop. These run the real worker process (spawned).
"""

from __future__ import annotations

import errno
import multiprocessing
import os
from pathlib import Path

import pytest

from jupyterlab_notebook_agent import request_worker


def _ran(log: str) -> None:
    with open(log, "a") as file:
        file.write("worker\n" if multiprocessing.parent_process() is not None else "thread\n")


def fails_with_os_error(log: str) -> None:
    _ran(log)
    raise OSError(errno.EACCES, "denied on purpose", "chat.json")


def recurses(log: str) -> None:
    _ran(log)
    raise RecursionError("nested on purpose")


def dies_in_the_worker(log: str) -> str:
    """The worker process dies under it (as if killed); a thread gets it done."""
    _ran(log)
    if multiprocessing.parent_process() is not None:
        os._exit(1)
    return "done in a thread"


def doubles(value: int) -> int:
    return 2 * value


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "runs.log"


@pytest.fixture(autouse=True)
def own_worker():
    """A worker of this test's own, shut down after it."""
    request_worker._pool = None
    yield
    if request_worker._pool is not None:
        request_worker._pool.shutdown(wait=True)
    request_worker._pool = None


async def test_a_value_comes_back_from_the_worker():
    assert await request_worker.off_loop(doubles, 21) == 42
    assert request_worker._pool is not None


@pytest.mark.parametrize(
    ("function", "kind", "message"),
    [(fails_with_os_error, PermissionError, "denied on purpose"), (recurses, RecursionError, "nested on purpose")],
)
async def test_the_functions_own_error_is_raised_once_and_the_worker_kept(log, function, kind, message):
    await request_worker.off_loop(doubles, 1)  # the worker runs
    worker = request_worker._pool
    with pytest.raises(kind, match=message):
        await request_worker.off_loop(function, str(log))
    assert log.read_text() == "worker\n"  # not again in a thread
    assert request_worker._pool is worker
    assert await request_worker.off_loop(doubles, 2) == 4


async def test_a_worker_that_dies_is_replaced_by_a_thread_then_a_new_worker(log):
    await request_worker.off_loop(doubles, 1)
    dead = request_worker._pool
    assert await request_worker.off_loop(dies_in_the_worker, str(log)) == "done in a thread"
    assert log.read_text() == "worker\nthread\n"
    assert await request_worker.off_loop(doubles, 3) == 6
    assert request_worker._pool is not None and request_worker._pool is not dead
