"""Jupyter server for the local-model UI tests: no model endpoint, and the test models served."""

from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
# Test hooks: the inline completion test reads what the provider did last (window.notebookAgentInline).
c.ServerApp.tornado_settings = {  # noqa: F821
    "page_config_data": {"notebookAgentTestHooks": "true", "buildCheck": False, "buildAvailable": False}
}
c.ServerApp.allow_root = True  # noqa: F821
c.ServerApp.port = 8891  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
# Built by the webServer command (tests/local_model/build_tiny_model.py; build_qwen2.py).
c.NotebookAgent.local_models_dir = str(Path(__file__).resolve().parents[2] / "build" / "local-models")  # noqa: F821
# The in-browser model answers whatever listens on this machine's loopback (no local-server discovery).
c.NotebookAgent.discover_local_servers = False  # noqa: F821
