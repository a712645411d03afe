"""Notebook Agent: a JupyterLab extension and its server-side model proxy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    from ._version import __version__
except ImportError:  # pragma: no cover - only when running from a source tree that was never built
    __version__ = "dev"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyterlab-notebook-agent"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyterlab_notebook_agent"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    """Register the model proxy under the server's base_url."""
    from .chats import ChatStore, default_chats_dir, setup_chat_handlers
    from .config import NotebookAgent
    from .discovery_handler import setup_discovery
    from .handlers import setup_handlers
    from .kernel_env import hide_keys_from_kernels
    from .kernel_websocket import use_nodelay_kernel_websockets
    from .key_store import KeyStore, default_key_store_path
    from .path_check import setup_path_check
    from .providers import resolve_providers

    config = NotebookAgent(parent=server_app)
    key_store = KeyStore(config.key_store_path or default_key_store_path())
    setup_handlers(server_app.web_app, config, key_store)
    chats_dir = Path(config.chats_dir) if config.chats_dir else default_chats_dir()
    setup_chat_handlers(server_app.web_app, ChatStore(chats_dir, max_chats=config.max_chats))
    setup_path_check(server_app.web_app)
    # With no endpoint configured: model servers on loopback, looked for in the background.
    setup_discovery(server_app.web_app, config, key_store, server_app.log)
    if config.hide_keys_from_kernels:
        hide_keys_from_kernels(
            server_app.kernel_manager,
            lambda: {p.api_key_env for p in resolve_providers(config).providers.values() if p.api_key_env},
        )
    # Every kernel round trip (the agent's and the user's Shift+Enter) drops
    # from ~45 ms to ~5 ms without Nagle's delay on the kernel websocket.
    if use_nodelay_kernel_websockets(server_app):
        server_app.log.info("Notebook Agent: TCP_NODELAY on kernel websockets")
    providers = resolve_providers(config)
    for error in providers.errors:
        server_app.log.warning("Notebook Agent: %s", error)
    if not providers.providers:
        server_app.log.info(
            "Notebook Agent: no model endpoint configured "
            "(set OPENAI_BASE_URL, c.NotebookAgent.base_url or c.NotebookAgent.providers)%s.",
            f"; looking for local model servers on 127.0.0.1 ports {', '.join(map(str, config.discover_ports))}"
            if config.discover_local_servers
            else "",
        )
        return
    store = key_store if config.allow_user_keys else None
    for provider in providers.providers.values():
        _, source = provider.resolve_key(store)
        server_app.log.info(
            "Notebook Agent: provider %r%s proxies model requests to %s (key %s)",
            provider.name,
            " (default)" if provider.name == providers.default else "",
            provider.base_url,
            f"from {source}" if source else "not set",
        )
