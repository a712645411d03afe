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
docs/security.md). Binary buffers (widgets' binary data) pass as they are; the JSON parts of every
message (header, parent header, metadata, content) are filtered, in both the v1 binary protocol and the legacy
JSON one. The filter is the proxy's (``redaction.py``): a key printed raw, URL-encoded or in escapes at any
depth (``print(repr(pem))``, ``print(json.dumps({"v": pem}))``, a config file holding it as a string literal,
which jupyter_client's JSON escapes once more) is found; one first look per message (bench/kernel_filter.py).
A key printed base64-encoded passes here.

A key printed in pieces (``sys.stdout.write(k[:22])``, a pause, ``print(k[22:])``) reaches the browser as two
stream messages, which JupyterLab joins. So the stream output of a run is filtered across its messages: per
(parent message, stream name), the end of a stream message that is the start of a secret (a real prefix of one,
raw or in escapes, ``SecretMatcher.pending_prefix``; a short secret's only at the start of a word, an escape cut
off at the end too) is held back and put before the next message of that stream, where the two are scrubbed
together, or sent on its own when the run ends (the kernel's ``idle`` status for that parent). Output that ends
otherwise (a progress bar, any text not ending in the start of a secret) is never held. Held text of a run that
already ended (output of a thread the cell started) waits for the next message of its stream or the kernel's
next ``idle``. Not caught: a key split across different streams or message types (``stdout`` then ``stderr``, a
print then a display), or printed in pieces URL-encoded.

Enable it with ``--ServerApp.kernel_websocket_connection_class=
jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection`` (or the same key in a
``jupyter_server_config.py``/``.json``), or by calling :func:`use_nodelay_kernel_websockets` from the server
extension's load hook. A key in an extension's ``jupyter_server_config.d/*.json`` does not work: jupyter_server
reads only ``ServerApp.jpserver_extensions`` from those files.
"""

from __future__ import annotations

import json
import uuid
from collections import OrderedDict
from typing import Any

from jupyter_server.services.kernels.connection.base import deserialize_binary_message, serialize_binary_message
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from .redaction import SecretMatcher
from .server_secrets import server_secrets

SETTING = "kernel_websocket_connection_class"

#: The JSON frames of a message after its signature: header, parent header, metadata, content.
_JSON_PARTS = 4

#: Stream tails held at once per connection (runs whose output waits); the oldest is sent beyond this.
MAX_HELD_STREAMS = 64

#: Runs remembered as ended, so that a tail their threads print later is sent at the next ``idle``.
MAX_ENDED_RUNS = 64


class _Held:
    """The held end of one stream of one run, and the message it came from (for sending it on its own)."""

    __slots__ = ("header", "metadata", "name", "parent", "text")

    def __init__(self, name: str, text: str, header: Any, parent: Any, metadata: Any) -> None:
        self.name, self.text, self.header, self.parent, self.metadata = name, text, header, parent, metadata


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
        """The stock relay, with the JSON frames of v1 messages scrubbed of secrets first.

        Stream output is first joined with what the last message of its stream held back (see the module's
        docstring); the end of a run sends what is still held before the ``idle`` status.
        """
        matcher = self._matcher()
        if matcher is not None and getattr(stream, "channel", None) == "iopub":
            msg_list = self._across_messages(stream, msg_list, matcher)
            if msg_list is None:
                return  # all of it held back
        self._relay(stream, msg_list, matcher)

    def _relay(self, stream: Any, msg_list: Any, matcher: SecretMatcher | None) -> None:
        if matcher is not None and isinstance(msg_list, list):
            msg_list = [
                matcher.redact(_bytes(part)) if index < _JSON_PARTS else part for index, part in enumerate(msg_list)
            ]
        super()._on_zmq_reply(stream, msg_list)

    # -- stream output across messages -------------------------------------------------------------------------

    _held_streams: OrderedDict[tuple[str, str], _Held] | None = None
    _ended_runs: OrderedDict[str, None] | None = None

    def _holds(self) -> OrderedDict[tuple[str, str], _Held]:
        """The held stream ends of this connection, by (run, stream name), oldest first."""
        if self._held_streams is None:
            self._held_streams, self._ended_runs = OrderedDict(), OrderedDict()
        return self._held_streams

    def _across_messages(self, stream: Any, msg_list: Any, matcher: SecretMatcher) -> Any:
        """``msg_list`` with held stream output put in and this message's secret-prefix end held; None: nothing
        to send now. Messages that are neither stream output nor an ``idle`` status pass as they are."""
        v1 = isinstance(msg_list, list)
        if v1:
            if len(msg_list) < _JSON_PARTS:
                return msg_list
            head = _bytes(msg_list[0])
            if b"stream" not in head and b"status" not in head:
                return msg_list  # the cheap test: most messages are neither
            try:
                header, parent = json.loads(head), json.loads(_bytes(msg_list[1]))
            except ValueError:
                return msg_list
        elif isinstance(msg_list, dict):
            header, parent = msg_list.get("header") or {}, msg_list.get("parent_header") or {}
        else:
            return msg_list
        kind = header.get("msg_type") if isinstance(header, dict) else None
        run = parent.get("msg_id") if isinstance(parent, dict) else None
        if kind not in ("stream", "status") or not isinstance(run, str):
            return msg_list
        holds = self._holds()
        if kind == "status":
            if not holds:
                return msg_list
            content = json.loads(_bytes(msg_list[3])) if v1 else msg_list.get("content")
            if isinstance(content, dict) and content.get("execution_state") == "idle":
                self._run_ended(stream, run, matcher, v1)
            return msg_list
        content = json.loads(_bytes(msg_list[3])) if v1 else msg_list.get("content")
        if not isinstance(content, dict) or not isinstance(content.get("text"), str):
            return msg_list
        key = (run, str(content.get("name")))
        held = holds.pop(key, None)
        text = content["text"]
        if held is None and not matcher.pending_prefix(text):
            return msg_list  # nothing held, nothing to hold: the message as it is
        sent, keep = matcher.split_text(held.text if held is not None else "", text)
        if keep:
            metadata = json.loads(_bytes(msg_list[2])) if v1 else msg_list.get("metadata") or {}
            holds[key] = _Held(key[1], keep, header, parent, metadata)
            if len(holds) > MAX_HELD_STREAMS:
                self._send_held(stream, holds.popitem(last=False)[1], matcher, v1)
        if not sent:
            return None
        content = {**content, "text": sent}
        if v1:
            return [*msg_list[:3], self.session.pack(content), *msg_list[4:]]
        return {**msg_list, "content": content}

    def _run_ended(self, stream: Any, run: str, matcher: SecretMatcher, v1: bool) -> None:
        """A run's ``idle``: send what its streams hold, and what runs that ended before still hold."""
        holds = self._holds()
        ended = self._ended_runs if self._ended_runs is not None else OrderedDict()
        ended[run] = None
        while len(ended) > MAX_ENDED_RUNS:
            ended.popitem(last=False)
        # Output with no run of its own ("") goes at any run's end.
        for key in [k for k in holds if k[0] in ended or not k[0]]:
            self._send_held(stream, holds.pop(key), matcher, v1)

    def _send_held(self, stream: Any, held: _Held, matcher: SecretMatcher, v1: bool) -> None:
        """Send held stream text on its own, as a stream message of its run (before what comes next)."""
        header = {**held.header, "msg_id": uuid.uuid4().hex}
        content = {"name": held.name, "text": held.text}
        if v1:
            pack = self.session.pack
            parts = [pack(header), pack(held.parent), pack(held.metadata), pack(content)]
            self._relay(stream, parts, matcher)
        else:
            msg = {
                "header": header,
                "msg_id": header["msg_id"],
                "msg_type": "stream",
                "parent_header": held.parent,
                "metadata": held.metadata,
                "content": content,
                "buffers": [],
            }
            self._relay(stream, msg, matcher)

    def _reserialize_reply(self, msg_or_list: Any, channel: Any = None) -> Any:
        """The legacy JSON protocol: the serialized message, scrubbed of secrets."""
        serialized = super()._reserialize_reply(msg_or_list, channel)
        matcher = self._matcher()
        if matcher is None:
            return serialized
        if isinstance(serialized, str):
            data = serialized.encode("utf-8", "surrogatepass")
            redacted = matcher.redact(data)
            return serialized if redacted is data else redacted.decode("utf-8", "replace")
        if not matcher.candidates(serialized):
            return serialized
        # A message with buffers: scrub its JSON, keep the buffers, rebuild the offsets.
        msg = deserialize_binary_message(serialized)
        buffers = msg.pop("buffers", [])
        scrubbed = json.loads(matcher.redact(json.dumps(msg).encode()))
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
