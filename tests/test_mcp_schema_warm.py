"""The schema checker's worker starts ahead of the first check (mcp_schema.SchemaChecker.warm).

A worker's start is Python's and jsonschema's imports: 2-4 s on a busy 2-core machine, which an outside
re-check of #35 measured as the first call to an MCP server taking 4.07 s. The worker now starts when the
server's tools are listed and right after one was killed, so the call that comes next finds it running. These
tests run the real worker process; they count starts and compare processes, never times.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

from jupyterlab_notebook_agent import mcp_handlers, mcp_schema
from jupyterlab_notebook_agent.mcp_schema import SchemaChecker

SCHEMA = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]+$"}}}
#: Backtracks catastrophically on the string below (as in test_mcp_hostile_schemas.py).
REDOS_SCHEMA = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
REDOS = "a" * 40 + "!"


@pytest.fixture
def starts(monkeypatch) -> list[subprocess.Popen]:
    """Every worker process started, in order."""
    started: list[subprocess.Popen] = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        process = real(*args, **kwargs)
        started.append(process)
        return process

    monkeypatch.setattr(mcp_schema.subprocess, "Popen", popen)
    return started


async def running(checker: SchemaChecker) -> subprocess.Popen:
    """The worker, once its start has ended (mcp_schema.START_TIMEOUT_S at most)."""
    return await checker._started()


async def test_warm_starts_the_worker_and_the_first_check_uses_it(starts):
    checker = SchemaChecker(logging.getLogger("test"))
    try:
        checker.warm()
        process = await running(checker)
        assert len(starts) == 1 and starts[0] is process
        assert await checker.problem(SCHEMA, {"s": "fine"}) is None
        assert "does not match" in (await checker.problem(SCHEMA, {"s": "Not A Word"}) or "")
        assert len(starts) == 1, "the checks started a worker of their own"
        checker.warm()  # running: nothing more starts
        assert len(starts) == 1
    finally:
        await checker.stop()


async def test_a_check_during_the_warm_up_waits_for_that_start(starts):
    checker = SchemaChecker(logging.getLogger("test"))
    try:
        checker.warm()
        checker.warm()
        answers = await asyncio.gather(*(checker.problem(SCHEMA, {"s": "fine"}) for _ in range(3)))
        assert answers == [None, None, None]
        assert len(starts) == 1
    finally:
        await checker.stop()


async def test_a_slow_start_does_not_count_against_the_wait_for_earlier_checks(starts, monkeypatch):
    """The turn's wait bounds earlier calls' checks, not the worker's start: calls that come together while a
    start takes longer than that wait are all checked (CI once saw the second of three refused on a loaded
    machine, where the start took over the 5 s wait)."""
    real_start = SchemaChecker._start

    async def slow_start(self):
        await asyncio.sleep(1.0)  # longer than the wait below
        return await real_start(self)

    monkeypatch.setattr(SchemaChecker, "_start", slow_start)
    checker = SchemaChecker(logging.getLogger("test"), wait=0.3)
    try:
        answers = await asyncio.gather(
            checker.problem(SCHEMA, {"s": "fine"}),
            checker.problem(SCHEMA, {"s": "Not A Word"}),
            checker.problem(SCHEMA, {"s": "fine"}),
        )
        assert answers[0] is None and answers[2] is None
        assert "does not match" in (answers[1] or "")
        assert len(starts) == 1
    finally:
        await checker.stop()


async def test_after_a_check_is_cut_off_a_new_worker_starts_at_once(starts):
    checker = SchemaChecker(logging.getLogger("test"), timeout=1.0)
    try:
        problem = await checker.problem(REDOS_SCHEMA, {"s": REDOS})
        assert problem and "took longer than 1 s" in problem
        # No call has come since, and the next worker is already on its way.
        assert checker._starting is not None
        await asyncio.sleep(0)  # the start's first step: the process is spawned
        assert len(starts) == 2
        killed, replacement = starts
        assert killed.wait(5) is not None
        assert await running(checker) is replacement
        assert await checker.problem(SCHEMA, {"s": "fine"}) is None
        assert len(starts) == 2
    finally:
        await checker.stop()


async def test_stop_during_a_warm_up_leaves_no_process(starts):
    checker = SchemaChecker(logging.getLogger("test"))
    checker.warm()
    await asyncio.sleep(0)  # the start's first step: the process is spawned
    assert len(starts) == 1
    await checker.stop()
    assert starts[0].wait(5) is not None
    assert checker._running() is None and checker._starting is None


async def test_a_warm_up_that_fails_is_quiet_and_the_check_says_so(starts, monkeypatch, caplog):
    errors: list[dict] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    python = sys.executable
    monkeypatch.setattr(mcp_schema.sys, "executable", "/nonexistent/python")
    checker = SchemaChecker(logging.getLogger("test"))
    try:
        checker.warm()
        while checker._starting is not None:
            await asyncio.sleep(0.01)
        with caplog.at_level(logging.WARNING, logger="test"):
            assert await checker.problem(SCHEMA, {"s": "Not A Word"}) is None  # unchecked, as before
        assert "not checked against the tool's schema" in caplog.text
        monkeypatch.setattr(mcp_schema.sys, "executable", python)
        assert "does not match" in (await checker.problem(SCHEMA, {"s": "Not A Word"}) or "")
    finally:
        await checker.stop()
        loop.set_exception_handler(None)
    # The failed warm-up's error was read where it ended: nothing was reported as never retrieved.
    assert errors == []


async def test_listing_a_servers_tools_warms_its_checker(monkeypatch):
    warmed: list[str] = []

    class Checker:
        def __init__(self, name: str) -> None:
            self.name = name

        def warm(self) -> None:
            warmed.append(self.name)

    manager = mcp_handlers.McpManager(config=None, log=logging.getLogger("test"))
    monkeypatch.setattr(manager, "checker", Checker)

    class Connection:
        status = "connected"
        error = notice = None
        restarts = 0
        tools = ()

        def __init__(self, name: str) -> None:
            self.spec = type("Spec", (), {"name": name, "transport": "stdio", "source": "config", "timeout": 30})()

    def describe(spec, tools):
        return ([{"tool": "t", "input_schema": SCHEMA}] if spec.name == "with_tools" else []), []

    monkeypatch.setattr(mcp_handlers, "describe_tools", describe)
    await manager._listed(Connection("with_tools"), start=False)
    await manager._listed(Connection("without_tools"), start=False)
    assert warmed == ["with_tools"]


async def test_a_check_waiting_for_a_start_that_stop_cancels_is_answered(starts, caplog):
    """The check is not cancelled with the start: it is answered (unchecked, with a warning), as when no worker
    could start."""
    checker = SchemaChecker(logging.getLogger("test"))
    checker.warm()
    with caplog.at_level(logging.WARNING, logger="test"):
        call = asyncio.ensure_future(checker.problem(SCHEMA, {"s": "fine"}))
        await asyncio.sleep(0)
        await checker.stop()
        assert await asyncio.wait_for(call, 10) is None
    assert "stopped while it started" in caplog.text
    assert len(starts) == 1 and starts[0].wait(5) is not None
