"""Jupyter server configuration for the UI tests (Galata's test setup)."""

import os
from tempfile import mkdtemp

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
c.ServerApp.allow_root = True  # noqa: F821
# Kernels used by tests start from a clean state without user site customizations.
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
# Each test server starts with no saved chats (the default folder is per user and outlives runs).
c.NotebookAgent.chats_dir = mkdtemp(prefix="notebook-agent-chats-")  # noqa: F821
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
# The extension's test hooks (window.notebookAgentTest: the port contract on the live port, panel
# tracking); a normal page never loads them (src/jupyter/testing/test-hooks.ts).
c.ServerApp.tornado_settings = {  # noqa: F821
    "page_config_data": {"notebookAgentTestHooks": "true", "buildCheck": False, "buildAvailable": False}
}
# No IOPub rate limit: a flood of output must reach the extension, whose own bounds are under test
# (the server's default limit would drop it), as in the headless fault suite.
c.ZMQChannelsWebsocketConnection.iopub_data_rate_limit = 0  # noqa: F821
# The unconfigured server shows the no-endpoint experience whatever listens on this machine's
# loopback (ui-tests/scale/discovery.spec.ts covers looking for local model servers).
c.NotebookAgent.discover_local_servers = False  # noqa: F821
# Extensions of the tests' own (NOTEBOOK_AGENT_TEST_LABEXTENSIONS, a folder; the configured server's command
# builds ui-tests/test-extension there): added to Galata's path, not in its place (Galata's helper extension
# lives on that path), and installed nowhere else.
_test_extensions = os.environ.get("NOTEBOOK_AGENT_TEST_LABEXTENSIONS")
if _test_extensions:
    _galata = c.LabServerApp.extra_labextensions_path  # noqa: F821
    c.LabServerApp.extra_labextensions_path = [  # noqa: F821
        *([_galata] if isinstance(_galata, str) else _galata),
        _test_extensions,
    ]
