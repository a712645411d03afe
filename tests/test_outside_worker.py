"""Outside agents' calls on notebooks no JupyterLab page has open: the server's worker.

The official MCP SDK client on a real Jupyter server whose worker is the real command line
(``node bin/notebook-agent.cjs mcp-worker``, built by ``npm run build:cli``), over a real
ipykernel: reads and edits go through the headless port and are saved; what would ask for
approval is refused (nobody can approve where no page shows the notebook); a stale cell is
refused; a file changed on disk meanwhile is not overwritten.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import require_built_command_line
from test_outside_mcp import sdk_client

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "bin" / "notebook-agent.cjs"
pytestmark = [
    pytest.mark.fault_category("outside MCP route"),
]


@pytest.fixture(autouse=True)
def built_command_line():
    require_built_command_line()


NOT_OPEN = "is not open in JupyterLab: worked on through the server"


@pytest.fixture
def jp_server_config(configured):
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {
            "discover_local_servers": False,
            "outside_worker_command": [shutil.which("node") or "node", str(BIN), "mcp-worker"],
        },
    }


@pytest.fixture
def url(jp_fetch, jp_http_port, jp_base_url) -> str:
    return f"http://localhost:{jp_http_port}{jp_base_url}notebook-agent/mcp"


@pytest.fixture
def notebook(jp_root_dir) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 20", id="first")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = jp_root_dir / "closed.ipynb"
    path.write_text(nbformat.writes(nb))
    return path


def cells(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.reads(path.read_text(), as_version=4).cells]


async def test_a_closed_notebook_is_read_and_edited_through_the_server(url, jp_auth_header, notebook):
    async with sdk_client(url, jp_auth_header, name="Worker Agent") as client:
        read = await client.call_tool("read_notebook", {"notebook": "closed.ipynb"})
        assert read.is_error is False, read.content[0].text
        assert NOT_OPEN in read.content[0].text and "x = 20" in read.content[0].text
        inserted = await client.call_tool(
            "insert_cell", {"notebook": "closed.ipynb", "source": "y = x * 2", "after_cell_id": "first"}
        )
        assert inserted.is_error is False, inserted.content[0].text
        assert cells(notebook) == ["x = 20", "y = x * 2"]  # saved
        # Running asks, and nobody can approve here: nothing runs.
        run = await client.call_tool("insert_cell", {"notebook": "closed.ipynb", "source": "print(x)", "run": True})
        assert run.is_error is True and "needs the user's approval" in run.content[0].text
        assert cells(notebook) == ["x = 20", "y = x * 2"]
        # A cell the user changed since the agent read it is refused.
        nb = nbformat.read(notebook, as_version=4)
        nb.cells[0].source = "x = 21  # the user's"
        nbformat.write(nb, notebook)
        edit = {"notebook": "closed.ipynb", "cell_id": "first", "source": "x = 0"}
        edited = await client.call_tool("edit_cell", edit)
        assert edited.is_error is True
        assert cells(notebook)[0] == "x = 21  # the user's"


async def test_without_a_worker_a_closed_notebook_is_refused_saying_so(url, jp_auth_header, notebook, jp_serverapp):
    hub = jp_serverapp.web_app.settings["notebook_agent_outside"]
    hub.worker.command = ["no-such-notebook-agent-command", "mcp-worker"]
    async with sdk_client(url, jp_auth_header) as client:
        result = await client.call_tool("read_notebook", {"notebook": "closed.ipynb"})
        assert result.is_error is True
        assert "not open in JupyterLab" in result.content[0].text
        assert "is not installed on the server" in result.content[0].text
