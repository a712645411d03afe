"""Jupyter server configuration for the browser security suite (port 8892).

Every file the server writes lives under the run directory that
playwright.security.config.js creates (NOTEBOOK_AGENT_SECURITY_DIR), so the key
test can scan all of it afterwards: the server root, the data dir (chats, key
store), user settings and workspaces. Two providers: ``default`` from the
environment (OPENAI_BASE_URL / OPENAI_API_KEY, the server's key) and ``user``,
which has no key until the user types one with the sidebar's "Set API key…".
"""

import os

from jupyterlab.galata import configure_jupyter_server

run_dir = os.environ["NOTEBOOK_AGENT_SECURITY_DIR"]
model_port = os.environ.get("NOTEBOOK_AGENT_SECURITY_MODEL_PORT", "8766")

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
c.ServerApp.tornado_settings = {"page_config_data": {"buildCheck": False, "buildAvailable": False}}  # noqa: F821
c.ServerApp.port = 8892  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.ServerApp.root_dir = os.path.join(run_dir, "root")  # noqa: F821
c.LabApp.workspaces_dir = os.path.join(run_dir, "workspaces")  # noqa: F821
c.LabApp.user_settings_dir = os.path.join(run_dir, "settings")  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
# Serve hidden files, as some users configure: the agent's file tools must
# refuse .ssh, .env and the like themselves (the injection test reads them).
c.ContentsManager.allow_hidden = True  # noqa: F821
c.NotebookAgent.providers = {  # noqa: F821
    "user": {
        "base_url": f"http://127.0.0.1:{model_port}/v1",
        "default_model": "user-model",
        "api_key_env": "NOTEBOOK_AGENT_SECURITY_UNSET_KEY",
    },
}
c.NotebookAgent.default_provider = "default"  # noqa: F821
c.NotebookAgent.key_store_path = os.path.join(run_dir, "data", "notebook_agent", "keys.json")  # noqa: F821
