"""Every secret the server holds, for the filters that keep them on the server.

The proxy's responses, the kernel websocket's messages, the extension's error messages and
its log lines are all scrubbed of the same set: every provider's key (from the config, the
environment or the user's key file), every extra header value, credentials and query values
in a base URL (``user:pass@``, ``?key=``), every ``env`` and ``headers`` value of the MCP
servers (the admin's and, when allowed, the users' ``mcp.json``), and the standard key
variables of the server's environment (``OPENAI_API_KEY``, ``AZURE_OPENAI_API_KEY``) even when
no provider uses them.
Profiles that failed validation are included too: their values are in the config all the same.

The set is rebuilt only when something it comes from changed (the config traits, the
relevant environment variables, the key file's and the users' ``mcp.json``'s size and time),
so a kernel message pays a few dictionary lookups and a ``stat`` or two.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from .config import url_secrets
from .kernel_env import KEY_VARIABLES
from .mcp_config import mcp_secrets, user_file
from .providers import resolve_providers
from .redaction import SecretMatcher, matcher_for

if TYPE_CHECKING:
    from .config import NotebookAgent
    from .key_store import KeyStore

#: The tornado setting under which the server's provider is found (handlers, kernel websockets).
SETTING = "notebook_agent_secrets"


def _raw_profile_secrets(profile: Any) -> list[str]:
    """Secrets written in a profile, valid or not."""
    if not isinstance(profile, dict):
        return []
    values: list[Any] = [profile.get("api_key")]
    for name in ("api_key_env",):
        variable = profile.get(name)
        if isinstance(variable, str) and variable.strip():
            values.append(os.environ.get(variable.strip()))
    headers = profile.get("headers")
    if isinstance(headers, dict):
        values += list(headers.values())
    headers_env = profile.get("headers_env")
    if isinstance(headers_env, dict):
        values += [os.environ.get(v.strip()) for v in headers_env.values() if isinstance(v, str)]
    for field in ("base_url", "endpoint"):
        url = profile.get(field)
        if isinstance(url, str):
            values += url_secrets(url.strip())
    return [v.strip() for v in values if isinstance(v, str) and v.strip()]


def collect_secrets(config: NotebookAgent, key_store: KeyStore | None) -> list[str]:
    """Every secret the server holds right now."""
    values: list[str] = [config.api_key, *config.secrets]
    values += [os.environ.get(name, "") for name in KEY_VARIABLES]
    for profile in (config.providers or {}).values():
        values += _raw_profile_secrets(profile)
    for provider in resolve_providers(config).providers.values():
        key, _ = provider.resolve_key(None)
        values += provider.secrets(key)
    for url in config.allowed_base_urls:
        values += url_secrets(url)
    if key_store is not None:
        values += key_store.all_keys()
    values += mcp_secrets(config)
    return [v for v in dict.fromkeys(s.strip() for s in values if s) if v]


def _file_stamp(path: Any) -> tuple[int, int, int] | None:
    """When and how a file last changed (None: no such file)."""
    try:
        stat = os.stat(path) if path is not None else None
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino) if stat else None


class ServerSecrets:
    """The current :class:`SecretMatcher` of one server."""

    def __init__(self, config: NotebookAgent, key_store: KeyStore | None, log: logging.Logger | None = None) -> None:
        self.config = config
        self.key_store = key_store
        self.log = log or logging.getLogger(__name__)
        self._lock = threading.Lock()
        self._stamp: tuple[Any, ...] | None = None
        self._variables: tuple[str, ...] = ()
        self._matcher = matcher_for(())

    def _fingerprint(self) -> tuple[Any, ...]:
        config = self.config
        key_file = _file_stamp(self.key_store.path if self.key_store is not None else None)
        mcp_file = _file_stamp(user_file(config) if config.allow_user_mcp_servers else None)
        return (
            config.api_key,
            config.base_url,
            id(config.providers),
            len(config.providers or {}),
            id(config.allowed_base_urls),
            id(config.mcp_servers),
            len(config.mcp_servers or {}),
            key_file,
            mcp_file,
            tuple(os.environ.get(name) for name in self._variables),
        )

    def _variable_names(self) -> tuple[str, ...]:
        names = {*KEY_VARIABLES, "OPENAI_BASE_URL"}
        for profile in (self.config.providers or {}).values():
            if isinstance(profile, dict):
                names.add(str(profile.get("api_key_env") or ""))
                headers_env = profile.get("headers_env")
                if isinstance(headers_env, dict):
                    names.update(str(v) for v in headers_env.values())
        for provider in resolve_providers(self.config).providers.values():
            names.add(provider.api_key_env)
        return tuple(sorted(n.strip() for n in names if n and n.strip()))

    def matcher(self) -> SecretMatcher:
        """The matcher for the secrets held now."""
        stamp = self._fingerprint()
        if stamp == self._stamp:
            return self._matcher
        failed: Exception | None = None
        with self._lock:
            self._variables = self._variable_names()
            stamp = self._fingerprint()
            try:
                self._matcher = matcher_for(collect_secrets(self.config, self.key_store))
            except Exception as error:  # noqa: BLE001 - never fail a response over this: keep the last set
                failed = error
            self._stamp = stamp
            matcher = self._matcher
        if failed is not None:
            # Logged outside the lock: the log's own filter asks for the matcher (a second look, in the lock,
            # would wait for itself forever: the server hung at start-up).
            self.log.error("Notebook Agent: could not collect the server's secrets", exc_info=failed)
        return matcher

    def redact(self, text: str) -> str:
        """``text`` without any secret (for messages and log lines)."""
        return self.matcher().redact_text(text)


def server_secrets(settings: dict[str, Any]) -> ServerSecrets | None:
    """The server's secrets, from tornado settings (None when the extension is not loaded)."""
    found = settings.get(SETTING)
    return found if isinstance(found, ServerSecrets) else None


class RedactingFilter(logging.Filter):
    """A log filter that replaces the server's secrets in every record it passes."""

    def __init__(self, secrets: ServerSecrets) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is the logging module's to report
            return True
        redacted = self.secrets.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        # A traceback's text is written by the handler's formatter, after every filter: write it here, redacted
        # (a formatter uses ``exc_text`` when it is set).
        if record.exc_info and not record.exc_text:
            record.exc_text = self.secrets.redact(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = self.secrets.redact(record.stack_info)
        return True
