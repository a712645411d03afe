"""The relay of outside agents' calls to the JupyterLab page that has the notebook open.

A websocket client stands in for the page's side of the channel (the page itself, running the
agent's tools on a live notebook, is tested in Chromium: ui-tests/tests/outside-agent.spec.ts);
the outside agent is the official MCP SDK client over HTTP, on a real Jupyter server.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import SECRET_KEY
from test_outside_mcp import sdk_client
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

pytestmark = pytest.mark.fault_category("outside MCP route")


@pytest.fixture
def jp_server_config(outside_server_config):
    """The server holds a key (``OPENAI_API_KEY``), which no answer may carry."""
    return outside_server_config


@pytest.fixture
def url(jp_fetch, jp_http_port, jp_base_url) -> str:
    return f"http://localhost:{jp_http_port}{jp_base_url}notebook-agent/mcp"


@pytest.fixture
def page_url(jp_fetch, jp_http_port, jp_base_url) -> str:
    return f"ws://localhost:{jp_http_port}{jp_base_url}notebook-agent/outside/channel"


async def connect_page(page_url, jp_auth_header, notebooks):
    page = await websocket_connect(HTTPRequest(page_url, headers=jp_auth_header))
    await page.write_message(json.dumps({"type": "open", "notebooks": notebooks}))
    await asyncio.sleep(0.05)
    return page


async def test_a_call_goes_to_the_page_with_the_notebook_and_its_answer_is_filtered(
    url, page_url, jp_auth_header, findings
):
    page = await connect_page(page_url, jp_auth_header, ["analysis.ipynb"])
    other = await connect_page(page_url, jp_auth_header, ["other.ipynb"])
    async with sdk_client(url, jp_auth_header, name="Claude Code") as client:
        listed = await client.call_tool("list_notebooks", {})
        assert json.loads(listed.content[0].text) == {"open_in_jupyterlab": ["analysis.ipynb", "other.ipynb"]}
        calling = asyncio.ensure_future(client.call_tool("run_cell", {"notebook": "analysis.ipynb", "cell_id": "c1"}))
        call = json.loads(await asyncio.wait_for(page.read_message(), 10))
        assert call["type"] == "call" and call["tool"] == "run_cell" and call["client"] == "Claude Code"
        assert call["arguments"] == {"notebook": "analysis.ipynb", "cell_id": "c1"}
        # The cell printed the server's key; the page's answer carries it (a page is not trusted either).
        answer = {"content": [{"type": "text", "text": f"[cell c1 ran]\nstdout: {SECRET_KEY}"}], "isError": False}
        await page.write_message(json.dumps({"type": "result", "id": call["id"], "result": answer}))
        result = await asyncio.wait_for(calling, 10)
        text = result.content[0].text
        findings.leak_if(SECRET_KEY in text, "a secret in a cell's output reached the outside agent")
        assert SECRET_KEY not in text and "[redacted]" in text and "[cell c1 ran]" in text
    # The session ended: both pages hear it (the run it had in one ends).
    for each in (page, other):
        ended = json.loads(await asyncio.wait_for(each.read_message(), 10))
        assert ended["type"] == "ended"
    page.close()
    other.close()


async def test_a_page_that_closes_answers_its_calls_and_a_notebook_not_open_is_said(url, page_url, jp_auth_header):
    page = await connect_page(page_url, jp_auth_header, ["analysis.ipynb"])
    async with sdk_client(url, jp_auth_header) as client:
        calling = asyncio.ensure_future(client.call_tool("read_notebook", {"notebook": "analysis.ipynb"}))
        json.loads(await asyncio.wait_for(page.read_message(), 10))
        page.close()
        result = await asyncio.wait_for(calling, 10)
        assert result.is_error and "closed before the call finished" in result.content[0].text
        await asyncio.sleep(0.1)
        again = await client.call_tool("read_notebook", {"notebook": "analysis.ipynb"})
        assert again.is_error and "not open in JupyterLab" in again.content[0].text


async def test_the_channel_needs_a_login(page_url):
    with pytest.raises(Exception) as refused:
        await websocket_connect(HTTPRequest(page_url))
    assert "403" in str(refused.value) or "401" in str(refused.value)


async def test_a_page_of_another_origin_cannot_hold_the_channel(page_url, jp_auth_header):
    with pytest.raises(Exception) as refused:
        await websocket_connect(HTTPRequest(page_url, headers={**jp_auth_header, "Origin": "https://evil.example"}))
    assert "403" in str(refused.value) or "404" in str(refused.value)
