"""The discovery route and its set-up: ``POST notebook-agent/discovery`` looks again.

The sidebar posts here when its provider picker opens (or the user asks to
look again), then reads ``notebook-agent/config`` for the providers.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import _AgentHandler
from .config import NotebookAgent
from .discovery import SETTINGS_KEY, LocalDiscovery, describe
from .key_store import KeyStore
from .providers import resolve_providers


class DiscoveryHandler(_AgentHandler):
    """GET: what the last look found; POST: look again now, and answer what answered."""

    auth_resource = "notebook-agent-discovery"

    @web.authenticated
    async def get(self) -> None:
        await self.discovery_settled()
        self.finish(json.dumps(describe(self.discovery())))

    @web.authenticated
    async def post(self) -> None:
        discovery = self.discovery()
        if discovery is not None:
            await discovery.scan()
        self.finish(json.dumps(describe(discovery)))


def setup_discovery(web_app: Any, config: NotebookAgent, key_store: KeyStore, log: logging.Logger) -> None:
    """Register the route and, unless turned off, start looking in the background."""
    base = url_path_join(web_app.settings["base_url"], "notebook-agent", "discovery")
    web_app.add_handlers(".*$", [(base, DiscoveryHandler, {"agent_config": config, "key_store": key_store})])
    if not config.discover_local_servers:
        return
    discovery = LocalDiscovery(
        config.discover_ports,
        config.discover_timeout,
        needed=lambda: not resolve_providers(config).providers,
        log=log,
    )
    web_app.settings[SETTINGS_KEY] = discovery
    discovery.start()
