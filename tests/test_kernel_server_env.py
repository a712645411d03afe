"""A kernel can read the server's environment; what it prints of it reaches neither browser nor model.

The issue's finding, as it was: ``open(f'/proc/{os.getppid()}/environ')`` in a kernel returned the
server's ``OPENAI_API_KEY``, and with "run everything" a prompt-injected ``run_code`` sent it to the
model in the next request. Removing the key from the server's own environment is not possible
(``/proc/<pid>/environ`` shows the block the process was started with, whatever it changes later),
so this test states what holds, on a real ``jupyter server`` process started with the key in its
environment: the kernel's own environment has no key; the kernel CAN still read the server's
(the residual risk docs/security.md states); what it prints of it reaches the websocket client as
``[redacted]``; and a request carrying the key to the model endpoint arrives there ``[redacted]``.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import pytest
from leak_check import leaked
from scripted_model_server import serve
from server_process import request, server_process
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

KEY = "sk-server-env-key-0123456789-abcdef"
CHAT = "notebook-agent/v1/chat/completions"

pytestmark = pytest.mark.fault_category("kernel redaction")


def _pieces(secret: str) -> str:
    """Python that builds ``secret`` at run time, so the cell's code holds no secret."""
    return " + ".join(repr(secret[i : i + 5]) for i in range(0, len(secret), 5))


CELL = f"""import os
raw = open(f'/proc/{{os.getppid()}}/environ', 'rb').read().decode(errors='replace')
server_env = dict(item.split('=', 1) for item in raw.split('\\0') if '=' in item)
print(os.getppid())
print('OPENAI_API_KEY' in os.environ)
print(server_env.get('OPENAI_API_KEY'))
print(server_env.get('OPENAI_API_KEY') == {_pieces(KEY)})
"""


async def _execute(server, kernel_id: str, code: str) -> tuple[str, str]:
    """Run ``code`` over the kernel websocket (JSON protocol): every frame's text, and the printed text."""
    url = f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
    ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {server.token}"}))
    try:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": "s", "username": "u", "version": "5.3"}
        content = {"code": code, "silent": False, "store_history": False}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
        ws.write_message(json.dumps(message))
        frames, printed = [], ""
        replied = idle = False
        while not (replied and idle):
            raw = await asyncio.wait_for(ws.read_message(), 60)
            assert raw is not None, "the kernel websocket closed"
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            frames.append(raw)
            kind = msg["header"]["msg_type"]
            if kind == "stream":
                printed += msg["content"]["text"]
            replied = replied or kind == "execute_reply"
            idle = idle or (kind == "status" and msg["content"]["execution_state"] == "idle")
        return "\n".join(frames), printed
    finally:
        ws.close()


async def test_a_kernel_reads_the_server_environment_and_nothing_of_it_leaves(tmp_path, findings):
    model, script = serve(0)
    script.load([{"content": "ok"}])
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": f"http://127.0.0.1:{model.server_port}/v1"}
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")
    extension = ["--ServerApp.jpserver_extensions=jupyterlab_notebook_agent=True"]
    extension += ["--NotebookAgent.discover_local_servers=False"]
    try:
        with server_process(tmp_path, env, extension) as server:
            status, body = request(server.base + "api/kernels", server.token, "POST", b'{"name": "python3"}')
            assert status == 201, body
            kernel_id = json.loads(body)["id"]
            frames, printed = await _execute(server, kernel_id, CELL)
            with findings.case("the kernel reads the server's environment (the residual risk)"):
                parent, in_own_env, shown, read_it = printed.splitlines()
                assert int(parent) == server.process.pid  # the kernel's parent is the server
                assert in_own_env == "False"  # the kernel's own environment has no key
                assert read_it == "True"  # but the server's, in /proc, has it: docs/security.md says so
            with findings.case("what the kernel printed of it reaches the client redacted"):
                found = leaked(frames, [KEY])
                findings.leak_if(bool(found), f"kernel websocket: {found}")
                assert not found and shown == "[redacted]"
            with findings.case("the key sent back in a request reaches the model redacted"):
                observation = {"role": "tool", "tool_call_id": "c1", "content": f"OPENAI_API_KEY={KEY}"}
                messages = [{"role": "user", "content": "run it"}, observation]
                payload = json.dumps({"model": "m", "messages": messages, "stream": False}).encode()
                status, _ = request(server.base + CHAT, server.token, "POST", payload)
                assert status == 200
                [received] = script.requests
                sent = json.dumps(received["body"])
                found = leaked(sent, [KEY])
                findings.leak_if(bool(found), f"request body to the model: {found}")
                assert not found and "OPENAI_API_KEY=[redacted]" in sent
                assert received["headers"]["authorization"] == f"Bearer {KEY}"  # the key goes where it belongs
    finally:
        model.shutdown()
