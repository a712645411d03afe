"""The provider a proxied request goes to, and scrubbing secrets from text.

Anything the proxy passes on or logs about an upstream (error bodies, error
messages, redirect locations, URLs) goes through ``Target.redact`` first, so a
key never reaches the browser or the server log. The matcher holds every secret
the server knows (``server_secrets.py``), not only this provider's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .providers import Provider
from .redaction import SecretMatcher, matcher_for


@dataclass(frozen=True)
class Target:
    """The provider a request goes to, with the key resolved for it and the secrets to scrub."""

    provider: Provider
    key: str
    matcher: SecretMatcher = field(default_factory=lambda: matcher_for(()))

    @classmethod
    def make(cls, provider: Provider, key: str, server: SecretMatcher) -> Target:
        """A target whose matcher holds the server's secrets and this provider's own."""
        return cls(provider, key, matcher_for((*server.secrets, *provider.secrets(key))))

    def redact(self, text: str) -> str:
        return self.matcher.redact_text(text)
