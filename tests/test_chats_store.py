"""The chat store's History list and retention.

The list comes from each chat's small .meta file (a transcript can be 20 MB;
parsing every one on each listing grew with the user's history), falls back
to the chat itself for chats saved before .meta files existed or whose .meta
is older than the chat, and ``max_chats`` (server config) forgets the least
recently updated chats beyond the limit.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
from tornado.httpclient import HTTPClientError

from jupyterlab_notebook_agent.chats import ChatStore

CHATS = "notebook-agent/chats"


def body(notebook: str, title: str, updated: int) -> dict:
    return {
        "notebook": notebook,
        "title": title,
        "updated": updated,
        "history": [{"role": "user", "content": "x" * 100_000}],
    }


def test_listing_reads_the_small_meta_file_not_the_transcript(tmp_path):
    store = ChatStore(tmp_path)
    store.put("c1", body("a.ipynb", "First", 1))
    meta = tmp_path / "c1.meta"
    assert json.loads(meta.read_text()) == {"id": "c1", "title": "First", "notebook": "a.ipynb", "updated": 1}
    assert meta.stat().st_size < 200 and stat.S_IMODE(meta.stat().st_mode) == 0o600
    # A transcript the list never parses: garbage, older than its .meta.
    chat = tmp_path / "c1.json"
    chat.write_text("not json at all")
    os.utime(chat, (meta.stat().st_mtime - 10, meta.stat().st_mtime - 10))
    assert [c["title"] for c in store.list("a.ipynb")] == ["First"]


def test_chats_without_or_with_stale_meta_are_read_from_the_chat(tmp_path):
    store = ChatStore(tmp_path)
    # Saved by an earlier version: no .meta.
    (tmp_path / "old.json").write_text(json.dumps({"id": "old", **body("a.ipynb", "Old", 1)}))
    # Written after its .meta (e.g. restored from a backup): the chat wins.
    store.put("new", body("a.ipynb", "Stale title", 2))
    chat = tmp_path / "new.json"
    chat.write_text(json.dumps({"id": "new", **body("a.ipynb", "Fresh title", 3)}))
    later = (tmp_path / "new.meta").stat().st_mtime + 10
    os.utime(chat, (later, later))
    assert [c["title"] for c in store.list()] == ["Fresh title", "Old"]


def test_delete_removes_the_meta_too(tmp_path):
    store = ChatStore(tmp_path)
    store.put("c1", body("a.ipynb", "First", 1))
    assert store.delete("c1")
    assert not (tmp_path / "c1.meta").exists() and store.list() == []


def test_unlimited_by_default(tmp_path):
    store = ChatStore(tmp_path)
    for i in range(30):
        store.put(f"c{i}", body("a.ipynb", f"Chat {i}", i))
    assert len(store.list()) == 30


def test_retention_forgets_the_least_recently_updated_never_the_one_just_saved(tmp_path):
    store = ChatStore(tmp_path, max_chats=3)
    for i, updated in enumerate([10, 20, 30]):
        store.put(f"c{i}", body("a.ipynb", f"Chat {i}", updated))
    # Saved with an old timestamp (a clock behind): still kept, the oldest other goes.
    store.put("late", body("b.ipynb", "Late", 5))
    assert sorted(c["id"] for c in store.list()) == ["c1", "c2", "late"]
    assert not (tmp_path / "c0.json").exists() and not (tmp_path / "c0.meta").exists()
    store.put("c3", body("a.ipynb", "Chat 3", 40))
    # Now "late" is the least recently updated of the others.
    assert sorted(c["id"] for c in store.list()) == ["c1", "c2", "c3"]


@pytest.fixture
def jp_server_config(jp_server_config):
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {"max_chats": 2},
    }


async def test_max_chats_from_the_server_config(jp_fetch):
    for i in range(3):
        body_ = json.dumps(body("n.ipynb", f"Chat {i}", i + 1))
        await jp_fetch(CHATS, f"s{i}", method="PUT", body=body_)
    listed = json.loads((await jp_fetch(CHATS)).body)["chats"]
    assert [c["id"] for c in listed] == ["s2", "s1"]
    with pytest.raises(HTTPClientError) as gone:
        await jp_fetch(CHATS, "s0")
    assert gone.value.code == 404
