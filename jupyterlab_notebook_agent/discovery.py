"""Local model servers found without configuration: Ollama, LM Studio, llama.cpp, vLLM.

With no endpoint configured, the server extension asks the usual ports on
127.0.0.1 (``c.NotebookAgent.discover_ports``) for an OpenAI model list
(``GET /v1/models``) in the background, with a short timeout per port, and
offers each server that answers with at least one model as a provider named
after it (``ollama``, ``lm-studio``, ``llama.cpp``, ``vllm``, else
``local-<port>``). Nothing waits for the look at start-up; a config request
that arrives while it is under way waits for it (a second at most), and the
sidebar asks for a fresh look when its provider picker opens.

A found server becomes a proxy target the same way a configured one does: a
provider made here, on the server, from a loopback port in the admin's list,
picked by the browser by name. A server another user of the machine runs is
not offered (port_owner.py), and the port's owner is checked again before each
request is forwarded to a found server, so a server another user starts on the
port after the found one stopped receives nothing (the proxy answers 403 and
looks again). The browser never supplies an address, a
found provider never gets a key, and redirects are not followed (the proxy
never follows them). A model name with a control character (or a line
separator, or a bidi control that would show it as another name) is dropped, as
a chat request naming such a model is refused; a server left with no name is not
offered. ``c.NotebookAgent.discover_local_servers = False`` turns all of this off.
"""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable

from tornado.httpclient import AsyncHTTPClient
from tornado.ioloop import IOLoop

from .port_owner import trusted_owner
from .providers import Provider, ProviderSet

#: The host looked at: loopback only, never the network.
LOOPBACK = "127.0.0.1"

#: What each usual port serves, by default.
KNOWN_PORTS = {11434: "Ollama", 1234: "LM Studio", 8080: "llama.cpp", 8000: "vLLM"}

#: ``owned_by`` values that say which server answered (more telling than the port:
#: llama-cpp-python listens on 8000 by default, as vLLM does).
KNOWN_OWNERS = {"vllm": "vLLM", "llamacpp": "llama.cpp", "me": "llama.cpp"}

#: Provider names of the known servers (names travel in a header: keep them plain).
NAMES = {"Ollama": "ollama", "LM Studio": "lm-studio", "llama.cpp": "llama.cpp", "vLLM": "vllm"}

#: A model list longer than this is not a local server's (or not a model list).
MAX_PROBE_BYTES = 1024 * 1024
MAX_MODELS = 500
MAX_MODEL_ID = 256

#: Where the running discovery lives in the web app's settings.
SETTINGS_KEY = "notebook_agent_discovery"


@dataclass(frozen=True)
class FoundServer:
    """One model server that answered on loopback, and the provider made for it."""

    port: int
    label: str
    models: tuple[str, ...]
    provider: Provider

    def describe(self) -> dict[str, Any]:
        return {
            "provider": self.provider.name,
            "label": self.label,
            "port": self.port,
            "base_url": self.provider.base_url,
            "models": list(self.models),
        }


#: Characters no model name offered to the browser may hold: bidi controls (they show a name
#: as another), besides the control characters and line separators (Unicode categories below).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
UNSHOWN_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def plain_name(name: str) -> bool:
    """True when ``name`` has no control character (C0, DEL, C1), line separator or bidi control."""
    return not any(c in BIDI_CONTROLS or unicodedata.category(c) in UNSHOWN_CATEGORIES for c in name)


def parse_model_list(body: bytes) -> tuple[list[str], list[str]] | None:
    """The model ids and ``owned_by`` values of an OpenAI ``/v1/models`` answer, or None if it is not one.

    Ids with control characters are dropped (the rest of the list is kept).
    """
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or len(data) > MAX_MODELS:
        return None
    ids: list[str] = []
    owners: list[str] = []
    for item in data:
        model = item.get("id") if isinstance(item, dict) else None
        if not isinstance(model, str) or not model.strip() or len(model) > MAX_MODEL_ID:
            return None
        if not plain_name(model.strip()):
            continue  # relayed to the browser and back in chat requests, which refuse them
        ids.append(model.strip())
        owner = item.get("owned_by")
        if isinstance(owner, str):
            owners.append(owner)
    return list(dict.fromkeys(ids)), owners


async def probe(port: int, timeout: float) -> tuple[list[str], list[str]] | None:
    """Ask ``127.0.0.1:port`` for its models; None when nothing OpenAI-compatible answers in time."""
    client = AsyncHTTPClient(force_instance=True, max_body_size=MAX_PROBE_BYTES)
    try:
        response = await client.fetch(
            f"http://{LOOPBACK}:{port}/v1/models",
            headers={"Accept": "application/json"},
            connect_timeout=timeout,
            request_timeout=timeout,
            follow_redirects=False,
            raise_error=False,
        )
    except Exception:  # noqa: BLE001 - refused, reset, timed out, too large: not a model server
        return None
    finally:
        client.close()
    if response.code != 200 or response.body is None:
        return None
    return parse_model_list(response.body)


