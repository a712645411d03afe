"""Serves a site's own local models (``c.NotebookAgent.local_models_dir``) read-only.

The in-browser local model (a transformers.js Web Worker) fetches its files
from ``<base_url>notebook-agent/models/<model>/<file>`` when the
``localModelPath`` setting points there, so a site can offer models without
any access to the Hugging Face hub. Only logged-in users may read them (and only
those Jupyter's Authorizer lets read the resource ``notebook-agent-models``); GET
and HEAD are the only methods (tornado answers 405 to the rest), hidden
files are refused, and range requests work for large weight files.
"""

from __future__ import annotations

import os
from typing import Any

from jupyter_server.base.handlers import APIHandler, AuthenticatedFileHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import AuthorizedRoute

#: The route, under the server's base_url.
MODELS_ROUTE = ("notebook-agent", "models")

NOT_SERVED = (
    "This Jupyter server serves no local models: set c.NotebookAgent.local_models_dir to a folder "
    "of models in the transformers.js layout and restart it."
)


def _bad_path(path: str) -> str | None:
    """Why ``path`` cannot name a model file (a NUL byte makes os.path raise: a 500 otherwise)."""
    if any(ord(c) < 0x20 or c == "\x7f" for c in path):
        return "A model file path cannot contain control characters (such as NUL)."
    if len(path) > 4096:
        return "The model file path is too long."
    return None


class LocalModelsHandler(AuthorizedRoute, AuthenticatedFileHandler):
    """A model file from the local models folder (weights pass as they are: no secret filter on them)."""

    auth_resource = "notebook-agent-models"

    @web.authenticated
    def head(self, path: str) -> Any:
        return self._refuse(path) or super().head(path)

    @web.authenticated
    def get(self, path: str, include_body: bool = True) -> Any:
        return self._refuse(path) or super().get(path, include_body=include_body)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors as JSON with a message, as the other routes answer (not Jupyter's HTML page)."""
        error = kwargs.get("exc_info", (None, None, None))[1]
        message = getattr(error, "log_message", None) or self._reason
        args = getattr(error, "args", ())
        if isinstance(error, web.HTTPError) and args:
            message = message % args
        if status_code == 404:
            message = "There is no such file in the local models folder."
        self.set_header("Content-Type", "application/json")
        self.finish({"error": {"message": message, "type": "invalid_path" if status_code == 400 else "not_found"}})

    def _refuse(self, path: str) -> bool:
        problem = _bad_path(path)
        if problem is None:
            return False
        self.set_status(400)
        self.set_header("Content-Type", "application/json")
        self.finish({"error": {"message": problem, "type": "invalid_path"}})
        return True

    def get_content_type(self) -> str:
        assert self.absolute_path is not None
        if self.absolute_path.endswith(".json"):
            return "application/json"
        if self.absolute_path.endswith((".jinja", ".txt")):
            return "text/plain; charset=UTF-8"
        return "application/octet-stream"


class NoLocalModelsHandler(AuthorizedRoute, APIHandler):
    """Answers every model request with a 404 that says how to serve models."""

    auth_resource = "notebook-agent-models"

    @web.authenticated
    def get(self, _path: str) -> None:
        self.set_status(404)
        self.finish({"error": {"message": NOT_SERVED, "type": "not_configured"}})


def models_handlers(base_url: str, models_dir: str) -> list[tuple[str, type, dict[str, Any]]]:
    """The route serving ``models_dir`` (or explaining that nothing is served)."""
    pattern = url_path_join(base_url, *MODELS_ROUTE, "(.*)")
    if not models_dir:
        return [(pattern, NoLocalModelsHandler, {})]
    # The folder is resolved once: tornado serves no file whose real path is outside the
    # served folder, so a symlinked folder (/srv/models -> /data/weights) would answer 500
    # for every file. Symlinks inside it that lead out of it are still refused.
    return [(pattern, LocalModelsHandler, {"path": os.path.realpath(os.path.expanduser(models_dir))})]
