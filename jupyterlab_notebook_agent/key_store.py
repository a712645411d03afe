"""Per-user API keys typed in the sidebar, stored on the Jupyter server.

A key typed in the browser is sent once (PUT notebook-agent/keys/<provider>)
and from then on lives only in a file on the server that only the user can
read, so it never sits in JupyterLab's user settings (readable by any
extension) and never travels back to the browser.

Each change reads the file, changes one key and writes it back (atomically, by
renaming a new file over it) while it holds an exclusive ``flock`` on a lock file
beside it (``.keys.json.lock``): two Jupyter servers sharing a data folder that
save a key at the same moment both keep theirs (without the lock, one of the two
was lost). Readers take no lock: the rename shows them the old file or the new one.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .private_dir import ensure_private_dir

try:
    import fcntl
except ImportError:  # Windows: no flock (one server per data folder there)
    fcntl = None  # type: ignore[assignment]

#: File format version, so a later release can migrate the file.
FORMAT_VERSION = 1

#: Longest key accepted; real keys are well under 300 characters.
MAX_KEY_LENGTH = 4096

#: How long a change waits for another process's change to the file (each takes milliseconds).
LOCK_WAIT_S = 10.0


def default_key_store_path() -> Path:
    """``<jupyter_data_dir>/notebook_agent/keys.json``: per user, outside any notebook directory."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "notebook_agent" / "keys.json"


#: Why a key was refused, for the user (never quoting the key).
KEY_RULE = (
    "a key is 1 to 4096 printable ASCII characters without spaces: it travels in an HTTP header, "
    "which cannot carry other characters"
)


def is_valid_key(key: str) -> bool:
    """Keys go into an HTTP header: visible ASCII only (no control characters, spaces or non-ASCII)."""
    return 0 < len(key) <= MAX_KEY_LENGTH and all("!" <= c <= "~" for c in key)


class KeyStore:
    """A small JSON file of ``{provider name: key}``, mode 0600 in a 0700 directory."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # unreadable or corrupt: behave as if empty; the next write replaces it
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, dict):
            return {}
        return {str(k): v for k, v in keys.items() if isinstance(v, str) and v}

    def all_keys(self) -> list[str]:
        """Every stored key (the redaction filters treat them all as secrets)."""
        return list(self._read().values())

    def get(self, provider: str) -> str | None:
        """The stored key for ``provider``, or None."""
        return self._read().get(provider)

    def has(self, provider: str) -> bool:
        return self.get(provider) is not None

    def set(self, provider: str, key: str) -> None:
        """Store (or replace) the key for ``provider``."""
        with self._locked():
            keys = self._read()
            keys[provider] = key
            self._write(keys)

    def delete(self, provider: str) -> bool:
        """Remove the key for ``provider``; True if there was one."""
        with self._locked():
            keys = self._read()
            if provider not in keys:
                return False
            del keys[provider]
            self._write(keys)
            return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the lock file's exclusive flock: one read-modify-write at a time, across processes.

        Raises OSError (EAGAIN) when another process held it for :data:`LOCK_WAIT_S`.
        """
        ensure_private_dir(self.path.parent)
        lock = self.path.with_name(f".{self.path.name}.lock")
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(lock, flags, stat.S_IRUSR | stat.S_IWUSR)
        try:
            if fcntl is not None:
                deadline = time.monotonic() + LOCK_WAIT_S
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        # Polled, not a blocking flock: a stuck process holds this server up for LOCK_WAIT_S at most.
                        if time.monotonic() > deadline:
                            raise OSError(
                                errno.EAGAIN, "another process has held the key file's lock for too long"
                            ) from None
                        time.sleep(0.005)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _write(self, keys: dict[str, str]) -> None:
        """Replace the file atomically; the new file is created 0600, never briefly wider."""
        ensure_private_dir(self.path.parent)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, stat.S_IRUSR | stat.S_IWUSR)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                fd = -1
                json.dump({"version": FORMAT_VERSION, "keys": keys}, file, indent=1, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
