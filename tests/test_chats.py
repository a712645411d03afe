"""Chat history on the server: per user, outside the notebook, behind Jupyter's auth."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from jupyter_core.paths import jupyter_data_dir
from tornado.httpclient import HTTPClientError

CHATS = "notebook-agent/chats"


def chat(notebook: str, title: str, updated: int) -> str:
    return json.dumps(
        {
            "notebook": notebook,
            "title": title,
            "updated": updated,
            "items": [{"kind": "user", "id": "item-1", "text": title}],
            "history": [{"role": "user", "content": title}],
        }
    )


async def test_save_list_load_and_delete(jp_fetch):
    await jp_fetch(CHATS, "a1", method="PUT", body=chat("work/a.ipynb", "First", 1))
    await jp_fetch(CHATS, "a2", method="PUT", body=chat("work/a.ipynb", "Second", 2))
    await jp_fetch(CHATS, "b1", method="PUT", body=chat("b.ipynb", "Other", 3))

    listed = json.loads((await jp_fetch(CHATS, params={"notebook": "work/a.ipynb"})).body)["chats"]
    assert [c["title"] for c in listed] == ["Second", "First"]
    everything = json.loads((await jp_fetch(CHATS)).body)["chats"]
    assert [c["id"] for c in everything] == ["b1", "a2", "a1"]

    loaded = json.loads((await jp_fetch(CHATS, "a1")).body)
    assert loaded["history"] == [{"role": "user", "content": "First"}]
    assert loaded["id"] == "a1"

    # Stored per user, outside the server root, readable by the user only.
    file = Path(jupyter_data_dir()) / "notebook_agent" / "chats" / "a1.json"
    assert stat.S_IMODE(file.stat().st_mode) == 0o600

    response = await jp_fetch(CHATS, "a1", method="DELETE")
    assert response.code == 204
    try:
        await jp_fetch(CHATS, "a1")
        raise AssertionError("a deleted chat must be gone")
    except HTTPClientError as error:
        assert error.code == 404


async def test_rejects_bad_ids_and_bodies(jp_fetch):
    for chat_id, body, code in [("..%2Fescape", "{}", 400), ("ok", "[1, 2]", 400), ("ok", "not json", 400)]:
        try:
            await jp_fetch(CHATS, chat_id, method="PUT", body=body)
            raise AssertionError(f"{chat_id} {body} must be refused")
        except HTTPClientError as error:
            assert error.code == code


async def test_needs_authentication(jp_fetch, jp_serverapp):
    try:
        await jp_fetch(CHATS, headers={"Authorization": ""})
        raise AssertionError("an unauthenticated request must be refused")
    except HTTPClientError as error:
        assert error.code in (401, 403)
