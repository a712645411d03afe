"""UI-test server with two provider profiles on the scripted model server."""

import os
from tempfile import mkdtemp

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
# No "build needed?" check on each page load (GET lab/api/build, ~1 s of server time per test page):
# the extension is prebuilt, and the check has nothing to find.
c.ServerApp.tornado_settings = {"page_config_data": {"buildCheck": False, "buildAvailable": False}}  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
# The scripted model server of this copy of the suite (playwright.config.js: UI_PORT_OFFSET).
_model = f"http://127.0.0.1:{os.environ.get('NOTEBOOK_AGENT_UI_MODEL_PORT', '8765')}/v1"
c.NotebookAgent.providers = {  # noqa: F821
    "alpha": {
        "base_url": _model,
        "default_model": "alpha-model",
        "models": ["alpha-model", "alpha-large"],
    },
    "beta": {
        "base_url": _model,
        "default_model": "beta-model",
        "api_key_env": "NOTEBOOK_AGENT_UI_TEST_UNSET_KEY",
    },
}
c.NotebookAgent.default_provider = "alpha"  # noqa: F821
c.NotebookAgent.key_store_path = os.path.join(mkdtemp(prefix="notebook-agent-keys-"), "keys.json")  # noqa: F821
# Each test server starts with no saved chats (the default folder is per user and outlives runs).
c.NotebookAgent.chats_dir = mkdtemp(prefix="notebook-agent-chats-")  # noqa: F821