def label_for(port: int, owners: Iterable[str]) -> str:
    """What the server is, as the sidebar names it."""
    for owner in owners:
        if owner.lower() in KNOWN_OWNERS:
            return KNOWN_OWNERS[owner.lower()]
    return KNOWN_PORTS.get(port, f"an OpenAI-compatible server on port {port}")


class LocalDiscovery:
    """The model servers found on loopback, looked for again on request.

    ``needed`` says whether to look at all (no endpoint is configured); it is
    asked at each look, so an endpoint configured later stops the looking.
    """

    def __init__(
        self,
        ports: Iterable[int],
        timeout: float,
        needed: Callable[[], bool],
        log: logging.Logger | None = None,
    ) -> None:
        self.ports = tuple(dict.fromkeys(int(p) for p in ports))
        self.timeout = timeout
        self._needed = needed
        self._log = log or logging.getLogger(__name__)
        self._found: tuple[FoundServer, ...] = ()
        self._scan: asyncio.Future[tuple[FoundServer, ...]] | None = None
        #: Looks completed so far (tests wait on it).
        self.scans = 0
        #: Ports passed over because another user runs the server (logged once).
        self._refused: set[int] = set()

    @property
    def found(self) -> tuple[FoundServer, ...]:
        return self._found

    @property
    def scanning(self) -> bool:
        return self._scan is not None and not self._scan.done()

    def start(self) -> None:
        """Look once the server's event loop runs; start-up does not wait for it."""
        IOLoop.current().add_callback(self.scan)

    async def scan(self) -> tuple[FoundServer, ...]:
        """Look now (or join the look under way) and return what answered."""
        if self._scan is None or self._scan.done():
            self._scan = asyncio.ensure_future(self._look())
        return await asyncio.shield(self._scan)

    async def settled(self) -> None:
        """Wait for the look under way (bounded by the probe timeout); look first if none was made yet."""
        if self._scan is None or self.scanning:
            await self.scan()

    async def _look(self) -> tuple[FoundServer, ...]:
        found: list[FoundServer] = []
        if self._needed() and self.ports:
            answers = await asyncio.gather(*(probe(port, self.timeout) for port in self.ports))
            names: set[str] = set()
            for port, answer in zip(self.ports, answers):
                if answer is None or not answer[0]:
                    continue
                trusted, why = trusted_owner(port)
                if not trusted:
                    # Another user's server could read everything sent to it and steer the agent.
                    if port not in self._refused:
                        self._log.warning("Notebook Agent: not offering the model server on port %d: %s", port, why)
                    self._refused.add(port)
                    continue
                models, owners = answer
                label = label_for(port, owners)
                name = NAMES.get(label, f"local-{port}")
                if name in names:
                    name = f"{name}-{port}"
                names.add(name)
                found.append(FoundServer(port, label, tuple(models), _provider(name, port, models[0])))
        result = tuple(found)
        if [s.describe() for s in result] != [s.describe() for s in self._found]:
            for server in result:
                self._log.info(
                    "Notebook Agent: found %s at %s (%d model%s), offered as provider %r",
                    server.label,
                    server.provider.base_url,
                    len(server.models),
                    "" if len(server.models) == 1 else "s",
                    server.provider.name,
                )
            if not result:
                self._log.info("Notebook Agent: no local model server answers on ports %s", _ports(self.ports))
        self._found = result
        self.scans += 1
        return result

    def describe(self) -> dict[str, Any]:
        """What the browser may know: which servers were found (addresses are loopback ports)."""
        return {"enabled": True, "scanning": self.scanning, "servers": [s.describe() for s in self._found]}


def _provider(name: str, port: int, default_model: str) -> Provider:
    # No models on the profile: GET /v1/models goes to the server itself, so the
    # picker lists what it has now. keyed=False: a found server never gets a key.
    return Provider(
        name=name,
        kind="openai-compatible",
        base_url=f"http://{LOOPBACK}:{port}/v1",
        default_model=default_model,
        keyed=False,
        loopback_port=port,
    )


def _ports(ports: Iterable[int]) -> str:
    return ", ".join(str(p) for p in ports) or "(none)"


def with_found(providers: ProviderSet, discovery: LocalDiscovery | None) -> ProviderSet:
    """The configured providers, or, when there are none, the servers found on loopback."""
    if discovery is None or providers.providers or not discovery.found:
        return providers
    found = {server.provider.name: server.provider for server in discovery.found}
    return ProviderSet(providers=found, default=next(iter(found)), errors=providers.errors)


def describe(discovery: LocalDiscovery | None) -> dict[str, Any]:
    """The ``discovery`` part of the config route's answer."""
    return discovery.describe() if discovery is not None else {"enabled": False, "scanning": False, "servers": []}
