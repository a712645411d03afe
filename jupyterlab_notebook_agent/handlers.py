"""The model proxy: authenticated Jupyter handlers that forward chat requests.

The browser talks only to its own Jupyter server (no CORS, no key in the
browser); the server adds the key and forwards to an endpoint configured on
the server, streaming the SSE response back chunk by chunk as it arrives.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.httputil import HTTPHeaders, parse_response_start_line

from .config import Endpoint, NotebookAgent

#: Header with which the sidebar may pick one of the server's allowed endpoints.
BASE_URL_HEADER = "X-Notebook-Agent-Base-Url"

#: Upstream response headers worth passing on; everything else (cookies,
#: hop-by-hop headers, content length of a body we re-chunk) stays behind.
PASSED_HEADERS = ("Content-Type", "X-Request-Id", "Openai-Processing-Ms")

NOT_CONFIGURED = (
    "No model endpoint is configured on the Jupyter server. Start JupyterLab with "
    "OPENAI_BASE_URL (and OPENAI_API_KEY if the endpoint needs one) in its environment, "
    "or set c.NotebookAgent.base_url in the server config, then reload."
)


class _ProxyHandler(APIHandler):
    """Forwards one request to the configured endpoint and streams the answer back."""

    agent_config: NotebookAgent
    upstream_path: str

    def initialize(self, agent_config: NotebookAgent, upstream_path: str) -> None:
        self.agent_config = agent_config
        self.upstream_path = upstream_path
        self._client_gone = False
        self._upstream_status: int | None = None
        self._upstream_headers = HTTPHeaders()
        self._error_body = bytearray()
        self._key = ""

    def on_connection_close(self) -> None:
        # The browser stopped reading (the user pressed Stop): abort upstream too.
        self._client_gone = True

    def _send_error(self, status: int, message: str, kind: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        # A configuration problem will not fix itself: tell the openai client not to retry.
        self.set_header("X-Should-Retry", "false")
        self.finish(json.dumps({"error": {"message": message, "type": kind}}))

    def _select_endpoint(self) -> Endpoint | None:
        requested = self.request.headers.get(BASE_URL_HEADER)
        endpoint = self.agent_config.endpoint_for(requested)
        if endpoint is not None:
            return endpoint
        if requested:
            self._send_error(
                403,
                f"The Jupyter server is not configured to forward to {requested}. "
                "Ask the server's admin to add it to c.NotebookAgent.allowed_base_urls, "
                "or clear the base URL in the Notebook Agent settings to use the server's endpoint.",
                "endpoint_not_allowed",
            )
        else:
            self._send_error(503, NOT_CONFIGURED, "not_configured")
        return None

    def _on_header(self, line: str) -> None:
        if self._upstream_status is None and line.startswith("HTTP/"):
            self._upstream_status = parse_response_start_line(line.strip()).code
        elif line.strip():
            self._upstream_headers.parse_line(line)
        elif self._upstream_status is not None and self._upstream_status < 400:
            # End of upstream headers on success: start our response right away.
            self._start_response()

    def _start_response(self) -> None:
        self.set_status(self._upstream_status or 502)
        for name in PASSED_HEADERS:
            if name in self._upstream_headers:
                self.set_header(name, self._upstream_headers[name])
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")

    def _on_chunk(self, chunk: bytes) -> None:
        if self._client_gone:
            raise web.HTTPError(499, "client closed the connection")
        if self._upstream_status is not None and self._upstream_status >= 400:
            # Error bodies are buffered so the key can be scrubbed from them whole.
            self._error_body.extend(chunk)
            return
        self.write(chunk)
        self.flush()

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[redacted]") if self._key else text

    async def _forward(self, method: str, body: bytes | None) -> None:
        endpoint = self._select_endpoint()
        if endpoint is None:
            return
        self._key = endpoint.api_key
        headers = {"Accept": self.request.headers.get("Accept", "application/json")}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if endpoint.api_key:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        request = HTTPRequest(
            url=endpoint.base_url + self.upstream_path,
            method=method,
            headers=headers,
            body=body,
            connect_timeout=15,
            request_timeout=900,
            header_callback=self._on_header,
            streaming_callback=self._on_chunk,
            decompress_response=True,
        )
        try:
            await AsyncHTTPClient().fetch(request, raise_error=False)
        except HTTPClientError:
            pass
        except web.HTTPError:
            return  # the client went away; nothing left to answer
        except Exception as error:  # noqa: BLE001 - connection errors of every kind
            self._unreachable(endpoint, error)
            return
        if self._client_gone:
            return
        if self._upstream_status is None:
            self._unreachable(endpoint, None)
            return
        if self._upstream_status >= 400:
            self._start_response()
            self.finish(self._redact(self._error_body.decode("utf-8", "replace")))
            return
        self.finish()

    def _unreachable(self, endpoint: Endpoint, error: BaseException | None) -> None:
        reason = self._redact(str(error)) if error else "no response"
        self._send_error(
            502,
            f"Could not reach the model endpoint at {endpoint.base_url} ({reason}). "
            "Check that the model server is running and that OPENAI_BASE_URL "
            "(or c.NotebookAgent.base_url) points to it.",
            "endpoint_unreachable",
        )


class ChatCompletionsHandler(_ProxyHandler):
    """POST notebook-agent/v1/chat/completions."""

    @web.authenticated
    async def post(self) -> None:
        body = self.request.body
        endpoint = self.agent_config.resolved_endpoint()
        if endpoint and endpoint.model:
            body = _with_default_model(body, endpoint.model)
        await self._forward("POST", body)


class ModelsHandler(_ProxyHandler):
    """GET notebook-agent/v1/models."""

    @web.authenticated
    async def get(self) -> None:
        await self._forward("GET", None)


class ConfigHandler(APIHandler):
    """GET notebook-agent/config: what the sidebar may know (never the key)."""

    def initialize(self, agent_config: NotebookAgent) -> None:
        self.agent_config = agent_config

    @web.authenticated
    def get(self) -> None:
        endpoint = self.agent_config.resolved_endpoint()
        self.finish(
            json.dumps(
                {
                    "configured": endpoint is not None,
                    "base_url": endpoint.base_url if endpoint else None,
                    "model": endpoint.model if endpoint else None,
                    "has_key": bool(endpoint and endpoint.api_key),
                    "allowed_base_urls": list(self.agent_config.allowed_base_urls),
                }
            )
        )


def _with_default_model(body: bytes, model: str) -> bytes:
    """Fill in the server's default model when the browser sent none."""
    try:
        payload: Any = json.loads(body or b"{}")
    except ValueError:
        return body  # let the upstream server report the malformed request
    if isinstance(payload, dict) and not payload.get("model"):
        payload["model"] = model
        return json.dumps(payload).encode()
    return body


def setup_handlers(web_app: Any, agent_config: NotebookAgent) -> None:
    """Register the proxy routes under the server's base_url."""
    base = url_path_join(web_app.settings["base_url"], "notebook-agent")
    options = {"agent_config": agent_config}
    web_app.add_handlers(
        ".*$",
        [
            (
                url_path_join(base, "v1", "chat", "completions"),
                ChatCompletionsHandler,
                {**options, "upstream_path": "/chat/completions"},
            ),
            (url_path_join(base, "v1", "models"), ModelsHandler, {**options, "upstream_path": "/models"}),
            (url_path_join(base, "config"), ConfigHandler, options),
        ],
    )
