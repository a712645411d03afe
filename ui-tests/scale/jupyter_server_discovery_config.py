"""UI-test server with no endpoint, looking for model servers on loopback ports 8768 and 8769."""

from tempfile import mkdtemp

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
c.ServerApp.tornado_settings = {"page_config_data": {"buildCheck": False, "buildAvailable": False}}  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
c.NotebookAgent.chats_dir = mkdtemp(prefix="notebook-agent-chats-")  # noqa: F821
c.NotebookAgent.key_store_path = mkdtemp(prefix="notebook-agent-keys-") + "/keys.json"  # noqa: F821
# The tests start scripted model servers on these ports (nothing listens there at start-up).
c.NotebookAgent.discover_ports = [8768, 8769]  # noqa: F821
c.NotebookAgent.discover_local_servers = True  # noqa: F821
