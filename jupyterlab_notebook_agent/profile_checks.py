"""Checks of a provider profile's header fields and base URL (see providers.py)."""

from __future__ import annotations

import re
from typing import Any

from .config import url_secrets

#: An HTTP header name (RFC 9110 token) and a variable name.
HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def header_fields(profile: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The ``headers`` field: RFC 9110 names, printable ASCII values (HTTP headers carry nothing else)."""
    headers = profile.get("headers") or {}
    if not isinstance(headers, dict):
        raise ValueError("headers must be a dict of header names to single-line strings")
    for name, value in headers.items():
        if not isinstance(name, str) or not HEADER_NAME.fullmatch(name.strip()):
            raise ValueError(f"headers: {name!r} is not an HTTP header name")
        if not isinstance(value, str) or not _header_value_ok(value.strip()):
            raise ValueError(
                f"headers: the value of {name.strip()} must be a single-line string of printable ASCII "
                "(HTTP headers cannot carry other characters)"
            )
    return tuple((k.strip(), v.strip()) for k, v in headers.items())


def headers_env_fields(profile: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The ``headers_env`` field: header names to environment variable names."""
    headers = profile.get("headers_env") or {}
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and HEADER_NAME.fullmatch(k.strip()) and isinstance(v, str) and ENV_NAME.fullmatch(v.strip())
        for k, v in headers.items()
    ):
        raise ValueError("headers_env must be a dict of header names to environment variable names")
    return tuple((k.strip(), v.strip()) for k, v in headers.items())


def _header_value_ok(value: str) -> bool:
    return all(" " <= c <= "~" or c == "\t" for c in value)


def url_warnings(what: str, url: str) -> list[str]:
    """What an admin should know about ``url``: credentials in it, a query string."""
    warnings = []
    parts = url_secrets(url, parts=True)
    if parts.get("userinfo"):
        warnings.append(
            f"{what} has credentials in it (user:password@): they are never sent upstream (the proxy connects to "
            "the host only) and are treated as secrets; put a key in api_key, api_key_env or headers instead"
        )
    if parts.get("query"):
        warnings.append(
            f"{what} has a query string: it is kept after the route (…/chat/completions?…), and its values of 8 "
            "characters or more are treated as secrets"
        )
    return warnings
