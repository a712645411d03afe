"""TCP_NODELAY on the kernel websocket, against a real Jupyter server and a real python3 kernel.

The cases: nothing configured (then ``use_nodelay_kernel_websockets`` switches in our class), our class configured
explicitly (the ``--ServerApp.kernel_websocket_connection_class`` route), and two controls that must be left alone:
jupyter_server's stock class chosen explicitly, and some other custom class. The controls also show that the probe
can see Nagle's algorithm switched on, so the "on" cases mean something.
No timings here: the speed-up is measured by bench/kernel-roundtrip.ts.
"""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import uuid
from contextlib import asynccontextmanager

import pytest
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.websocket import WebSocketHandler

from jupyterlab_notebook_agent.kernel_websocket import NoDelayKernelWebsocketConnection, use_nodelay_kernel_websockets

OURS = "jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection"
STOCK = "jupyter_server.services.kernels.connection.channels.ZMQChannelsWebsocketConnection"
CUSTOM = "test_kernel_websocket.CustomConnection"
# The configured class per case; None: not configured at all.
CASES = {"unconfigured": None, "ours": OURS, "stock": STOCK, "custom": CUSTOM}
NODELAY_EXPECTED = {"unconfigured": True, "ours": True, "stock": False, "custom": False}
# A guard against hanging on a broken kernel, not a performance assertion.
REPLY_TIMEOUT = 60


class CustomConnection(ZMQChannelsWebsocketConnection):
    """Stands for a connection class that a user or another extension configured."""


@pytest.fixture
def case(request) -> str:
    return getattr(request, "param", "unconfigured")


@pytest.fixture
def jp_server_config(jp_server_config, case):
    """conftest's config (the extension enabled), plus the kernel websocket connection class for this case."""
    if CASES[case] is None:
        return jp_server_config
    server_app = {**jp_server_config.get("ServerApp", {}), "kernel_websocket_connection_class": CASES[case]}
    return {**jp_server_config, "ServerApp": server_app}


def connection_class(server_app) -> type:
    return server_app.web_app.settings["kernel_websocket_connection_class"]


@asynccontextmanager
async def kernel_websocket(jp_fetch, jp_ws_fetch):
    """A python3 kernel started through the REST API and a websocket to it (legacy JSON protocol)."""
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    kernel_id = json.loads(response.body.decode())["id"]
    try:
        ws = await jp_ws_fetch("api", "kernels", kernel_id, "channels", params={"session_id": uuid.uuid4().hex})
        try:
            yield kernel_id, ws
        finally:
            ws.close()
    finally:
        await jp_fetch("api", "kernels", kernel_id, method="DELETE")


async def request(ws, session: Session, msg_type: str, content: dict | None = None) -> list[dict]:
    """Send a shell request; return every message for it up to and including its reply and the idle status."""
    msg = session.msg(msg_type, content or {})
    msg["channel"] = "shell"
    ws.write_message(json.dumps(msg, default=json_default))
    msg_id = msg["header"]["msg_id"]
    reply_type = msg_type.replace("_request", "_reply")
    received: list[dict] = []
    got_reply = got_idle = False
    while not (got_reply and got_idle):
        raw = await asyncio.wait_for(ws.read_message(), REPLY_TIMEOUT)
        assert raw is not None, "the kernel websocket closed"
        reply = json.loads(raw)
        if reply.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        received.append(reply)
        got_reply = got_reply or reply["msg_type"] == reply_type
        got_idle = got_idle or (reply["msg_type"] == "status" and reply["content"]["execution_state"] == "idle")
    return received


def server_socket_for(ws, kernel_id: str) -> socket.socket:
    """The server's end of this client websocket, found through the kernel websocket connections."""
    client_address = ws.protocol.stream.socket.getsockname()
    open_connections = getattr(ZMQChannelsWebsocketConnection, "_open_sockets", None)
    if open_connections is not None:
        handlers = [conn.websocket_handler for conn in list(open_connections) if conn.kernel_id == kernel_id]
    else:  # pragma: no cover - a jupyter_server without the registry
        handlers = [obj for obj in gc.get_objects() if isinstance(obj, WebSocketHandler)]
    for handler in handlers:
        connection = handler.ws_connection
        if connection is None:
            continue
        sock = connection.stream.socket
        if sock is not None and sock.getpeername() == client_address:
            return sock
    raise AssertionError(f"no server-side websocket for {client_address} on kernel {kernel_id}")


@pytest.mark.parametrize("case", list(CASES), indirect=True)
async def test_use_nodelay_only_replaces_the_unconfigured_stock_class(jp_serverapp, case):
    expected = {
        "unconfigured": NoDelayKernelWebsocketConnection,
        "ours": NoDelayKernelWebsocketConnection,
        "stock": ZMQChannelsWebsocketConnection,
        "custom": CustomConnection,
    }[case]
    replaced = use_nodelay_kernel_websockets(jp_serverapp)
    assert connection_class(jp_serverapp) is expected
    assert jp_serverapp.kernel_websocket_connection_class is expected
    if case != "unconfigured":
        assert not replaced
    # Idempotent.
    assert not use_nodelay_kernel_websockets(jp_serverapp)
    assert connection_class(jp_serverapp) is expected


async def test_the_extension_enables_it_by_default(jp_serverapp):
    assert connection_class(jp_serverapp) is NoDelayKernelWebsocketConnection


@pytest.mark.parametrize("case", list(CASES), indirect=True)
async def test_tcp_nodelay_and_round_trips(jp_fetch, jp_ws_fetch, jp_serverapp, case):
    use_nodelay_kernel_websockets(jp_serverapp)
    async with kernel_websocket(jp_fetch, jp_ws_fetch) as (kernel_id, ws):
        session = Session()

        # A kernel_info round trip: by the time its reply arrives the handler's open() (and our hook) has run.
        info = await request(ws, session, "kernel_info_request")
        [info_reply] = [m for m in info if m["msg_type"] == "kernel_info_reply"]
        assert info_reply["content"]["status"] == "ok"
        assert info_reply["content"]["language_info"]["name"] == "python"

        sock = server_socket_for(ws, kernel_id)
        nodelay = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        if NODELAY_EXPECTED[case]:
            assert nodelay != 0
        elif nodelay:
            pytest.skip("this jupyter_server/tornado already sets TCP_NODELAY on kernel websockets")
        else:
            assert nodelay == 0

        # An execute round trip still works, outputs included.
        executed = await request(ws, session, "execute_request", {"code": "1+1", "silent": False})
        [result] = [m for m in executed if m["msg_type"] == "execute_result"]
        assert result["content"]["data"]["text/plain"] == "2"
        [reply] = [m for m in executed if m["msg_type"] == "execute_reply"]
        assert reply["content"]["status"] == "ok"
