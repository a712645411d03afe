"""The model proxy: authenticated Jupyter handlers that forward chat and completion requests.

The browser talks only to its own Jupyter server (no CORS, no key in the
browser); the server picks the provider, adds its key and forwards to an
endpoint configured on the server, streaming the SSE response back chunk by
chunk as it arrives. Keys a user types in the sidebar are stored on the server
(``notebook-agent/keys/<provider>``) and never sent back.

This module registers the routes; the handlers live in ``v1_handlers``
(chat completions, completions for inline completion, models), ``config_handlers`` (config, keys) and
``proxy_handler`` (forwarding and streaming).
"""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join

from .config import NotebookAgent
from .config_handlers import ConfigHandler, KeysHandler
from .key_store import KeyStore, default_key_store_path
from .mcp_handlers import mcp_handlers
from .models_handler import models_handlers
from .proxy_handler import BASE_URL_HEADER, MAX_ERROR_BODY, NOT_CONFIGURED, PASSED_HEADERS, PROVIDER_HEADER
from .proxy_target import Target
from .v1_handlers import ChatCompletionsHandler, CompletionsHandler, ModelsHandler

__all__ = [
    "BASE_URL_HEADER",
    "MAX_ERROR_BODY",
    "NOT_CONFIGURED",
    "PASSED_HEADERS",
    "PROVIDER_HEADER",
    "ChatCompletionsHandler",
    "CompletionsHandler",
    "ConfigHandler",
    "KeysHandler",
    "ModelsHandler",
    "Target",
    "setup_handlers",
]


def setup_handlers(web_app: Any, agent_config: NotebookAgent, key_store: KeyStore | None = None) -> None:
    """Register the proxy routes (and the local models folder) under the server's base_url."""
    if key_store is None:
        key_store = KeyStore(agent_config.key_store_path or default_key_store_path())
    base = url_path_join(web_app.settings["base_url"], "notebook-agent")
    options = {"agent_config": agent_config, "key_store": key_store}
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "v1", "chat", "completions"), ChatCompletionsHandler, options),
            (url_path_join(base, "v1", "completions"), CompletionsHandler, options),
            (url_path_join(base, "v1", "models"), ModelsHandler, options),
            (url_path_join(base, "config"), ConfigHandler, options),
            (url_path_join(base, "keys", r"([^/]+)"), KeysHandler, options),
            *models_handlers(web_app.settings["base_url"], agent_config.local_models_dir),
            *mcp_handlers(web_app, agent_config),
        ],
    )
