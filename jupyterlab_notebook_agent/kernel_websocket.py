"""A kernel websocket connection that turns off Nagle's algorithm.

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

Enable it with ``--ServerApp.kernel_websocket_connection_class=
jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection`` (or the same key in a
``jupyter_server_config.py``/``.json``), or by calling :func:`use_nodelay_kernel_websockets` from the server
extension's load hook. A key in an extension's ``jupyter_server_config.d/*.json`` does not work: jupyter_server
reads only ``ServerApp.jpserver_extensions`` from those files.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

SETTING = "kernel_websocket_connection_class"


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
