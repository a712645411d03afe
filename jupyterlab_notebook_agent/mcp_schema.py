"""Checking a tool call's arguments against the MCP server's own input schema, without trusting it.

The schema comes from the MCP server (a remote HTTP one too) and the arguments from the
model, which that server can steer; so the check must not be able to reach anything or
stall the Jupyter server:

* references outside the schema are refused where the tools are listed
  (:func:`outside_reference`: such a tool is not offered), and the check itself resolves
  only references inside the schema: any retrieval (``http:``, ``file:``, a FIFO...) fails
  and is answered as a reference error, never fetched;
* the check runs in a worker process of its own, one request at a time, bounded by
  :data:`CHECK_TIMEOUT_S`: a pattern that backtracks catastrophically (``^(a+)+$``), a
  schema whose ``anyOf`` branches multiply, ``uniqueItems`` over a long array, a memory
  bomb... costs at most that long in another process, which is then killed (and started
  again for the next call); the event loop never runs the check;
* each MCP server has a worker of its own (the routes keep one :class:`SchemaChecker` per
  server), so a server whose schema is slow to check delays only the calls to that server;
  and a call waits at most :data:`WAIT_TIMEOUT_S` for the checks queued before it, then is
  refused saying so (six catastrophic calls queued would otherwise hold the seventh ~15 s);
* the worker starts in the background as soon as the server's tools are listed
  (:meth:`SchemaChecker.warm`), and again right after one was killed: its start (Python and
  jsonschema's imports, 2-4 s on a busy 2-core machine) is then not paid by the next call;
* recursion (a recursive schema with deeply nested arguments) and reference errors are
  answered as problems with a clear message, never as an unhandled error.

A schema jsonschema cannot use at all (not a schema, an unknown keyword value type) checks
nothing, as before: the MCP server validates its own arguments; this check only spares the
model a round trip with a clear message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Seconds one check may take; then the worker is killed and the call refused.
CHECK_TIMEOUT_S = 2.0
#: Seconds a call may wait for the checks of earlier calls to the same server; then it is refused.
WAIT_TIMEOUT_S = 5.0
#: Seconds the worker may take to start (Python and jsonschema's imports, on a busy machine).
START_TIMEOUT_S = 30.0
#: Address space of the worker (where the OS enforces it): a schema cannot exhaust the machine's memory.
WORKER_MEMORY = 1 << 30
#: The keywords that refer to another schema (all drafts).
REFERENCE_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")

#: The worker's start: this file loaded by path (not the package, whose import is Jupyter's),
#: with neither the working directory nor '' on sys.path (no module planted there is imported).
_BOOT = (
    "import sys, importlib.util as u; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
    "s = u.spec_from_file_location('notebook_agent_mcp_schema_worker', sys.argv[1]); "
    "m = u.module_from_spec(s); s.loader.exec_module(m); m.serve()"
)


def outside_reference(schema: Any) -> str | None:
    """The first reference of ``schema`` to anything outside itself (not ``#...``), or None.

    Walks the whole document (iteratively: a deep schema cannot exhaust the stack); a
    ``$ref`` inside ``const`` or ``examples`` counts too, which errs on the safe side.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in REFERENCE_KEYWORDS and isinstance(value, str) and not value.startswith("#"):
                    return value
                if isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(item for item in node if isinstance(item, (dict, list)))
    return None


# -- the worker (runs in its own process) ------------------------------------------------------


def check(schema: Any, arguments: Any) -> dict[str, Any]:
    """``{"problem": None}`` when ``arguments`` match ``schema`` (or the schema is unusable), else why not."""
    import jsonschema
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    def refuse(uri: str) -> Any:
        raise LookupError(f"{uri} is outside the schema")

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = validator_class(schema, registry=Registry(retrieve=refuse))
        error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    except Unresolvable as unresolvable:
        ref = str(getattr(unresolvable, "ref", "") or "")[:200]
        return {
            "problem": f"the tool's input schema has a reference that cannot be resolved here ({ref!r}): "
            "only references inside the schema ('#/...') are followed, and nothing is fetched"
        }
    except RecursionError:
        return {"problem": "the arguments are nested too deeply to check against the tool's input schema"}
    except MemoryError:
        return {"problem": "checking the arguments against the tool's input schema needed too much memory"}
    except Exception:  # noqa: BLE001 - a schema jsonschema cannot use checks nothing (the MCP server checks)
        return {"problem": None}
    if error is None:
        return {"problem": None}
    where = "/".join(str(p) for p in error.absolute_path) or "arguments"
    return {"problem": f"{where}: {error.message}"[:500]}


def serve() -> None:
    """The worker: one JSON request a line on stdin, one JSON answer a line on stdout."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    except (ImportError, ValueError, OSError):  # pragma: no cover - Windows, or a lower hard limit
        pass
    import jsonschema  # noqa: F401 - imported before "ready", so the first check is not slowed by it
    import referencing  # noqa: F401

    out = sys.stdout
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            answer = check(request["schema"], request["arguments"])
        except RecursionError:
            answer = {"problem": "the arguments are nested too deeply to check against the tool's input schema"}
        except MemoryError:
            answer = {"problem": "checking the arguments against the tool's input schema needed too much memory"}
        except Exception:  # noqa: BLE001 - never end the worker over one request
            answer = {"problem": None}
        out.write(json.dumps(answer) + "\n")
        out.flush()


# -- the Jupyter server's side ----------------------------------------------------------------


class CheckerUnavailableError(Exception):
    """The worker process could not be started."""


class SchemaChecker:
    """The worker process of one MCP server's checks: started ahead of the first check (:meth:`warm`) or by it,
    and again after it was killed."""

    def __init__(self, log: logging.Logger, timeout: float = CHECK_TIMEOUT_S, wait: float = WAIT_TIMEOUT_S) -> None:
        self.log = log
        self.timeout = timeout
        self.wait = wait
        self._process: subprocess.Popen[str] | None = None
        #: The worker's start under way (one at a time, whoever asked first: :meth:`warm` or a check).
        self._starting: asyncio.Future[subprocess.Popen[str]] | None = None
        self._lock = asyncio.Lock()
        self._reaping: set[asyncio.Future[None]] = set()

    def warm(self) -> None:
        """Start the worker in the background unless it runs or is starting, so that the next check finds it
        ready. Called where the server's tools are listed, and after a worker was killed. A start that fails
        here is said by the check that needs it (it starts one again)."""
        if self._running() is None and self._starting is None:
            self._begin()

    async def problem(self, schema: Any, arguments: Any) -> str | None:
        """Why ``arguments`` do not fit ``schema`` (or could not be checked), or None."""
        try:
            line = json.dumps({"schema": schema, "arguments": arguments}, allow_nan=False)
        except RecursionError:
            return "the arguments are nested too deeply to check against the tool's input schema"
        except (TypeError, ValueError):
            return "the arguments are not JSON"
        # The worker's start (seconds on a busy machine) is waited for before the turn: the turn's wait bounds
        # earlier calls' checks only, so calls that come together while it starts are all answered.
        try:
            await self._started()
        except CheckerUnavailableError as error:
            return self._unchecked(error)
        if not await self._turn():
            return (
                f"the tool's input schema checks of earlier calls to this MCP server took longer than {self.wait:g} s "
                "(a pattern or schema too costly to evaluate); the tool was not called. Try again."
            )
        try:
            try:
                process = await self._started()  # again: an earlier call's check may have killed it
            except CheckerUnavailableError as error:
                return self._unchecked(error)
            try:
                answer = await asyncio.wait_for(asyncio.to_thread(_exchange, process, line), self.timeout)
            except asyncio.TimeoutError:
                self._kill()
                self.warm()  # the next call (the model's retry, often) finds a worker ready
                return (
                    f"checking the arguments against the tool's input schema took longer than {self.timeout:g} s "
                    "(a pattern or schema too costly to evaluate); the tool was not called"
                )
            except BaseException:  # cancelled (the browser went away), or the pipe broke: never reuse it
                self._kill()
                raise
            if answer is None:
                self._kill()
                self.warm()
                return "the arguments could not be checked against the tool's input schema (the checker stopped)"
        finally:
            self._lock.release()
        problem = answer.get("problem")
        return problem if isinstance(problem, str) else None

    def _unchecked(self, error: CheckerUnavailableError) -> None:
        """No worker could start: the call goes on unchecked (as before the checker existed), said in the log."""
        self.log.warning("Notebook Agent: MCP arguments not checked against the tool's schema: %s", error)

    async def _turn(self) -> bool:
        """Wait for the worker, at most :attr:`wait` seconds; whether this call now holds it."""
        acquire = asyncio.ensure_future(self._lock.acquire())
        try:
            done, _ = await asyncio.wait({acquire}, timeout=self.wait)
        except BaseException:  # cancelled while waiting (the browser went away)
            if not acquire.cancel():
                self._lock.release()  # acquired just now: give it back
            raise
        if acquire in done:
            return True
        if not acquire.cancel():  # acquired between the timeout and here
            self._lock.release()
        return False

    def _running(self) -> subprocess.Popen[str] | None:
        process = self._process
        return process if process is not None and process.poll() is None else None

    def _begin(self) -> asyncio.Future[subprocess.Popen[str]]:
        """Start a worker (:meth:`_start`) as a task of its own: a check that stops waiting for it (the browser
        went away) does not stop the start others wait for."""
        starting = asyncio.ensure_future(self._start())
        self._starting = starting

        def done(task: asyncio.Future[subprocess.Popen[str]]) -> None:
            if self._starting is task:
                self._starting = None
            if not task.cancelled():
                task.exception()  # read here, so that a warm-up no check waited for fails quietly

        starting.add_done_callback(done)
        return starting

    async def _started(self) -> subprocess.Popen[str]:
        """The running worker, after its start (this call's, or one under way)."""
        running = self._running()
        if running is not None:
            return running
        starting = self._starting or self._begin()
        await asyncio.wait({starting})  # this call's cancellation leaves the start to whoever else waits for it
        if starting.cancelled():
            raise CheckerUnavailableError("the checker was stopped while it started")
        return starting.result()

    async def _start(self) -> subprocess.Popen[str]:
        self._kill()  # a worker that ended by itself: reaped
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(Path(__file__).resolve())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=str(Path(__file__).resolve().parent),
                text=True,
                encoding="utf-8",
            )
        except OSError as error:
            raise CheckerUnavailableError(str(error)) from None
        try:
            ready = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_TIMEOUT_S)  # type: ignore[union-attr]
        except asyncio.TimeoutError:
            ready = ""
        except BaseException:  # cancelled: the checker is stopping
            self._kill(process)
            raise
        if ready.strip() != "ready":
            self._kill(process)
            raise CheckerUnavailableError("the checker process did not start")
        # Only now is it the worker: a check that came during the start waited for it (:meth:`_started`), and
        # never reads its pipe while the start still reads "ready" there.
        self._process = process
        return process

    def _kill(self, process: subprocess.Popen[str] | None = None) -> None:
        """Kill the worker (a check ran too long, or was abandoned), or ``process``, one whose start failed or was
        cancelled; reaped in a thread."""
        if process is None or process is self._process:
            process, self._process = self._process, None
        if process is None:
            return
        try:
            process.kill()
        except OSError:
            pass
        reaping = asyncio.get_running_loop().run_in_executor(None, _reap, process)
        self._reaping.add(reaping)
        reaping.add_done_callback(self._reaping.discard)

    async def stop(self) -> None:
        starting = self._starting
        if starting is not None:  # a warm-up under way: its process is killed as it is cancelled
            starting.cancel()
            await asyncio.wait({starting}, timeout=5)
        async with self._lock:
            self._kill()
        if self._reaping:
            await asyncio.wait(set(self._reaping), timeout=5)


def _exchange(process: subprocess.Popen[str], line: str) -> dict[str, Any] | None:
    """One request and its answer (None when the worker ended or answered garbage)."""
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
    except (OSError, ValueError):
        return None
    try:
        parsed = json.loads(answer)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _reap(process: subprocess.Popen[str]) -> None:
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:  # pragma: no cover - a killed process that does not end
        return
    for pipe in (process.stdin, process.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except (OSError, ValueError):
            pass
