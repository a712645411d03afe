"""``notebook-agent mcp``: the stdio bridge, driven by the official MCP SDK's stdio client.

The SDK starts the real command (``node bin/notebook-agent.cjs mcp``, built by ``npm run
build:cli``), which relays to a real Jupyter server's ``notebook-agent/mcp``: the same tools,
the same refusals, the same filter; a wrong token is said, never worked around.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import SECRET_KEY, require_built_command_line
from mcp import Client, StdioServerParameters
from mcp_types import Implementation
from test_outside_relay import connect_page

from jupyterlab_notebook_agent.outside_catalogue import outside_tools

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "bin" / "notebook-agent.cjs"
pytestmark = [
    pytest.mark.fault_category("outside MCP route"),
]


@pytest.fixture(autouse=True)
def built_command_line():
    require_built_command_line()


@pytest.fixture
def jp_server_config(outside_server_config):
    return outside_server_config


@pytest.fixture
def server(jp_fetch, jp_http_port, jp_base_url) -> str:
    return f"http://localhost:{jp_http_port}{jp_base_url}"


def bridge(server: str, token: str) -> Client:
    parameters = StdioServerParameters(
        command=shutil.which("node") or "node",
        args=[str(BIN), "mcp", "--server", server],
        env={"JUPYTER_TOKEN": token, "PATH": os.environ.get("PATH", "")},
    )
    return Client(parameters, client_info=Implementation(name="Stdio Agent", version="1"))


def token_of(jp_auth_header) -> str:
    return jp_auth_header["Authorization"].split(" ", 1)[1]


async def test_the_sdk_stdio_client_reaches_the_notebook_through_the_bridge(
    server, jp_auth_header, jp_http_port, jp_base_url, findings
):
    page_url = f"ws://localhost:{jp_http_port}{jp_base_url}notebook-agent/outside/channel"
    page = await connect_page(page_url, jp_auth_header, ["analysis.ipynb"])
    async with bridge(server, token_of(jp_auth_header)) as client:
        assert client.server_info is not None and client.server_info.name == "notebook-agent"
        assert [t.name for t in (await client.list_tools()).tools] == list(outside_tools())
        listed = await client.call_tool("list_notebooks", {})
        assert json.loads(listed.content[0].text) == {"open_in_jupyterlab": ["analysis.ipynb"]}
        calling = asyncio.ensure_future(client.call_tool("read_notebook", {"notebook": "analysis.ipynb"}))
        call = json.loads(await asyncio.wait_for(page.read_message(), 20))
        assert call["client"] == "Stdio Agent" and call["tool"] == "read_notebook"
        answer = {"content": [{"type": "text", "text": f"cell c1: {SECRET_KEY}"}], "isError": False}
        await page.write_message(json.dumps({"type": "result", "id": call["id"], "result": answer}))
        result = await asyncio.wait_for(calling, 20)
        findings.leak_if(SECRET_KEY in result.content[0].text, "the bridge passed on a secret")
        assert result.content[0].text == "cell c1: [redacted]"
        refused = await client.call_tool("read_file", {"notebook": "analysis.ipynb", "path": "../../etc/passwd"})
        assert refused.is_error and "outside the Jupyter server root" in refused.content[0].text
    # The client closed the bridge: the bridge ended the session, and the page heard it.
    ended = json.loads(await asyncio.wait_for(page.read_message(), 20))
    assert ended["type"] == "ended"
    page.close()


async def test_a_wrong_token_is_said_through_the_bridge(server):
    with pytest.raises(Exception) as refused:  # the SDK's error for a failed initialize
        async with bridge(server, "not-the-token-0123456789") as client:
            await client.list_tools()
    assert "Authenticate with the Jupyter server's token" in repr(refused.value)
