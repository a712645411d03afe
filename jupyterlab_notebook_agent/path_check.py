"""Where a path really leads: the agent's file tools ask before reading.

Jupyter's contents API follows symbolic links under its root, and the
browser cannot tell a link from a file, so a link planted in a dataset
folder could hand the agent ``~/.ssh/id_rsa``. ``GET notebook-agent/path-check?path=P``
answers whether the real path of ``P`` (links resolved) stays inside the
server's root directory.
"""

from __future__ import annotations

import json
import os
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .outbound import OutboundFilter


def inside_root(root: str, path: str) -> bool:
    """True when ``path`` (relative to ``root``) resolves, links included, to ``root`` or below it."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path.lstrip("/")))
    return real == real_root or real.startswith(real_root + os.sep)


class PathCheckHandler(OutboundFilter, APIHandler):
    @web.authenticated
    def get(self) -> None:
        path = self.get_query_argument("path", "")
        root = getattr(self.contents_manager, "root_dir", None)
        if root is None:  # a contents manager without a directory (e.g. a database): nothing to resolve
            self.finish(json.dumps({"inside": True, "checked": False}))
            return
        self.finish(json.dumps({"inside": inside_root(root, path), "checked": True}))


def setup_path_check(web_app: Any) -> None:
    route = url_path_join(web_app.settings["base_url"], "notebook-agent", "path-check")
    web_app.add_handlers(".*$", [(route, PathCheckHandler)])
