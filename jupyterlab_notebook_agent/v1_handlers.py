"""The OpenAI-compatible routes: POST v1/chat/completions, POST v1/completions and GET v1/models.

A request is checked (a JSON object, UTF-8, not absurdly nested, the basic field
types of its route) before anything is forwarded, and every server-held secret in
it is replaced by ``[redacted]``: a key a cell printed, that the agent read back (or
that sits in the code around the cursor), never reaches a model provider.

The two POST routes differ only in their field checks and the upstream route
(:class:`_ModelRequestHandler`): the key, the provider choice, the allow-list,
the default model, the redaction and the outbound filter are the same code.
"""

from __future__ import annotations

import json
from typing import Any

from tornado import web

from .discovery import probe
from .json_input import BadInputError, json_type, parse_json_object
from .providers import Provider
from .proxy_handler import _ProxyHandler
from .proxy_target import Target

#: A field's accepted Python types and how a message names them.
FieldTypes = dict[str, tuple[tuple[type, ...], str]]

#: Fields of a chat request whose type the proxy checks (the upstream checks the rest).
_FIELD_TYPES: FieldTypes = {
    "model": ((str,), "a string"),
    "messages": ((list,), "an array"),
    "stream": ((bool,), "a boolean"),
    "tools": ((list,), "an array"),
}

#: Fields of a completion request whose type the proxy checks (``prompt``, ``max_tokens``
#: and ``stop`` have checks of their own in :func:`_completion_request`).
_COMPLETION_FIELD_TYPES: FieldTypes = {
    "model": ((str,), "a string"),
    "suffix": ((str,), "a string"),
    "stream": ((bool,), "a boolean"),
    "stream_options": ((dict,), "an object"),
    "temperature": ((int, float), "a number"),
}

#: The most tokens a completion may ask for: inline completions are short, and the key is the server's.
MAX_COMPLETION_TOKENS = 4096

#: The most stop sequences a completion may send (OpenAI's own limit).
MAX_STOP_SEQUENCES = 4


class _ModelRequestHandler(_ProxyHandler):
    """A POST forwarded to the model: checked, given the key and default model, redacted, forwarded.

    Subclasses say only what differs: :meth:`checked` (the route's field checks) and
    :meth:`upstream_url` (where the provider serves the route).
    """

    # It spends the server's key and drives code the agent runs: "execute", as kernels need.
    auth_execute = ("POST",)

    def checked(self, body: bytes) -> dict[str, Any]:
        """The request as JSON; raises :class:`BadInputError` for what no model endpoint could take."""
        raise NotImplementedError

    def upstream_url(self, provider: Provider, model: str | None) -> str:
        """Where ``provider`` serves this route, for a request to ``model``."""
        raise NotImplementedError

    @web.authenticated
    async def post(self) -> None:
        try:
            payload = self.checked(self.request.body)
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
        await self._forward("POST", target, self.upstream_url(target.provider, model), body)


class ChatCompletionsHandler(_ModelRequestHandler):
    """POST notebook-agent/v1/chat/completions."""

    def checked(self, body: bytes) -> dict[str, Any]:
        return _chat_request(body)

    def upstream_url(self, provider: Provider, model: str | None) -> str:
        return provider.chat_url(model)


class CompletionsHandler(_ModelRequestHandler):
    """POST notebook-agent/v1/completions: the legacy completions API (prompt and suffix), for inline completion."""

    def checked(self, body: bytes) -> dict[str, Any]:
        return _completion_request(body)

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


def _check_fields(payload: dict[str, Any], types: FieldTypes) -> None:
    """Each field of ``types`` that is present and not null has its type; the model is a plain name."""
    for name, (kinds, what) in types.items():
        value = payload.get(name)
        if value is not None and (not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool))):
            raise BadInputError(f"{name} must be {what}, not {json_type(value)}.", name)
    model = payload.get("model")
    if isinstance(model, str) and (len(model) > 256 or any(ord(c) < 0x20 or c == "\x7f" for c in model)):
        raise BadInputError("model must be a name of at most 256 characters without control characters.", "model")


def _chat_request(body: bytes) -> dict[str, Any]:
    """The chat request as JSON; raises :class:`BadInputError` for what no model endpoint could take."""
    payload = parse_json_object(body, "The chat request")
    _check_fields(payload, _FIELD_TYPES)
    for index, message in enumerate(payload.get("messages") or []):
        if not isinstance(message, dict):
            raise BadInputError(f"messages[{index}] must be an object, not {json_type(message)}.", f"messages[{index}]")
    return payload


def _completion_request(body: bytes) -> dict[str, Any]:
    """The completion request as JSON; raises :class:`BadInputError` for what the route does not take.

    ``prompt`` must be one string: the token arrays and lists of prompts the OpenAI API also
    accepts are refused (the redaction reads text, and inline completion sends text).
    """
    payload = parse_json_object(body, "The completion request")
    prompt = payload.get("prompt")
    if prompt is None:
        raise BadInputError("prompt is required: the text before the cursor, as a string.", "prompt")
    if isinstance(prompt, list):
        raise BadInputError(
            "prompt must be a string: token arrays and lists of prompts are not supported by this route.", "prompt"
        )
    if not isinstance(prompt, str):
        raise BadInputError(f"prompt must be a string, not {json_type(prompt)}.", "prompt")
    _check_fields(payload, _COMPLETION_FIELD_TYPES)
    max_tokens = payload.get("max_tokens")
    if max_tokens is not None:
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise BadInputError(f"max_tokens must be a positive integer, not {_shown(max_tokens)}.", "max_tokens")
        if max_tokens > MAX_COMPLETION_TOKENS:
            raise BadInputError(
                f"max_tokens must be at most {MAX_COMPLETION_TOKENS} on this route (inline completions are short), "
                f"not {max_tokens}.",
                "max_tokens",
            )
    stop = payload.get("stop")
    if stop is not None and not isinstance(stop, str):
        if not isinstance(stop, list):
            raise BadInputError(f"stop must be a string or an array of strings, not {json_type(stop)}.", "stop")
        if len(stop) > MAX_STOP_SEQUENCES:
            raise BadInputError(f"stop may hold at most {MAX_STOP_SEQUENCES} strings, not {len(stop)}.", "stop")
        for index, item in enumerate(stop):
            if not isinstance(item, str):
                raise BadInputError(f"stop[{index}] must be a string, not {json_type(item)}.", "stop")
    return payload


def _shown(value: Any) -> str:
    """A number as it was sent, anything else by its JSON type (for messages)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)[:40]
    return json_type(value)


def _with_default_model(body: bytes, payload: dict[str, Any], model: str) -> tuple[bytes, str | None]:
    """Fill in the default model when the browser sent none; returns the body and its model."""
    if not payload.get("model") and model:
        payload["model"] = model
        return json.dumps(payload).encode(), model
    sent = payload.get("model")
    return body, sent if isinstance(sent, str) else None
