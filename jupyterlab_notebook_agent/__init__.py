"""Notebook Agent: a JupyterLab extension and its server-side model proxy."""

from __future__ import annotations

import os
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
    from .kernel_restart import setup_kernel_restart
    from .kernel_websocket import use_nodelay_kernel_websockets
    from .key_store import KeyStore, default_key_store_path
    from .mcp_config import mcp_secret_variables
    from .mcp_handlers import stop_mcp_with
    from .outside_channel import setup_outside_channel
    from .outside_hub import OutsideHub
    from .outside_mcp import setup_outside_mcp
    from .outside_worker import OutsideWorker, stop_worker_with
    from .path_check import setup_path_check
    from .providers import resolve_providers
    from .server_secrets import SETTING, RedactingFilter, ServerSecrets

    config = NotebookAgent(parent=server_app)
    key_store = KeyStore(config.key_store_path or default_key_store_path())
    # Every filter (responses, kernel messages, log lines) reads the server's secrets from here.
    secrets = ServerSecrets(config, key_store, server_app.log)
    server_app.web_app.settings[SETTING] = secrets
    _redact_logs(server_app.log, RedactingFilter(secrets))
    setup_handlers(server_app.web_app, config, key_store)
    chats_dir = Path(config.chats_dir) if config.chats_dir else default_chats_dir()
    setup_chat_handlers(server_app.web_app, ChatStore(chats_dir, max_chats=config.max_chats, log=server_app.log))
    setup_path_check(server_app.web_app)
    # Outside agents' MCP endpoint (#36); notebooks no page has open go to the command line's worker.
    worker = OutsideWorker(
        config.outside_worker_command,
        server_app.connection_url,
        getattr(server_app.identity_provider, "token", "") or "",
        server_app.log,
    )
    setup_outside_mcp(server_app.web_app, OutsideHub(worker=worker))
    stop_worker_with(server_app, worker)
    setup_outside_channel(server_app.web_app)  # ... and the pages that run their calls
    setup_kernel_restart(server_app.web_app)  # the agent's Stop on code that ignores SIGINT
    stop_mcp_with(server_app)  # MCP stdio servers end with the Jupyter server
    # With no endpoint configured: model servers on loopback, looked for in the background.
    setup_discovery(server_app.web_app, config, key_store, server_app.log)
    if config.hide_keys_from_kernels:
        hide_keys_from_kernels(
            server_app.kernel_manager,
            lambda: _key_variables(resolve_providers(config)) | mcp_secret_variables(config, dict(os.environ)),
        )
    # Every kernel round trip (the agent's and the user's Shift+Enter) drops
    # from ~45 ms to ~5 ms without Nagle's delay on the kernel websocket.
    if use_nodelay_kernel_websockets(server_app):
        server_app.log.info("Notebook Agent: TCP_NODELAY on kernel websockets")
    providers = resolve_providers(config)
    for error in providers.errors:
        server_app.log.warning("Notebook Agent: %s", error)
    for warning in providers.warnings:
        server_app.log.warning("Notebook Agent: %s", warning)
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
            provider.public_url,
            f"from {source}" if source else "not set",
        )


def _key_variables(providers: Any) -> set[str]:
    """The environment variables holding a provider's key or header values."""
    names = set()
    for provider in providers.providers.values():
        names.add(provider.api_key_env)
        names.update(variable for _, variable in provider.headers_env)
    return {n for n in names if n}


def _redact_logs(log: Any, redacting: Any) -> None:
    """Scrub the server's secrets from what the server logs from now on (its handlers' loggers included).

    A filter on a logger applies only to records logged through that very logger, not to those its children pass
    up: tornado's ``tornado.general`` (which quotes a malformed header an upstream sent) reaches the server's log
    through ``tornado``, whose parent Jupyter makes the server's log. So the filter also goes on the handlers that
    write the log out, the server log's and the root logger's, which every record passes whatever logger it began
    at; and on the loggers themselves, for a handler added later.
    """
    import logging

    loggers = {log, logging.getLogger("tornado.access"), logging.getLogger("tornado.application")}
    loggers.add(logging.getLogger("tornado.general"))
    handlers = [*getattr(log, "handlers", []), *logging.getLogger().handlers]
    for filtered in [*loggers, *handlers]:
        if not any(isinstance(f, type(redacting)) for f in filtered.filters):
            filtered.addFilter(redacting)
