"""Kernels started by a real Jupyter server get no model key from its environment.

The process environment of each kernel is read from /proc, so the test sees
exactly what code running in the kernel would see, including after a restart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_notebook_agent.kernel_env import without_keys

OPENAI_KEY = "sk-env-openai-0123456789"
AZURE_KEY = "az-env-azure-0123456789"
GATEWAY_KEY = "gw-env-gateway-0123456789"
#: An MCP server's header value the admin's config read from the environment.
MCP_TOKEN = "mcp-env-token-0123456789"
GATEWAY_HEADER = "gw-env-header-value-0123456789"


@pytest.fixture
def hide() -> bool:
    """The hide_keys_from_kernels setting; tests parametrize it."""
    return True


@pytest.fixture
def jp_server_config(monkeypatch, hide):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_KEY)
    monkeypatch.setenv("GATEWAY_TEST_KEY", GATEWAY_KEY)
    monkeypatch.setenv("SEARCH_MCP_TOKEN", MCP_TOKEN)
    monkeypatch.setenv("GATEWAY_TEST_HEADER", GATEWAY_HEADER)
    monkeypatch.setenv("UNRELATED_SETTING", "kept")
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {
            "hide_keys_from_kernels": hide,
            "providers": {
                "gateway": {
                    "base_url": "http://127.0.0.1:9/v1",
                    "api_key_env": "GATEWAY_TEST_KEY",
                    "headers_env": {"X-Gateway-Token": "GATEWAY_TEST_HEADER"},
                }
            },
            "mcp_servers": {
                "search": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {MCP_TOKEN}"}}
            },
        },
    }


def kernel_environ(serverapp, kernel_id: str) -> dict[str, str]:
    """The environment of the kernel's process, as the kernel itself sees it."""
    pid = serverapp.kernel_manager.get_kernel(kernel_id).provisioner.pid
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


async def start_session(jp_fetch) -> str:
    response = await jp_fetch(
        "api",
        "sessions",
        method="POST",
        body=json.dumps({"path": "analysis.ipynb", "type": "notebook", "kernel": {"name": "python3"}}),
    )
    return json.loads(response.body)["kernel"]["id"]


def test_without_keys_keeps_everything_else():
    env = {"OPENAI_API_KEY": "k", "PATH": "/bin", "X": "1"}
    assert without_keys(env, ["OPENAI_API_KEY", "ABSENT"]) == {"PATH": "/bin", "X": "1"}
    assert env["OPENAI_API_KEY"] == "k"


async def test_session_and_plain_kernels_start_without_keys(jp_fetch, jp_serverapp):
    from_session = await start_session(jp_fetch)
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    plain = json.loads(response.body)["id"]
    for kernel_id in (from_session, plain):
        env = kernel_environ(jp_serverapp, kernel_id)
        for key in (OPENAI_KEY, AZURE_KEY, GATEWAY_KEY, GATEWAY_HEADER, MCP_TOKEN):
            assert key not in "\n".join(env.values())
        for name in ("OPENAI_API_KEY", "GATEWAY_TEST_KEY", "GATEWAY_TEST_HEADER", "SEARCH_MCP_TOKEN"):
            assert name not in env
        # The rest of the environment is the server's, unchanged.
        assert env["UNRELATED_SETTING"] == "kept"
        assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    # A restart keeps the kernel's environment (jupyter_client reuses it).
    await jp_fetch("api", "kernels", from_session, "restart", method="POST", body="{}")
    assert "OPENAI_API_KEY" not in kernel_environ(jp_serverapp, from_session)
    # The server itself keeps its keys: the proxy still has them.
    import os

    assert os.environ["OPENAI_API_KEY"] == OPENAI_KEY


@pytest.mark.parametrize("hide", [False])
async def test_opting_out_lets_kernels_inherit_the_keys(jp_fetch, jp_serverapp):
    env = kernel_environ(jp_serverapp, await start_session(jp_fetch))
    assert env["OPENAI_API_KEY"] == OPENAI_KEY
    assert env["GATEWAY_TEST_KEY"] == GATEWAY_KEY
    assert env["SEARCH_MCP_TOKEN"] == MCP_TOKEN
