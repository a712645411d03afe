"""MCP tool servers as configured on the Jupyter server, and the secrets their configs hold.

Servers come from ``c.NotebookAgent.mcp_servers`` and, only when the admin set
``c.NotebookAgent.allow_user_mcp_servers = True``, from the user's
``<jupyter config dir>/notebook_agent/mcp.json`` (``{"mcpServers": {name: spec}}``, the
shape other MCP clients use). A spec is either a subprocess speaking stdio
(``command``, ``args``, ``env``, ``cwd``) or a streamable-HTTP endpoint (``url``, ``headers``),
with ``timeout`` (seconds, default 30) and ``auto_approve`` (``true`` or a list of tool names).

The browser never names a command or a URL: it can only pick a configured server by name.
HTTP servers follow the rule of model endpoints: the admin's are reached as configured, and
a user's file may name only URLs the admin listed in ``c.NotebookAgent.allowed_mcp_urls``;
a redirect to another origin is never followed (the SDK's transport follows only same-origin
ones, so headers reach no other host).
``env`` and ``headers`` values are secrets: they go to the subprocess or the endpoint, and
nowhere else (:func:`mcp_secrets` lists them for redaction).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import MIN_SECRET, is_http_url, normalize_base_url, url_secrets

if TYPE_CHECKING:
    from .config import NotebookAgent

#: Server names: letters and digits, single ``-`` or ``_`` between them (never ``__``, the namespace separator).
SERVER_NAME = re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
MAX_SERVER_NAME = 32

#: What a namespaced tool name (``server__tool``) must be for the model APIs.
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEPARATOR = "__"

#: A header name (an HTTP token) and a value that cannot split a header.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
_HEADER_VALUE = re.compile(r"[\x20-\x7e]{0,8192}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")

FIELDS = frozenset({"command", "args", "env", "cwd", "url", "headers", "timeout", "start_timeout", "auto_approve"})
DEFAULT_TIMEOUT = 30.0
#: Starting a server may take longer than a call (``npx`` fetching a package, a slow import).
DEFAULT_START_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0


@dataclass(frozen=True)
class McpServerSpec:
    """One configured MCP server."""

    name: str
    #: ``config`` (the admin's ``mcp_servers``) or ``user`` (the user's mcp.json).
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    start_timeout: float = DEFAULT_START_TIMEOUT
    #: True: every tool; a tuple: those tools; empty: none (every call asks the user).
    auto_approve: bool | tuple[str, ...] = False

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def auto_approves(self, tool: str) -> bool:
        return self.auto_approve is True or (isinstance(self.auto_approve, tuple) and tool in self.auto_approve)

    def secrets(self) -> list[str]:
        return _long([v for _, v in self.env] + header_secrets(dict(self.headers)) + url_secrets(self.url))


def _long(values: list[Any]) -> list[str]:
    """Values of :data:`~.config.MIN_SECRET` characters or more: ``env`` values shorter are configuration
    (not redacted, not kept from kernels); the plain-text :func:`redact` of MCP messages skips short
    values of every kind. Header values count at any length in the server-wide set
    (:func:`mcp_secrets`), where the outbound filter matches short ones only as whole tokens."""
    return [v for v in dict.fromkeys(v.strip() for v in values if isinstance(v, str)) if len(v) >= MIN_SECRET]


def header_secrets(headers: dict[Any, Any]) -> list[Any]:
    """Header values, and the credential alone of ``Bearer …``-style values (a server may echo just that)."""
    values: list[Any] = []
    for value in headers.values():
        values.append(value)
        if isinstance(value, str) and " " in value.strip():
            values.append(value.split()[-1])
    return values


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and "\0" not in v for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(value)


def _pairs(value: Any, what: str, name: re.Pattern[str], val: re.Pattern[str] | None) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object of names to strings")
    pairs = []
    for key, item in value.items():
        if not isinstance(key, str) or not name.fullmatch(key):
            raise ValueError(f"{what}: {str(key)[:40]!r} is not a valid name")
        if not isinstance(item, str) or "\0" in item or (val is not None and not val.fullmatch(item)):
            # Never quote the value: it is a secret.
            raise ValueError(f"{what}: the value of {key} must be a single-line printable string")
        pairs.append((key, item))
    return tuple(pairs)


def _seconds(spec: dict[str, Any], field: str, default: float) -> float:
    value = spec.get(field, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
        raise ValueError(f"{field} must be a number of seconds in (0, {MAX_TIMEOUT:g}]")
    return float(value)


def parse_server(name: Any, spec: Any, source: str) -> McpServerSpec:
    """One server entry; raises ValueError saying what is wrong (never quoting a secret)."""
    if not isinstance(name, str) or len(name) > MAX_SERVER_NAME or not SERVER_NAME.fullmatch(name):
        raise ValueError(f"the name must be 1-{MAX_SERVER_NAME} letters or digits with single '-' or '_' between them")
    if not isinstance(spec, dict):
        raise ValueError("the entry must be an object")
    unknown = sorted(str(k) for k in spec if k not in FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(FIELDS))}")
    command, url = spec.get("command"), spec.get("url")
    if bool(command) == bool(url):
        raise ValueError("give either command (a stdio server) or url (a streamable-HTTP server), not both")
    timeout = _seconds(spec, "timeout", DEFAULT_TIMEOUT)
    start_timeout = _seconds(spec, "start_timeout", DEFAULT_START_TIMEOUT)
    auto = spec.get("auto_approve", False)
    if isinstance(auto, list):
        auto = _strings(auto, "auto_approve")
    elif not isinstance(auto, bool):
        raise ValueError("auto_approve must be true, false or a list of tool names")
    common: dict[str, Any] = {
        "name": name,
        "source": source,
        "timeout": timeout,
        "start_timeout": start_timeout,
        "auto_approve": auto,
    }
    if command:
        if not isinstance(command, str) or "\0" in command or not command.strip():
            raise ValueError("command must be a non-empty string")
        if spec.get("url") is not None or spec.get("headers") is not None:
            raise ValueError("headers belong to url servers")
        cwd = spec.get("cwd") or ""
        if not isinstance(cwd, str) or "\0" in cwd:
            raise ValueError("cwd must be a string")
        return McpServerSpec(
            **common,
            command=command,
            args=_strings(spec.get("args"), "args"),
            env=_pairs(spec.get("env"), "env", _ENV_NAME, None),
            cwd=cwd,
        )
    if not isinstance(url, str) or not is_http_url(url.strip()) or any(c in url for c in "\r\n\t\0 "):
        raise ValueError("url must be an http(s) URL")
    if any(spec.get(k) is not None for k in ("args", "env", "cwd")):
        raise ValueError("args, env and cwd belong to command servers")
    return McpServerSpec(
        **common,
        url=url.strip(),
        headers=_pairs(spec.get("headers"), "headers", _HEADER_NAME, _HEADER_VALUE),
    )


def default_user_file() -> Path:
    from jupyter_core.paths import jupyter_config_dir

    return Path(jupyter_config_dir()) / "notebook_agent" / "mcp.json"


def user_file(config: NotebookAgent) -> Path:
    return Path(config.user_mcp_config) if config.user_mcp_config else default_user_file()


#: The user's file is read whole; a config is small.
MAX_USER_FILE = 256 * 1024


def _read_user_servers(config: NotebookAgent) -> tuple[dict[str, Any], list[str]]:
    path = user_file(config)
    try:
        if path.stat().st_size > MAX_USER_FILE:
            return {}, [f"{path.name}: larger than {MAX_USER_FILE // 1024} KB, ignored"]
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except (OSError, ValueError, RecursionError) as error:
        return {}, [f"{path.name} could not be read ({type(error).__name__}), ignored"]
    servers = data.get("mcpServers", data.get("mcp_servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return {}, [f'{path.name}: expected {{"mcpServers": {{name: server}}}}, ignored']
    return servers, []


@dataclass
class McpServerSet:
    """The servers in effect now, and the entries that were skipped (with why)."""

    servers: dict[str, McpServerSpec]
    errors: list[str]
    #: Whether the user's mcp.json is read at all.
    user_servers_allowed: bool


def resolve_mcp_servers(config: NotebookAgent) -> McpServerSet:
    """The admin's servers, then (when allowed) the user's; an admin server wins a name clash."""
    servers: dict[str, McpServerSpec] = {}
    errors: list[str] = []
    sources: list[tuple[str, dict[str, Any]]] = [("config", dict(config.mcp_servers or {}))]
    if config.allow_user_mcp_servers:
        user, problems = _read_user_servers(config)
        errors += problems
        sources.append(("user", user))
    allowed_urls = {normalize_base_url(u) for u in config.allowed_mcp_urls or [] if isinstance(u, str)}
    for source, entries in sources:
        for name, spec in entries.items():
            label = str(name)[:40]
            if name in servers:
                errors.append(f"MCP server {label!r} in the user's file ignored: the server's config defines it")
                continue
            try:
                parsed = parse_server(name, spec, source)
            except ValueError as error:
                errors.append(f"MCP server {label!r} ignored: {error}")
                continue
            if source == "user" and parsed.url and normalize_base_url(parsed.url) not in allowed_urls:
                # Never quote the URL: it may hold a credential.
                errors.append(
                    f"MCP server {label!r} in the user's file ignored: its url is not one of the server's "
                    "c.NotebookAgent.allowed_mcp_urls (ask the server's admin to add it)"
                )
                continue
            servers[name] = parsed
    return McpServerSet(servers, errors, bool(config.allow_user_mcp_servers))


def _raw_secrets(spec: Any) -> list[Any]:
    if not isinstance(spec, dict):
        return []
    values: list[Any] = []
    if isinstance(spec.get("env"), dict):
        values += _long(list(spec["env"].values()))
    if isinstance(spec.get("headers"), dict):
        values += header_secrets(spec["headers"])
    values += url_secrets(spec.get("url")) if isinstance(spec.get("url"), str) else []
    return values


def mcp_secrets(config: NotebookAgent) -> list[str]:
    """Every header value, URL credential and env value (see :data:`MIN_SECRET`) of every MCP
    entry, valid or not.

    For the server-wide redaction: whatever an entry holds is in the config (or the user's
    file) all the same, whether or not it parsed.
    """
    values: list[Any] = []
    for spec in (config.mcp_servers or {}).values():
        values += _raw_secrets(spec)
    if config.allow_user_mcp_servers:
        for spec in _read_user_servers(config)[0].values():
            values += _raw_secrets(spec)
    return [v for v in dict.fromkeys(v.strip() for v in values if isinstance(v, str)) if v]


def mcp_secret_variables(config: NotebookAgent, environ: dict[str, str]) -> set[str]:
    """Names of the variables of ``environ`` that hold an MCP secret (a config that read its
    header or env values from the server's environment): kernels start without them. Short
    values (``1``) are left alone: a kernel would lose every variable that happens to equal one."""
    secrets = {s for s in mcp_secrets(config) if len(s) >= MIN_SECRET}
    return {name for name, value in environ.items() if value.strip() in secrets} if secrets else set()


def namespaced(server: str, tool: str) -> str | None:
    """``server__tool``, or None when that is not a name the model APIs accept."""
    name = f"{server}{SEPARATOR}{tool}"
    return name if TOOL_NAME.fullmatch(name) else None


def redact(text: str, secrets: list[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text
