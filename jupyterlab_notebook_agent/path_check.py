"""Where a path really leads: the agent's file tools ask before reading or listing.

Jupyter's contents API follows symbolic links under its root, and the browser cannot tell a
link from a file, so a link planted in a dataset folder could hand the agent ``~/.ssh/id_rsa``
or ``.env``. ``GET notebook-agent/path-check?path=P`` resolves ``P`` (links included) and
answers whether the agent may read it: refused when the real path is outside the server's
root directory, or when any component of the path (as given, or as resolved, relative to the
root) is hidden (a name starting with ``.``, or a file the system marks hidden).

``&entries=1`` on a directory also answers ``hidden_entries``: the names in it that resolve
to a hidden path, which ``list_files`` leaves out.

Answer: ``{"checked": true, "allowed": bool, "inside": bool, "hidden": bool, "reason":
"outside" | "hidden" | null, "size": int | null, "links": int | null, "real": str | null, "hidden_entries": [...]}``
(``checked`` is
false, and everything allowed, for a contents manager without a directory). ``size`` is the
byte size of the file the path leads to (a link followed; null for anything but an allowed
regular file): the contents API lists a link with the link's own size, and the agent's
readers decide from it whether to download a file at all. ``links`` is, for the same file, how many names it
has (``st_nlink``): a hard link (``notes/hl.txt`` and ``venv/pip.conf``, one file) is invisible to ``realpath``, and
Jupyter's save rewrites the file in place, so write_file refuses to replace a file with more than one name
(src/agent/tools/write-landing.ts). ``real`` is where an allowed path
really is (links followed), relative to the root: write_file's rule for files that run later
judges that place too.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from .agent_handler import AuthorizedRoute
from .outbound import OutboundFilter

#: Longest path the route looks at (longer ones are refused as malformed).
MAX_PATH = 4096


@dataclass(frozen=True)
class Verdict:
    """What the route answers for one path."""

    inside: bool
    hidden: bool

    @property
    def allowed(self) -> bool:
        return self.inside and not self.hidden

    @property
    def reason(self) -> str | None:
        return "outside" if not self.inside else "hidden" if self.hidden else None


def _hidden_name(name: str) -> bool:
    return name.startswith(".") and name not in (".", "..")


def _marked_hidden(path: str) -> bool:
    """The system's hidden flag (macOS/BSD ``UF_HIDDEN``; Windows ``FILE_ATTRIBUTE_HIDDEN``)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if getattr(info, "st_flags", 0) & getattr(stat, "UF_HIDDEN", 0):
        return True
    return bool(getattr(info, "st_file_attributes", 0) & getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 0))


def _hidden_under(root: str, path: str) -> bool:
    """Whether a component of ``path`` below ``root`` is hidden (both are real, absolute paths)."""
    relative = os.path.relpath(path, root)
    if relative == ".":
        return False
    current = root
    for part in relative.split(os.sep):
        current = os.path.join(current, part)
        if _hidden_name(part) or _marked_hidden(current):
            return True
    return False


