"""``notebook-agent/mcp``: the MCP endpoint outside agents reach the notebook through (#36).

On a real Jupyter server, with the official MCP SDK's client over streamable HTTP and with raw
requests for what a client would never send: no token, a token in the URL, a login cookie alone,
a web page of another origin, a read-only user, a path outside the root or hidden, a secret in
what the route answers.
"""

from __future__ import annotations

import json

import httpx2
import pytest
from conftest import SECRET_KEY
from jupyter_server.auth.authorizer import Authorizer
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from jupyterlab_notebook_agent.outside_catalogue import outside_tools

pytestmark = pytest.mark.fault_category("outside MCP route")

ASKED: list[tuple[str, str]] = []
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}},
}


class ReadOnlyAuthorizer(Authorizer):
    def is_authorized(self, handler, user, action, resource) -> bool:
        ASKED.append((action, resource))
        return action == "read"


@pytest.fixture
def authorizer(request):
    return getattr(request, "param", None)


@pytest.fixture
def jp_server_config(authorizer, configured):
    ASKED.clear()
    server = {"jpserver_extensions": {"jupyterlab_notebook_agent": True}}
    if authorizer is not None:
        server["authorizer_class"] = authorizer
    return {"ServerApp": server, "NotebookAgent": {"discover_local_servers": False, "outside_worker_command": []}}


@pytest.fixture
def url(jp_fetch, jp_http_port, jp_base_url) -> str:
    """The route on the running server (jp_fetch starts it)."""
    return f"http://localhost:{jp_http_port}{jp_base_url}notebook-agent/mcp"


def token_of(jp_auth_header) -> str:
    return jp_auth_header["Authorization"].split(" ", 1)[1]


async def post(url, message, headers=None, **kwargs):
    async with httpx2.AsyncClient() as http:
        return await http.post(
            url,
            content=json.dumps(message),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **(headers or {}),
            },
            **kwargs,
        )


def sdk_client(url: str, jp_auth_header, name: str = "pytest-sdk") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_of(jp_auth_header)}"}, timeout=30)
    from mcp_types import Implementation

    return Client(streamable_http_client(url, http_client=http), client_info=Implementation(name=name, version="1"))


