"""The OpenAI-compatible routes: POST v1/chat/completions and GET v1/models.

A chat request is checked (a JSON object, UTF-8, not absurdly nested, the basic
field types) before anything is forwarded, and every server-held secret in it is
replaced by ``[redacted]``: a key a cell printed, that the agent read back, never
reaches a model provider.
"""

from __future__ import annotations

import json
from typing import Any

from tornado import web

from .discovery import probe
from .json_input import BadInputError, json_type, parse_json_object
from .proxy_handler import _ProxyHandler
from .proxy_target import Target

#: Fields of a chat request whose type the proxy checks (the upstream checks the rest).
_FIELD_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "model": ((str,), "a string"),
    "messages": ((list,), "an array"),
    "stream": ((bool,), "a boolean"),
    "tools": ((list,), "an array"),
}


class ChatCompletionsHandler(_ProxyHandler):
    """POST notebook-agent/v1/chat/completions."""

    # It spends the server's key and drives code the agent runs: "execute", as kernels need.
    auth_execute = ("POST",)

    @web.authenticated
    async def post(self) -> None:
        try:
            payload = _chat_request(self.request.body)
        except BadInputError as error:
            self.send_json_error(400, str(error), "invalid_request_error", param=error.field)
            return
        await self.discovery_settled()
        target = self._select_target()
        if target is None:
            return
        body, model = _with_default_model(self.request.body, payload, self.default_model_for(target))
        scrubbed = target.matcher.redact(body)
        if scrubbed is not body:
            self.log.warning(
                "Notebook Agent: removed a server-held secret from a request to %s before forwarding it",
                target.provider.name or target.provider.public_url,
            )
            body = scrubbed
        # Azure: the deployment in the URL selects the model; the body's "model" is kept
        # as sent (Azure ignores it) and, when it names a listed deployment, picks that one.
        await self._forward("POST", target, target.provider.chat_url(model), body)


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


def _chat_request(body: bytes) -> dict[str, Any]:
    """The request as JSON; raises :class:`BadInputError` for what no model endpoint could take."""
    payload = parse_json_object(body, "The chat request")
    for name, (kinds, what) in _FIELD_TYPES.items():
        value = payload.get(name)
        if value is not None and (not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool))):
            raise BadInputError(f"{name} must be {what}, not {json_type(value)}.", name)
    model = payload.get("model")
    if isinstance(model, str) and (len(model) > 256 or any(ord(c) < 0x20 or c == "\x7f" for c in model)):
        raise BadInputError("model must be a name of at most 256 characters without control characters.", "model")
    for index, message in enumerate(payload.get("messages") or []):
        if not isinstance(message, dict):
            raise BadInputError(f"messages[{index}] must be an object, not {json_type(message)}.", f"messages[{index}]")
    return payload


def _with_default_model(body: bytes, payload: dict[str, Any], model: str) -> tuple[bytes, str | None]:
    """Fill in the default model when the browser sent none; returns the body and its model."""
    if not payload.get("model") and model:
        payload["model"] = model
        return json.dumps(payload).encode(), model
    sent = payload.get("model")
    return body, sent if isinstance(sent, str) else None
