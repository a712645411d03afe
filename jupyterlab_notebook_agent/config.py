"""Server-side configuration of the model endpoint.

Keys live here (server config or environment), never in the browser: the
proxy adds them to upstream requests. An admin can configure every user of a
server at once with ``c.NotebookAgent.*`` or environment variables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from traitlets import List, Unicode
from traitlets.config import Configurable


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible endpoint the proxy may forward to."""

    base_url: str
    api_key: str
    model: str


def normalize_base_url(url: str) -> str:
    """Canonical form used to compare base URLs: no trailing slash."""
    return url.strip().rstrip("/")


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class NotebookAgent(Configurable):
    """Configuration of Notebook Agent's server extension."""

    base_url = Unicode(
        "",
        help=(
            "Base URL of the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1. "
            "Defaults to the OPENAI_BASE_URL environment variable."
        ),
    ).tag(config=True)

    api_key = Unicode(
        "",
        help=(
            "API key sent upstream as a Bearer token. Defaults to the OPENAI_API_KEY "
            "environment variable. Never sent to the browser."
        ),
    ).tag(config=True)

    model = Unicode(
        "",
        help="Default model name. Defaults to the NOTEBOOK_AGENT_MODEL environment variable.",
    ).tag(config=True)

    allowed_base_urls = List(
        Unicode(),
        default_value=[],
        help=(
            "Further base URLs a user may select in the sidebar settings while in proxy mode. "
            "The proxy forwards to no other host."
        ),
    ).tag(config=True)

    def resolved_endpoint(self) -> Endpoint | None:
        """The default endpoint, or None when none is configured."""
        base_url = normalize_base_url(self.base_url or os.environ.get("OPENAI_BASE_URL", ""))
        if not base_url:
            return None
        return Endpoint(
            base_url=base_url,
            api_key=self.api_key or os.environ.get("OPENAI_API_KEY", ""),
            model=self.model or os.environ.get("NOTEBOOK_AGENT_MODEL", ""),
        )

    def endpoint_for(self, requested_base_url: str | None) -> Endpoint | None:
        """The endpoint to forward to, or None if ``requested_base_url`` is not allowed.

        With no request the default endpoint is used. A requested URL must match the
        default endpoint or one of ``allowed_base_urls`` exactly (after normalization);
        the key is only ever attached to the default endpoint.
        """
        default = self.resolved_endpoint()
        if not requested_base_url:
            return default
        wanted = normalize_base_url(requested_base_url)
        if default is not None and wanted == default.base_url:
            return default
        allowed = {normalize_base_url(u) for u in self.allowed_base_urls}
        if wanted in allowed and is_http_url(wanted):
            return Endpoint(base_url=wanted, api_key="", model="")
        return None
