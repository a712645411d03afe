"""The OpenAI-compatible routes: POST v1/chat/completions and GET v1/models."""

from __future__ import annotations

import json
from typing import Any

from tornado import web

from .proxy_handler import _ProxyHandler


class ChatCompletionsHandler(_ProxyHandler):
    """POST notebook-agent/v1/chat/completions."""

    @web.authenticated
    async def post(self) -> None:
        await self.discovery_settled()
        target = self._select_target()
        if target is None:
            return
        body, model = _with_default_model(self.request.body, self.default_model_for(target))
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
        await self._forward("GET", target, target.provider.models_url(), None)


def _with_default_model(body: bytes, model: str) -> tuple[bytes, str | None]:
    """Fill in the default model when the browser sent none; returns the body and its model."""
    try:
        payload: Any = json.loads(body or b"{}")
    except ValueError:
        return body, None  # let the upstream server report the malformed request
    if not isinstance(payload, dict):
        return body, None
    if not payload.get("model") and model:
        payload["model"] = model
        return json.dumps(payload).encode(), model
    sent = payload.get("model")
    return body, sent if isinstance(sent, str) else None