def _inside(real_root: str, real: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def check_path(root: str, path: str) -> Verdict:
    """Resolve ``path`` (relative to ``root``) and say whether it leaves the root or touches a hidden name."""
    real_root = os.path.realpath(root)
    given = path.replace("\\", "/").lstrip("/")
    real = os.path.realpath(os.path.join(real_root, given))
    inside = _inside(real_root, real)
    named_hidden = any(_hidden_name(part) for part in given.split("/"))
    hidden = named_hidden or (inside and _hidden_under(real_root, real))
    return Verdict(inside=inside, hidden=hidden)


def inside_root(root: str, path: str) -> bool:
    """True when ``path`` (relative to ``root``) resolves, links included, to ``root`` or below it."""
    return check_path(root, path).inside


def hidden_entries(root: str, directory: str) -> list[str]:
    """Names in ``directory`` (relative to ``root``) that are links to a hidden path.

    Inside the root: any hidden component below the root (``notes.txt -> .env``). Outside it:
    a hidden name at the end (``-> ~/.netrc``); other links out stay listed, and reading them
    is refused as outside the root.
    """
    real_root = os.path.realpath(root)
    folder = os.path.join(real_root, directory.replace("\\", "/").lstrip("/"))
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if _hidden_name(name):
            continue  # the contents API does not list these anyway
        real = os.path.realpath(os.path.join(folder, name))
        if _inside(real_root, real) and _hidden_under(real_root, real):
            found.append(name)
        elif not _inside(real_root, real) and _hidden_name(os.path.basename(real)):
            found.append(name)  # a link out to a hidden file (~/.netrc): hidden wherever it lives
    return sorted(found)


def _resolved_file(root: str, path: str) -> os.stat_result | None:
    """The status of the regular file ``path`` (relative to ``root``) leads to, links followed; else None."""
    try:
        info = os.stat(os.path.join(os.path.realpath(root), path.replace("\\", "/").lstrip("/")))
    except (OSError, ValueError):
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def resolved_size(root: str, path: str) -> int | None:
    """Bytes of the regular file ``path`` (relative to ``root``) leads to, links followed; else None."""
    info = _resolved_file(root, path)
    return None if info is None else info.st_size


def resolved_links(root: str, path: str) -> int | None:
    """How many names (hard links) the regular file ``path`` leads to has, symbolic links followed; else None.

    More than one: the same file is also somewhere else, under the root or not (``venv/pip.conf``), and replacing
    it by this name changes it there too; ``realpath`` sees symbolic links only.
    """
    info = _resolved_file(root, path)
    return None if info is None else info.st_nlink


def real_relative(root: str, path: str) -> str:
    """Where ``path`` (relative to ``root``, inside it) really is, relative to the root, "/"-separated.

    Links are followed (a name not there yet resolves under the real folder it would be created in): a
    file written through ``helpers -> venv/lib/python3.11/site-packages`` lands in site-packages, and the
    agent's rule for files that run later must see that place, not the link's name.
    """
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path.replace("\\", "/").lstrip("/")))
    relative = os.path.relpath(real, real_root)
    return "" if relative == "." else relative.replace(os.sep, "/")


def _valid(path: str) -> str | None:
    """Why ``path`` cannot be a path, or None."""
    if len(path) > MAX_PATH:
        return f"The path is longer than {MAX_PATH} characters."
    if any(ord(c) < 0x20 or c == "\x7f" for c in path):
        return "The path contains a control character (such as NUL), which no file name on the server has."
    return None


class PathCheckHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    auth_resource = "notebook-agent-path-check"

    def _raw_path(self) -> tuple[str, str | None]:
        """The ``path`` argument as sent (tornado's own getter turns control characters into spaces)."""
        raw = (self.request.query_arguments.get("path") or [b""])[-1]
        try:
            path = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "", "The path is not valid UTF-8."
        return path, _valid(path)

    @web.authenticated
    def get(self) -> None:
        path, problem = self._raw_path()
        if problem is not None:
            self.set_status(400)
            self.finish(json.dumps({"error": {"message": problem, "type": "invalid_path"}}))
            return
        root = getattr(self.contents_manager, "root_dir", None)
        if root is None:  # a contents manager without a directory (e.g. a database): nothing to resolve
            self.finish(json.dumps({"inside": True, "hidden": False, "allowed": True, "checked": False}))
            return
        verdict = check_path(root, path)
        answer: dict[str, Any] = {
            "checked": True,
            "allowed": verdict.allowed,
            "inside": verdict.inside,
            "hidden": verdict.hidden,
            "reason": verdict.reason,
        }
        answer["size"] = resolved_size(root, path) if verdict.allowed else None
        answer["links"] = resolved_links(root, path) if verdict.allowed else None
        answer["real"] = real_relative(root, path) if verdict.allowed else None
        if self.get_query_argument("entries", "") == "1" and verdict.allowed:
            answer["hidden_entries"] = hidden_entries(root, path)
        self.finish(json.dumps(answer))


def setup_path_check(web_app: Any) -> None:
    route = url_path_join(web_app.settings["base_url"], "notebook-agent", "path-check")
    web_app.add_handlers(".*$", [(route, PathCheckHandler)])
