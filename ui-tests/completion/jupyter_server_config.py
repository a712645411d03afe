"""Jupyter server for the inline completion UI test: its endpoint is a real model on llama-server.

ui-tests/completion/serve_model.py serves Qwen2.5-Coder-0.5B-Instruct on port 8962 and requires the
key below, which only this server holds: the browser never sees it (the test checks).
"""

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is provided by Jupyter's config loader
c.ServerApp.tornado_settings = {  # noqa: F821
    "page_config_data": {"notebookAgentTestHooks": "true", "buildCheck": False, "buildAvailable": False}
}
c.ServerApp.allow_root = True  # noqa: F821
c.ServerApp.port = 8961  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
c.NotebookAgent.base_url = "http://127.0.0.1:8962/v1"  # noqa: F821
c.NotebookAgent.model = "qwen2.5-coder-0.5b-instruct"  # noqa: F821
c.NotebookAgent.api_key = "sk-completion-test-held-by-the-server-7f3a9c"  # noqa: F821
c.NotebookAgent.discover_local_servers = False  # noqa: F821
