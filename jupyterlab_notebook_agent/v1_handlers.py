"""The OpenAI-compatible routes: POST v1/chat/completions, POST v1/completions and GET v1/models.

A request is checked, given the default model and scrubbed of every server-held secret
before anything is forwarded (``model_requests.py``). Its body may be at most the route's
cap (``max_request_bytes``, ``max_completion_request_bytes``): a larger one is a 413,
refused before it is parsed (tornado has read it by then). A body over 1 MiB is prepared in a worker process
(``request_worker.py``), so that parsing and scanning it never holds the event loop;
such a body is checked after the provider is chosen (a smaller one before).

The two POST routes differ only in their field checks, their cap and the upstream route
(:class:`_ModelRequestHandler`): the key, the provider choice, the allow-list,
the default model, the redaction and the outbound filter are the same code.
"""

from __future__ import annotations

import json

from tornado import web

from .discovery import probe
from .json_input import BadInputError
from .model_requests import CHAT, COMPLETION, MAX_COMPLETION_TOKENS, Prepared, checked, ready
from .providers import Provider
from .proxy_handler import _ProxyHandler
from .proxy_target import Target
from .request_worker import OFF_LOOP_BYTES, prepare_off_loop

__all__ = ["MAX_COMPLETION_TOKENS", "ChatCompletionsHandler", "CompletionsHandler", "ModelsHandler"]


class _ModelRequestHandler(_ProxyHandler):
    """A POST forwarded to the model: checked, given the key and default model, redacted, forwarded.

    Subclasses say only what differs: :attr:`route` (its field checks), :meth:`max_body` (its cap) and
    :meth:`upstream_url` (where the provider serves the route).
    """

    # It spends the server's key and drives code the agent runs: "execute", as kernels need.
    auth_execute = ("POST",)

    #: The route's name for :mod:`.model_requests`.
    route = CHAT

    def max_body(self) -> int:
        """The largest body the route takes (its setting)."""
        raise NotImplementedError

    def upstream_url(self, provider: Provider, model: str | None) -> str:
        """Where ``provider`` serves this route, for a request to ``model``."""
        raise NotImplementedError

    @web.authenticated
    async def post(self) -> None:
        body = self.request.body or b""
        if len(body) > self.max_body():
            self._too_large(len(body))
            return
        if len(body) > OFF_LOOP_BYTES:
            await self._post_large(body)
            return
        try:
            payload = checked(self.route, body)
        except BadInputError as error:
            self.send_json_error(400, str(error), "invalid_request_error", param=error.field)
            return
        await self.discovery_settled()
        target = self._select_target()
        if target is None:
            return
        await self._send(target, ready(self.route, body, payload, self.default_model_for(target), target.matcher))

    async def _post_large(self, body: bytes) -> None:
        """A body over :data:`.request_worker.OFF_LOOP_BYTES`: checked, completed and scrubbed in the worker."""
        await self.discovery_settled()
        target = self._select_target()
        if target is None:
            return
        prepared = await prepare_off_loop(self.route, body, self.default_model_for(target), target.matcher.secrets)
        if prepared.problem is not None:
            self.send_json_error(400, prepared.problem, "invalid_request_error", param=prepared.field)
            return
        await self._send(target, prepared._replace(body=prepared.body or body))

    async def _send(self, target: Target, prepared: Prepared) -> None:
        if prepared.redacted:
            self.log.warning(
                "Notebook Agent: removed a server-held secret from a request to %s before forwarding it",
                target.provider.name or target.provider.public_url,
            )
        # Azure: the deployment in the URL selects the model; the body's "model" is kept
        # as sent (Azure ignores it) and, when it names a listed deployment, picks that one.
        url = self.upstream_url(target.provider, prepared.model)
        await self._forward("POST", target, url, prepared.body)

    def _too_large(self, size: int) -> None:
        cap = self.max_body()
        setting = "max_request_bytes" if self.route == CHAT else "max_completion_request_bytes"
        self.send_json_error(
            413,
            f"The request body is {_size(size)}; this route takes at most {_size(cap)} "
            f"(c.NotebookAgent.{setting} on the Jupyter server). Send less: fewer or smaller images, "
            "or a shorter context (a smaller context window in the settings).",
            "request_too_large",
        )


class ChatCompletionsHandler(_ModelRequestHandler):
    """POST notebook-agent/v1/chat/completions."""

    route = CHAT

    def max_body(self) -> int:
        return self.agent_config.max_request_bytes

    def upstream_url(self, provider: Provider, model: str | None) -> str:
        return provider.chat_url(model)


class CompletionsHandler(_ModelRequestHandler):
    """POST notebook-agent/v1/completions: the legacy completions API (prompt and suffix), for inline completion."""

    route = COMPLETION

    def max_body(self) -> int:
        return self.agent_config.max_completion_request_bytes

    def upstream_url(self, provider: Provider, model: str | None) -> str:
        return provider.completions_url(model)


class ModelsHandler(_ProxyHandler):
    """GET notebook-agent/v1/models."""

    @web.authenticated
    async def get(self) -> None:
        await self.discovery_settled()
        target = self._select_target()
        if target is None:
            return
        ids = target.provider.model_ids()
        if ids:
            # Configured models (Azure: the deployments) are the answer: Azure's own
            # model list names base models, which are not valid in a deployment URL.
            owner = target.provider.name or "server"
            data = [{"id": i, "object": "model", "created": 0, "owned_by": owner} for i in ids]
            self.finish(json.dumps({"object": "list", "data": data}))
            return
        if target.provider.loopback_port is not None:
            await self._found_server_models(target)
            return
        await self._forward("GET", target, target.provider.models_url(), None)

    async def _found_server_models(self, target: Target) -> None:
        """A server found on loopback: its list as discovery reads it, not its answer as it is.

        Its ids reach the sidebar's picker and come back in chat requests: those with control characters
        are dropped, a list too long or not OpenAI-shaped is refused (discovery.parse_model_list).
        """
        provider = target.provider
        if not self._owner_trusted(provider):
            return
        answer = await probe(provider.loopback_port, self.agent_config.discover_timeout)
        if answer is None:
            self._unreachable(target, None)
            return
        data = [{"id": target.redact(i), "object": "model", "created": 0, "owned_by": "server"} for i in answer[0]]
        self.finish(json.dumps({"object": "list", "data": data}))


def _size(count: int) -> str:
    """A number of bytes as people read it (``1.5 MB``, ``900 KB``)."""
    return f"{count / 2**20:.1f} MB" if count >= 2**20 else f"{max(count // 1024, 1)} KB"
