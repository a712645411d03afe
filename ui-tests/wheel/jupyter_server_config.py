"""Jupyter server configuration for the installed-wheel round trip (no Galata)."""

import os
from pathlib import Path

run_dir = Path(os.environ["JUPYTER_CONFIG_DIR"]).parent
root = run_dir / "root"
root.mkdir(parents=True, exist_ok=True)

c.ServerApp.allow_root = True  # noqa: F821 - `c` is provided by Jupyter's config loader
c.ServerApp.open_browser = False  # noqa: F821
c.ServerApp.root_dir = str(root)  # noqa: F821
c.IdentityProvider.token = ""  # noqa: F821
c.KernelManager.shutdown_wait_time = 1.0  # noqa: F821
c.NotebookAgent.chats_dir = str(run_dir / "chats")  # noqa: F821
