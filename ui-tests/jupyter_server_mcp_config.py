"""UI-test server with MCP tool servers (ui-tests/tests/mcp.spec.ts).

Its own server, so the other specs' sidebars show no MCP section: one MCP server written
with the SDK (tests/mcp_test_server.py, over stdio, started by this Jupyter server on first
use; station_reading runs without asking, every other tool asks; a call may take 4 s), and
one whose command does not exist (the sidebar's notice of a server that is down).
"""

import sys
from pathlib import Path
from tempfile import mkdtemp

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
c.ServerApp.tornado_settings = {"page_config_data": {"buildCheck": False, "buildAvailable": False}}  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
c.NotebookAgent.chats_dir = mkdtemp(prefix="notebook-agent-chats-")  # noqa: F821
c.NotebookAgent.discover_local_servers = False  # noqa: F821
c.NotebookAgent.mcp_servers = {  # noqa: F821
    "weather": {
        "command": sys.executable,
        "args": [str(Path(__file__).resolve().parent.parent / "tests" / "mcp_test_server.py")],
        "env": {"MCP_TEST_TOKEN": "ui-test-mcp-env-secret-0123"},
        "timeout": 4,
        "auto_approve": ["station_reading"],
    },
    "broken": {"command": "/nonexistent/notebook-agent-ui-test-mcp-server"},
}
