"""A chat saved when the disk fails: a clear JSON answer with the cause, the saved chat intact.

The full disk is real: the chat store's new file is ``/dev/full``, whose writes the kernel
answers with ENOSPC. A read-only file system and a folder the server may not write are
raised where the store creates its file (the tests run as root, which no mode bit stops;
as another user, the read-only folder is real too).
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path

import pytest

from jupyterlab_notebook_agent.chats import default_chats_dir

CHATS = "notebook-agent/chats"


def chat(title: str) -> str:
    return json.dumps(
        {
            "notebook": "a.ipynb",
            "title": title,
            "updated": 1,
            "items": [{"kind": "user", "id": "item-1", "text": title}],
            "history": [{"role": "user", "content": title}],
        }
    )


def in_chats_dir(directory) -> bool:
    return directory is not None and Path(directory).name == "chats"


@pytest.fixture
def disk_error(monkeypatch, request):
    """Make the chat store's next files fail with ``request.param`` (an errno)."""
    code = request.param
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):  # noqa: A002 - tempfile's own name
        if not in_chats_dir(dir):
            return real(*args, dir=dir, **kwargs)
        if code == errno.ENOSPC:
            return os.open("/dev/full", os.O_WRONLY), str(Path(dir) / "never-written.tmp")
        raise OSError(code, os.strerror(code), str(Path(dir) / "tmpXXXX.tmp"))

    return code, lambda: monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


CASES = [
    (errno.ENOSPC, 507, "No space left on device"),
    (errno.EROFS, 500, "Read-only file system"),
    (errno.EACCES, 500, "Permission denied"),
]


@pytest.mark.parametrize(("disk_error", "status", "cause"), CASES, indirect=["disk_error"])
async def test_a_save_the_disk_refuses_says_why(jp_fetch, disk_error, status, cause, server_log):
    code, fail = disk_error
    await jp_fetch(CHATS, "c1", method="PUT", body=chat("Before"))
    fail()
    response = await jp_fetch(CHATS, "c1", method="PUT", body=chat("After"), raise_error=False)
    assert response.code == status, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    error = json.loads(response.body)["error"]
    assert cause in error["message"] and "Could not save the chat" in error["message"], error
    assert error["type"] == "chat_store_error" and error["errno"] == errno.errorcode[code]
    assert str(default_chats_dir()) not in error["message"]  # the cause, not the server's paths
    if code == errno.ENOSPC:
        assert "Free some space" in error["message"]
    # The chat saved before is whole, and no temporary file is left behind.
    loaded = json.loads((await jp_fetch(CHATS, "c1")).body)
    assert loaded["title"] == "Before"
    assert sorted(p.name for p in default_chats_dir().iterdir()) == ["c1.json", "c1.meta"]
    assert any("could not save chat c1" in line for line in server_log)
