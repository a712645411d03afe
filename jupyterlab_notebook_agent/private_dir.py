"""Folders the extension creates for a user's keys and chats: readable by that user only."""

from __future__ import annotations

import os
from pathlib import Path


def ensure_private_dir(directory: Path) -> None:
    """Create ``directory`` and every missing parent with mode 0700.

    Folders that already exist are left as they are (they may be the user's own, or shared
    on purpose). ``mkdir``'s mode is filtered by the umask, so each new one is chmod-ed after:
    whichever of keys.json or a chat is written first, ``notebook_agent/`` ends up 0700.
    """
    missing = []
    parent = directory
    while not parent.exists():
        missing.append(parent)
        if parent.parent == parent:
            break
        parent = parent.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by another request: leave its mode to whoever made it
        os.chmod(folder, 0o700)
