"""A kernel websocket connection that turns off Nagle's algorithm and keeps server-held secrets out of messages.

Every kernel round trip through the Jupyter server (an ``execute_request`` in, ``status``/``execute_input``/
``execute_result``/``execute_reply`` frames out) is a burst of small websocket frames. jupyter_server never sets
``TCP_NODELAY`` on the kernel websocket, so Nagle's algorithm on the server holds back a small frame until the
client's delayed ACK arrives: on Linux that adds ~40 ms to each round trip (``1+1`` measured 48 ms median through
``@jupyterlab/services``, 4-7 ms with ``TCP_NODELAY``, 5 ms over raw ZMQ). An agent that runs many small cells pays
that on every step.

jupyter_server lets the configuration choose the kernel websocket connection class
(``ServerApp.kernel_websocket_connection_class``). :class:`NoDelayKernelWebsocketConnection` is the stock
:class:`ZMQChannelsWebsocketConnection` plus one call, tornado's ``WebSocketHandler.set_nodelay(True)``, made in
:meth:`~NoDelayKernelWebsocketConnection.connect`, which the kernel websocket handler calls from ``open()`` once the
websocket is established. Nothing else changes.

It also replaces every secret the server holds (``server_secrets.py``: provider keys, header values, URL
credentials, user-stored keys) by ``[redacted]`` in the messages it sends to the browser, so a key that code in
a kernel printed (after reading it from ``/proc/<server pid>/environ`` or ``keys.json``, which it can: it runs as
the same user) never lands in a notebook, the sidebar or the model's context. That is a filter on this path, not
isolation: the kernel can still use the key itself or send it anywhere over its own network connections (see the
README's Security section). Binary buffers (widgets' binary data) pass as they are; the JSON parts of every
message (header, parent header, metadata, content) are filtered, in both the v1 binary protocol and the legacy
JSON one. Kernel messages are serialized by jupyter_client, which escapes no printable character, so the filter
looks for the raw and URL-encoded forms only: one ``bytes.find`` per secret and a ``memchr`` for ``%`` per
message (bench/agent-overhead.ts). A key printed ``\\u``-escaped on purpose, or base64-encoded, passes here; the
proxy's request filter (all forms) still keeps it from a model provider.

Enable it with ``--ServerApp.kernel_websocket_connection_class=
jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection`` (or the same key in a
``jupyter_server_config.py``/``.json``), or by calling :func:`use_nodelay_kernel_websockets` from the server
extension's load hook. A key in an extension's ``jupyter_server_config.d/*.json`` does not work: jupyter_server
reads only ``ServerApp.jpserver_extensions`` from those files.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.services.kernels.connection.base import deserialize_binary_message, serialize_binary_message
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from .redaction import SecretMatcher
from .server_secrets import server_secrets

SETTING = "kernel_websocket_connection_class"

#: The JSON frames of a message after its signature: header, parent header, metadata, content.
_JSON_PARTS = 4


class NoDelayKernelWebsocketConnection(ZMQChannelsWebsocketConnection):
    """The default kernel websocket connection, with ``TCP_NODELAY`` set on the websocket when it opens."""

    def connect(self) -> Any:
        """Set ``TCP_NODELAY`` on the websocket, then connect exactly as the stock connection does.

        Best effort: if this jupyter_server or tornado has no such hook, or the websocket is already gone (or is
        not a TCP socket), the connection proceeds unchanged. Returns whatever the stock ``connect`` returns (a
        Future or a coroutine, depending on the jupyter_server version); the handler awaits it.
        """
        self._set_nodelay()
        return super().connect()

    def _matcher(self) -> SecretMatcher | None:
        handler = getattr(self, "websocket_handler", None)
        secrets = server_secrets(getattr(handler, "settings", None) or {})
        matcher = secrets.matcher() if secrets is not None else None
        return matcher if matcher else None

    def _on_zmq_reply(self, stream: Any, msg_list: Any) -> None:
        """The stock relay, with the JSON frames of v1 messages scrubbed of secrets first."""
        matcher = self._matcher()
        if matcher is not None and isinstance(msg_list, list):
            msg_list = [
                matcher.redact(_bytes(part), escapes=False) if index < _JSON_PARTS else part
                for index, part in enumerate(msg_list)
            ]
        super()._on_zmq_reply(stream, msg_list)

    def _reserialize_reply(self, msg_or_list: Any, channel: Any = None) -> Any:
        """The legacy JSON protocol: the serialized message, scrubbed of secrets."""
        serialized = super()._reserialize_reply(msg_or_list, channel)
        matcher = self._matcher()
        if matcher is None:
            return serialized
        if isinstance(serialized, str):
            data = serialized.encode("utf-8", "surrogatepass")
            redacted = matcher.redact(data, escapes=False)
            return serialized if redacted is data else redacted.decode("utf-8", "replace")
        if not matcher.candidates(serialized, escapes=False):
            return serialized
        # A message with buffers: scrub its JSON, keep the buffers, rebuild the offsets.
        msg = deserialize_binary_message(serialized)
        buffers = msg.pop("buffers", [])
        scrubbed = json.loads(matcher.redact(json.dumps(msg).encode(), escapes=False))
        scrubbed["buffers"] = buffers
        return serialize_binary_message(scrubbed)

    def _set_nodelay(self) -> None:
        handler = getattr(self, "websocket_handler", None)
        set_nodelay = getattr(handler, "set_nodelay", None)
        if set_nodelay is None or getattr(handler, "ws_connection", None) is None:
            self.log.debug("Notebook Agent: kernel websocket has no set_nodelay hook; leaving Nagle on")
            return
        try:
            set_nodelay(True)
        except Exception as e:  # noqa: BLE001 - an optimisation must never break the kernel connection
            self.log.debug("Notebook Agent: could not set TCP_NODELAY on the kernel websocket: %s", e)


def _bytes(part: Any) -> bytes:
    if isinstance(part, bytes):
        return part
    return part.bytes if hasattr(part, "bytes") else bytes(part)


def use_nodelay_kernel_websockets(server_app: Any) -> bool:
    """Make :class:`NoDelayKernelWebsocketConnection` the server's kernel websocket connection class.

    Meant for ``_load_jupyter_server_extension`` (which runs after the web application is built; the kernel
    websocket handler reads the class from the tornado settings on every connection). Only replaces the stock
    class, and only when nobody configured ``ServerApp.kernel_websocket_connection_class``: an explicit choice,
    the gateway's connection class, or another extension's class are left alone. Returns whether it replaced it.
    """
    web_app = getattr(server_app, "web_app", None)
    settings = getattr(web_app, "settings", None)
    if settings is None or settings.get(SETTING) is not ZMQChannelsWebsocketConnection:
        return False
    if SETTING in server_app.config.get("ServerApp", {}):
        return False
    settings[SETTING] = NoDelayKernelWebsocketConnection
    server_app.kernel_websocket_connection_class = NoDelayKernelWebsocketConnection
    return True
