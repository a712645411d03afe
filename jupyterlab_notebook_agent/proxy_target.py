"""The provider a proxied request goes to, and scrubbing its secrets from text.

Anything the proxy passes on or logs about an upstream (error bodies, error
messages, redirect locations, URLs) goes through ``Target.redact`` first, so a
key never reaches the browser or the server log.
"""

from __future__ import annotations

from dataclasses import dataclass

from .providers import Provider


@dataclass(frozen=True)
class Target:
    """The provider a request goes to, with the key resolved for it."""

    provider: Provider
    key: str

    def redact(self, text: str) -> str:
        for secret in self.provider.secrets(self.key):
            text = text.replace(secret, "[redacted]")
        return text
