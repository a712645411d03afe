"""Provider profiles: the model endpoints an admin configured, and where each key comes from.

A provider is one named endpoint (OpenAI, Azure OpenAI, or any OpenAI-compatible
server) with its own key. Profiles are read from ``c.NotebookAgent.providers``;
the legacy single endpoint (``c.NotebookAgent.base_url`` / ``OPENAI_BASE_URL``)
is the implicit provider ``"default"``, so existing setups keep working.

Everything here is re-resolved per request (a handful of dict lookups), so a
key exported into the server's environment or stored by the user applies at once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from .config import is_http_url, normalize_base_url, public_url, split_query, url_secrets
from .key_store import KeyStore, is_valid_key
from .profile_checks import header_fields, headers_env_fields, url_warnings

if TYPE_CHECKING:
    from .config import NotebookAgent

KINDS = ("openai", "openai-compatible", "azure")

#: The implicit provider made from the legacy base_url / OPENAI_BASE_URL settings.
LEGACY_NAME = "default"

OPENAI_BASE_URL = "https://api.openai.com/v1"
AZURE_API_VERSION = "2024-10-21"

#: Key variables used when a profile names none (the official SDKs read the same ones).
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "azure": "AZURE_OPENAI_API_KEY", "openai-compatible": ""}

PROFILE_FIELDS = frozenset(
    "kind base_url endpoint deployment api_version api_key api_key_env models default_model headers headers_env".split()
)

#: Provider names travel in a URL path and a header: keep them plain (always ``fullmatch``).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class Provider:
    """One model endpoint the proxy may forward to, with the sources of its key."""

    name: str
    kind: str
    #: OpenAI kinds: the base URL (``…/v1``). Azure: the resource endpoint (``https://NAME.openai.azure.com``).
    base_url: str
    api_key: str = ""
    api_key_env: str = ""
    models: tuple[str, ...] = ()
    default_model: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    #: Extra headers whose values are read from the environment per request (out of the logged config).
    headers_env: tuple[tuple[str, str], ...] = ()
    deployment: str = ""
    api_version: str = ""
    #: False for an ``allowed_base_urls`` endpoint picked by URL: it never gets a key.
    keyed: bool = True
    #: A server found on this loopback port (discovery.py): who listens there is checked before each forward.
    loopback_port: int | None = None
    implicit: bool = field(default=False, compare=False)

    @property
    def is_azure(self) -> bool:
        return self.kind == "azure"

    def deployments(self) -> tuple[str, ...]:
        """Azure: the configured deployment first, then any further ones listed in ``models``."""
        return tuple(dict.fromkeys((self.deployment, *self.models)))

    def model_ids(self) -> tuple[str, ...]:
        """What GET /v1/models answers without asking upstream (empty: forward upstream)."""
        return self.deployments() if self.is_azure else self.models

    def chat_url(self, model: str | None) -> str:
        """Where chat completions go (``…/chat/completions``)."""
        return self._model_route("/chat/completions", model)

    def completions_url(self, model: str | None) -> str:
        """Where (legacy, prompt-and-suffix) completions go (``…/completions``)."""
        return self._model_route("/completions", model)

    def _model_route(self, path: str, model: str | None) -> str:
        """``path`` for a request to ``model``.

        Azure addresses a *deployment* in the URL; a request whose ``model`` names
        one of this provider's deployments goes to it, any other to ``deployment``.
        """
        if not self.is_azure:
            return self._route(path)
        deployment = model if model and model in self.deployments() else self.deployment
        return self._route(
            f"/openai/deployments/{quote(deployment, safe='')}{path}",
            f"api-version={quote(self.api_version, safe='')}",
        )

    def models_url(self) -> str:
        return self._route("/models")

    def _route(self, path: str, query: str = "") -> str:
        """``path`` under the base URL, before any query string the base URL has."""
        base, own = split_query(self.base_url)
        both = "&".join(q for q in (own, query) if q)
        return base + path + (f"?{both}" if both else "")

    @property
    def public_url(self) -> str:
        """The base URL as the browser and the log may see it: credentials and query values redacted."""
        return public_url(self.base_url)

    def header_values(self) -> list[tuple[str, str]]:
        """The extra headers, the ``headers_env`` ones read from the environment now (unset ones left out)."""
        from_env = [(name, os.environ.get(var, "").strip()) for name, var in self.headers_env]
        return [*self.headers, *((name, value) for name, value in from_env if value)]

    def upstream_headers(self, key: str) -> dict[str, str]:
        """The profile's extra headers plus the key, in the header this kind expects."""
        headers = dict(self.header_values())
        if key:
            if self.is_azure:
                headers["api-key"] = key
            else:
                headers["Authorization"] = f"Bearer {key}"
        return headers

    def secrets(self, key: str) -> list[str]:
        """This provider's secrets: the key, every extra header value, and credentials in its URL."""
        values = [key, *(value for _, value in self.header_values()), *url_secrets(self.base_url)]
        return [v for v in dict.fromkeys(values) if v]

    def resolve_key(self, store: KeyStore | None) -> tuple[str, str | None]:
        """The key and where it came from: ``"user"``, ``"config"``, ``"env"``, or ``("", None)``.

        Precedence: a key the user stored beats the admin's config, which beats the
        environment — the user's own key is the most specific choice, and an admin
        who wants to forbid that sets ``allow_user_keys = False`` (``store`` is None).
        """
        if not self.keyed:
            return "", None
        if store is not None:
            stored = store.get(self.name)
            if stored:
                return stored, "user"
        if self.api_key:
            return self.api_key, "config"
        if self.api_key_env:
            value = os.environ.get(self.api_key_env, "")
            if value:
                return value, "env"
        return "", None

    @property
    def takes_key(self) -> bool:
        """Whether the sidebar offers "Set API key…": not for a key-less local endpoint.

        A loopback endpoint (Ollama, llama.cpp, LM Studio on this machine) configured without
        ``api_key`` or ``api_key_env`` is taken as key-less; naming an ``api_key_env`` says it
        takes one. The endpoint of ``OPENAI_BASE_URL`` reads ``OPENAI_API_KEY`` by default, which
        says nothing: on loopback with no key set, it is key-less too (seen in the walk: "Set API
        key…" beside llama-server). Every other keyed endpoint takes one.
        """
        if not self.keyed:
            return False
        if self.api_key or (self.api_key_env and not self.implicit):
            return True
        host = (urlsplit(self.base_url).hostname or "").lower()
        return not (host == "localhost" or host == "::1" or host.startswith("127."))

    def describe(self, store: KeyStore | None) -> dict[str, Any]:
        """What the browser may know about this provider: never a key, never the extra headers."""
        key, source = self.resolve_key(store)
        info: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "base_url": self.public_url,
            "models": list(self.model_ids()),
            "default_model": self.default_model or None,
            "has_key": bool(key),
            "key_source": source,
            "takes_key": self.takes_key,
        }
        if self.is_azure:
            info.update(endpoint=self.public_url, deployment=self.deployment, api_version=self.api_version)
        return info


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{what} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _text(profile: dict[str, Any], name: str, default: str = "") -> str:
    value = profile.get(name, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value.strip()


def parse_profile(name: str, profile: Any) -> Provider:
    """One entry of ``c.NotebookAgent.providers``; raises ValueError saying what is wrong."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError("the name must be 1-64 letters, digits, '.', '_' or '-'")
    if not isinstance(profile, dict):
        raise ValueError("the profile must be a dict")
    unknown = sorted(set(profile) - PROFILE_FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(PROFILE_FIELDS))}")
    kind = _text(profile, "kind", "openai-compatible")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    headers = header_fields(profile)
    headers_env = headers_env_fields(profile)
    api_key = _text(profile, "api_key")
    if api_key and not is_valid_key(api_key):
        raise ValueError("api_key must be printable ASCII without spaces (HTTP headers cannot carry other characters)")
    models = _strings(profile.get("models"), "models")
    common: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "api_key": api_key,
        "api_key_env": _text(profile, "api_key_env", DEFAULT_KEY_ENV[kind]),
        "models": models,
        "headers": headers,
        "headers_env": headers_env,
    }
    if kind == "azure":
        endpoint = normalize_base_url(_text(profile, "endpoint") or _text(profile, "base_url"))
        if endpoint.endswith("/openai"):
            endpoint = endpoint[: -len("/openai")]
        if not is_http_url(endpoint):
            raise ValueError("azure needs endpoint, e.g. https://NAME.openai.azure.com")
        deployment = _text(profile, "deployment")
        if not deployment:
            raise ValueError("azure needs deployment (the deployment name, which selects the model)")
        return Provider(
            **common,
            base_url=endpoint,
            deployment=deployment,
            api_version=_text(profile, "api_version", AZURE_API_VERSION) or AZURE_API_VERSION,
            default_model=_text(profile, "default_model") or deployment,
        )
    base_url = normalize_base_url(_text(profile, "base_url", OPENAI_BASE_URL if kind == "openai" else ""))
    if not is_http_url(base_url):
        raise ValueError("base_url must be an http(s) URL, e.g. http://127.0.0.1:11434/v1")
    default_model = _text(profile, "default_model") or next(iter(models), "")
    return Provider(**common, base_url=base_url, default_model=default_model)


def legacy_provider(config: NotebookAgent) -> Provider | None:
    """The single endpoint of earlier releases (base_url/api_key/model traits, OPENAI_* variables)."""
    base_url = normalize_base_url(config.base_url or os.environ.get("OPENAI_BASE_URL", ""))
    if not base_url:
        return None
    return Provider(
        name=LEGACY_NAME,
        kind="openai-compatible",
        base_url=base_url,
        api_key=config.api_key,
        api_key_env="OPENAI_API_KEY",
        default_model=config.model or os.environ.get("NOTEBOOK_AGENT_MODEL", ""),
        implicit=True,
    )


def url_only_provider(base_url: str) -> Provider:
    """An ``allowed_base_urls`` endpoint selected by URL: forwarded to, but never given a key."""
    return Provider(name="", kind="openai-compatible", base_url=base_url, keyed=False)


@dataclass
class ProviderSet:
    """The providers in effect right now, the default one, and profiles that were skipped."""

    providers: dict[str, Provider]
    default: str | None
    errors: list[str]
    #: Things an admin should know that do not stop a provider (credentials or a query in a URL).
    warnings: list[str] = field(default_factory=list)

    def default_provider(self) -> Provider | None:
        return self.providers.get(self.default) if self.default else None


def resolve_providers(config: NotebookAgent) -> ProviderSet:
    """Build the providers from the config and environment.

    The default is ``default_provider`` if it names a provider; otherwise the
    legacy endpoint when one is set (so OPENAI_BASE_URL keeps meaning what it
    did), otherwise the first configured profile.
    """
    providers: dict[str, Provider] = {}
    errors: list[str] = []
    for name, profile in (config.providers or {}).items():
        try:
            providers[str(name)] = parse_profile(str(name), profile)
        except ValueError as error:
            errors.append(f"provider {name!r} ignored: {error}")
    legacy = legacy_provider(config)
    if legacy is not None and LEGACY_NAME not in providers:
        providers[LEGACY_NAME] = legacy
    wanted = config.default_provider.strip()
    if wanted and wanted not in providers:
        errors.append(f"default_provider {wanted!r} is not a provider; known: {', '.join(providers) or 'none'}")
        wanted = ""
    if not wanted and legacy is not None:
        wanted = LEGACY_NAME
    if not wanted and providers:
        wanted = next(iter(providers))
    warnings = [w for p in providers.values() for w in url_warnings(f"provider {p.name!r}: the base URL", p.base_url)]
    for url in config.allowed_base_urls:
        warnings += url_warnings(f"allowed_base_urls entry {public_url(url)}", url)
    return ProviderSet(providers=providers, default=wanted or None, errors=errors, warnings=warnings)
