"""notebook-agent/kernels/<id>/no-wait-restart: the next restart of a kernel stuck in code that
ignores SIGINT kills it at once (jupyterlab_notebook_agent/kernel_restart.py), then the server's
setting is back. Real server, real ipykernel, the REST API's own restart (as JupyterLab sends it)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from tornado.httpclient import HTTPClientError

#: A graceful restart waits this long for a kernel that cannot answer (the tests' own setting,
#: far above what a brief restart may take).
SHUTDOWN_WAIT = 30


@pytest.fixture
def jp_server_config(jp_server_config):
    config = dict(jp_server_config)
    config["KernelManager"] = {"shutdown_wait_time": SHUTDOWN_WAIT}
    return config


async def stuck_kernel(jp_serverapp, jp_fetch) -> tuple[str, int]:
    """A kernel busy in code that ignores SIGINT; its id and process id."""
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    kernel_id = json.loads(response.body)["id"]
    manager = jp_serverapp.kernel_manager.get_kernel(kernel_id)
    client = manager.client()
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    client.execute(
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('stuck', flush=True)\n"
        "while True:\n    time.sleep(0.05)"
    )
    while True:  # until the loop runs (its print is on iopub)
        message = await client.get_iopub_msg(timeout=30)
        if message["msg_type"] == "stream" and "stuck" in message["content"]["text"]:
            break
    client.stop_channels()
    return kernel_id, manager.provisioner.process.pid


async def restart(jp_fetch, kernel_id: str) -> float:
    """The REST API's restart, as JupyterLab's kernel connection sends it; how long it took."""
    started = time.monotonic()
    await jp_fetch("api", "kernels", kernel_id, "restart", method="POST", body=b"", request_timeout=120)
    return time.monotonic() - started


async def test_the_next_restart_of_a_stuck_kernel_does_not_wait_for_it(jp_serverapp, jp_fetch):
    kernel_id, old_pid = await stuck_kernel(jp_serverapp, jp_fetch)
    manager = jp_serverapp.kernel_manager.get_kernel(kernel_id)
    response = await jp_fetch("notebook-agent", "kernels", kernel_id, "no-wait-restart", method="POST", body=b"")
    assert json.loads(response.body) == {"no_wait": True}
    took = await restart(jp_fetch, kernel_id)
    assert manager.provisioner.process.pid != old_pid
    # A graceful restart would have waited half of SHUTDOWN_WAIT before its SIGTERM.
    assert took < SHUTDOWN_WAIT / 4, took
    # Only that restart: the next one is the manager's own, graceful one again.
    assert "restart_kernel" not in vars(manager)
    assert manager.shutdown_wait_time == SHUTDOWN_WAIT  # the server's setting was never changed
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)  # the new kernel answers
    finally:
        client.stop_channels()


async def test_without_it_the_restart_waits_for_the_stuck_kernel(jp_serverapp, jp_fetch, jp_server_config):
    """Why the route exists (with a 4 s wait here, so that the test stays short)."""
    kernel_id, _ = await stuck_kernel(jp_serverapp, jp_fetch)
    jp_serverapp.kernel_manager.get_kernel(kernel_id).shutdown_wait_time = 4
    assert await restart(jp_fetch, kernel_id) >= 2  # SIGTERM only after half the wait


async def test_a_kernel_the_server_does_not_have_is_a_404(jp_fetch):
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch(
            "notebook-agent",
            "kernels",
            "00000000-0000-0000-0000-000000000000",
            "no-wait-restart",
            method="POST",
            body=b"",
        )
    assert error.value.code == 404
    assert b"no kernel" in error.value.response.body


async def test_needs_an_authenticated_user(jp_fetch):
    kernel_id = json.loads((await jp_fetch("api", "kernels", method="POST", body="{}")).body)["id"]
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch(
            "notebook-agent",
            "kernels",
            kernel_id,
            "no-wait-restart",
            method="POST",
            body=b"",
            headers={"Authorization": ""},
        )
    assert error.value.code in (401, 403)


async def test_unused_it_lapses(jp_serverapp, jp_fetch, monkeypatch):
    """No restart came (the kernel finished after all): the next restart is graceful again."""
    from jupyterlab_notebook_agent import kernel_restart

    monkeypatch.setattr(kernel_restart, "RESTORE_AFTER", 0.2)
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    kernel_id = json.loads(response.body)["id"]
    manager = jp_serverapp.kernel_manager.get_kernel(kernel_id)
    await jp_fetch("notebook-agent", "kernels", kernel_id, "no-wait-restart", method="POST", body=b"")
    assert "restart_kernel" in vars(manager)
    await asyncio.sleep(0.5)
    assert "restart_kernel" not in vars(manager)