async def test_the_sdk_client_connects_lists_the_tools_and_calls_one(url, jp_auth_header, jp_root_dir):
    (jp_root_dir / "analysis.ipynb").write_text(
        json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    async with sdk_client(url, jp_auth_header) as client:
        assert client.server_info is not None and client.server_info.name == "notebook-agent"
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        assert names == list(outside_tools())
        assert "run_cell" in names and "run_shell" not in names and "run_code" not in names
        run_cell = next(t for t in listed.tools if t.name == "run_cell")
        assert run_cell.input_schema["required"][0] == "notebook"
        opened = await client.call_tool("list_notebooks", {})
        assert opened.is_error is False
        assert json.loads(opened.content[0].text) == {"open_in_jupyterlab": []}
        # No page has it open (and no server-side port yet): said, as a tool error.
        result = await client.call_tool("read_notebook", {"notebook": "analysis.ipynb"})
        assert result.is_error is True
        assert "not open in JupyterLab" in result.content[0].text


async def test_without_a_token_the_route_is_401(url, findings):
    for name, headers, target in [
        ("no credentials", {}, url),
        ("a wrong token", {"Authorization": "Bearer not-the-token-0123456789"}, url),
    ]:
        with findings.case(name):
            response = await post(url=target, message=INIT, headers=headers)
            assert response.status_code == 401, (name, response.status_code, response.text)
            assert "WWW-Authenticate" in response.headers
            assert "mcp-session-id" not in response.headers


async def test_a_token_in_the_url_or_a_login_cookie_alone_is_401(url, jp_auth_header, findings):
    with findings.case("?token= in the URL"):
        response = await post(f"{url}?token={token_of(jp_auth_header)}", INIT)
        assert response.status_code == 401
        assert "Authorization header" in response.json()["error"]["message"]
    with findings.case("a login cookie alone"):
        # A token-authenticated request leaves Jupyter's login cookie; a web page riding it gets nothing.
        first = await post(url, INIT, headers=jp_auth_header)
        assert first.status_code == 200
        cookies = first.cookies
        assert cookies, "Jupyter set no login cookie"
        response = await post(url, INIT, cookies=cookies)
        assert response.status_code == 401, response.text


async def test_a_page_of_another_origin_and_a_foreign_host_are_refused(url, jp_auth_header, jp_http_port, findings):
    with findings.case("Origin of another site"):
        response = await post(url, INIT, headers={**jp_auth_header, "Origin": "https://evil.example"})
        assert response.status_code == 403, response.text
    with findings.case("Origin of another port"):
        response = await post(url, INIT, headers={**jp_auth_header, "Origin": f"http://localhost:{jp_http_port + 1}"})
        assert response.status_code == 403
    with findings.case("the server's own origin"):
        response = await post(url, INIT, headers={**jp_auth_header, "Origin": f"http://localhost:{jp_http_port}"})
        assert response.status_code == 200
    with findings.case("DNS rebinding: a Host that is not this machine"):
        response = await post(url, INIT, headers={**jp_auth_header, "Host": f"evil.example:{jp_http_port}"})
        assert response.status_code == 403


@pytest.mark.parametrize("authorizer", [ReadOnlyAuthorizer], indirect=True)
async def test_a_read_only_user_reads_but_edits_and_runs_nothing(url, jp_auth_header, findings):
    async with sdk_client(url, jp_auth_header) as client:
        await client.list_tools()
        ASKED.clear()
        reading = await client.call_tool("read_notebook", {"notebook": "analysis.ipynb"})
        assert "not open in JupyterLab" in reading.content[0].text  # authorized: it went on to be routed
        assert ("read", "notebook-agent-outside") in ASKED
    init = await post(url, INIT, headers=jp_auth_header)
    session = {**jp_auth_header, "Mcp-Session-Id": init.headers["mcp-session-id"]}
    for name, arguments, action in [
        ("insert_cell", {"notebook": "analysis.ipynb", "source": "print(1)", "run": True}, "execute"),
        ("run_cell", {"notebook": "analysis.ipynb", "cell_id": "x"}, "execute"),
        ("edit_cell", {"notebook": "analysis.ipynb", "cell_id": "x", "source": "2"}, "write"),
        ("write_file", {"notebook": "analysis.ipynb", "path": "notes.txt", "content": "x"}, "write"),
        ("interrupt_kernel", {"notebook": "analysis.ipynb"}, "execute"),
    ]:
        with findings.case(name):
            ASKED.clear()
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
            response = await post(url, call, headers=session)
            assert response.status_code == 403, (name, response.status_code, response.text)
            body = response.json()
            assert body["id"] == 7 and f"'{action}' permission" in body["error"]["message"]
            assert (action, "notebook-agent-outside") in ASKED


async def test_paths_outside_the_root_or_hidden_are_refused_before_anything_runs(
    url, jp_auth_header, jp_root_dir, tmp_path, findings
):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (jp_root_dir / "escape").symlink_to(outside)
    async with sdk_client(url, jp_auth_header) as client:
        for name, arguments, said in [
            ("read_notebook", {"notebook": "../other.ipynb"}, "outside"),
            ("read_notebook", {"notebook": "escape/linked.ipynb"}, "outside"),
            ("read_notebook", {"notebook": ".hidden/secret.ipynb"}, "hidden"),
            ("read_notebook", {"notebook": "notes.txt"}, "must name a notebook"),
            ("read_file", {"notebook": "a.ipynb", "path": "../../etc/passwd"}, "outside"),
            ("read_file", {"notebook": "a.ipynb", "path": ".env"}, "hidden"),
            ("write_file", {"notebook": "a.ipynb", "path": "escape/x.py", "content": "1"}, "outside"),
        ]:
            with findings.case(f"{name} {arguments}"):
                result = await client.call_tool(name, arguments)
                assert result.is_error is True
                text = result.content[0].text
                assert "not open in JupyterLab" not in text, text  # refused here, never routed
                if said:
                    assert said in text, text


async def test_sessions_and_the_protocol(url, jp_auth_header, findings):
    with findings.case("initialize answers a session and the asked version"):
        init = await post(url, INIT, headers=jp_auth_header)
        assert init.status_code == 200 and init.headers["content-type"].startswith("application/json")
        assert init.json()["result"]["protocolVersion"] == "2025-06-18"
        session_id = init.headers["mcp-session-id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    with findings.case("a call without its session is 400, an unknown one 404"):
        assert (await post(url, listing, headers=jp_auth_header)).status_code == 400
        assert (await post(url, listing, headers={**jp_auth_header, "Mcp-Session-Id": "nope"})).status_code == 404
    with findings.case("a notification is 202, a batch 400, GET 405, discover method-not-found"):
        headers = {**jp_auth_header, "Mcp-Session-Id": session_id}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await post(url, note, headers=headers)).status_code == 202
        assert (await post(url, [listing], headers=headers)).status_code == 400
        discover = await post(url, {"jsonrpc": "2.0", "id": 3, "method": "server/discover"}, headers=headers)
        assert discover.json()["error"]["code"] == -32601
        async with httpx2.AsyncClient() as http:
            assert (await http.get(url, headers=headers)).status_code == 405
    with findings.case("DELETE ends the session"):
        async with httpx2.AsyncClient() as http:
            assert (await http.delete(url, headers=headers)).status_code == 204
        assert (await post(url, listing, headers=headers)).status_code == 404


async def test_what_the_route_answers_goes_through_the_secret_filter(url, jp_auth_header, findings):
    init = await post(url, INIT, headers=jp_auth_header)
    headers = {**jp_auth_header, "Mcp-Session-Id": init.headers["mcp-session-id"]}
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": SECRET_KEY, "arguments": {}}}
    response = await post(url, call, headers=headers)
    findings.leak_if(SECRET_KEY in response.text, "an unknown tool's name echoed the server's key")
    assert SECRET_KEY not in response.text
    assert "[redacted]" in response.text
