"""No bad chat record breaks the history: every PUT is checked against the schema (a 400 naming the
field), the list skips and logs what it cannot read, and saves under max_chats never fail because of
another chat. On a real Jupyter server, with records planted on disk as a crash or an old release
could leave them."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_data_dir

#: The bound on titles in docs/security.md (jupyterlab_notebook_agent/chat_schema.py MAX_TITLE).
MAX_TITLE = 200

CHATS = "notebook-agent/chats"

pytestmark = pytest.mark.fault_category("chat store")


@pytest.fixture
def jp_server_config(jp_server_config):
    return {**jp_server_config, "NotebookAgent": {"max_chats": 3}}


def chat(updated: float = 1, **fields) -> dict:
    return {
        "version": 1,
        "notebook": "a.ipynb",
        "title": "A chat",
        "created": 1,
        "updated": updated,
        "items": [],
        "history": [{"role": "user", "content": "hi"}],
        "usage": {"promptTokens": 0, "completionTokens": 0},
        "plan": None,
        "choice": None,
        **fields,
    }


def chats_dir() -> Path:
    return Path(jupyter_data_dir()) / "notebook_agent" / "chats"


async def put(jp_fetch, chat_id: str, body: str | bytes):
    return await jp_fetch(CHATS, chat_id, method="PUT", body=body, raise_error=False)


async def listed(jp_fetch, **params) -> list[dict]:
    response = await jp_fetch(CHATS, params=params, raise_error=False)
    assert response.code == 200, response.body
    return json.loads(response.body)["chats"]  # strict JSON: no NaN reaches the browser


#: (name, body, the field the 400 must name)
BAD_RECORDS = [
    ("updated a string", json.dumps(chat(updated="x")), "updated"),
    ("updated null", json.dumps(chat(updated=None)), "updated"),
    ("updated NaN", json.dumps(chat()).replace('"updated": 1', '"updated": NaN'), "updated"),
    ("updated Infinity", json.dumps(chat()).replace('"updated": 1', '"updated": Infinity'), "updated"),
    ("a number too big for a float", json.dumps(chat()).replace('"created": 1', '"created": 1e400'), "created"),
    ("NaN deep inside", json.dumps(chat(usage={"promptTokens": 1})).replace(": 1}", ": NaN}"), "usage.promptTokens"),
    ("updated a boolean", json.dumps(chat(updated=True)), "updated"),
    ("updated negative", json.dumps(chat(updated=-5)), "updated"),
    ("a 19 MB title", json.dumps(chat(title="t" * 19_000_000)), "title"),
    ("a title with a NUL", json.dumps(chat(title="a\x00b")), "title"),
    ("title a number", json.dumps(chat(title=5)), "title"),
    ("notebook an array", json.dumps(chat(notebook=["a"])), "notebook"),
    ("entries an object", json.dumps(chat(entries={})), "entries"),
    ("items an object", json.dumps(chat(items={})), "items"),
    ("history a string", json.dumps(chat(history="hi")), "history"),
    ("usage an array", json.dumps(chat(usage=[])), "usage"),
    ("plan a string", json.dumps(chat(plan="x")), "plan"),
    ("version a float", json.dumps(chat(version=1.5)), "version"),
    ("another chat's id", json.dumps(chat(id="other")), "id"),
]


async def test_every_put_is_checked_against_the_schema(jp_fetch, findings):
    for name, body, field in BAD_RECORDS:
        with findings.case(name):
            response = await put(jp_fetch, "c1", body)
            assert response.code == 400, name
            error = json.loads(response.body)["error"]
            assert error["field"] == field, (name, error)
            assert field.split(".")[0] in error["message"]
            assert not (chats_dir() / "c1.json").exists()
    with findings.case("the list still answers"):
        assert await listed(jp_fetch) == []


async def test_a_valid_chat_is_saved_with_a_small_meta(jp_fetch, findings):
    with findings.case("a big chat, a small .meta"):
        big = chat(title="t" * MAX_TITLE, history=[{"role": "user", "content": "x" * 5_000_000}])
        assert (await put(jp_fetch, "big", json.dumps(big))).code == 200
        meta = chats_dir() / "big.meta"
        assert meta.stat().st_size < 2 * MAX_TITLE + 200
        assert [c["id"] for c in await listed(jp_fetch)] == ["big"]


async def test_ids_must_match_in_full(jp_fetch, findings):
    for chat_id in ("nl\n", "ok\n", "a\x00b", "tab\t", "x" * 65):  # jp_fetch percent-encodes them
        with findings.case(f"id {chat_id!r}"):
            response = await put(jp_fetch, chat_id, json.dumps(chat()))
            assert response.code == 400, chat_id
            assert json.loads(response.body)["error"]["field"] == "id"
    assert not chats_dir().exists() or not [p.name for p in chats_dir().iterdir() if "\n" in p.name]


def plant(name: str, text: str, meta: str | None = None) -> None:
    """A record on disk as a crash, a hand edit or an earlier release could leave it."""
    folder = chats_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(text)
    if meta is not None:
        (folder / f"{name}.meta").write_text(meta)


DAMAGED = {
    "bad-updated": (json.dumps({"id": "bad-updated", "notebook": "a.ipynb", "updated": "x"}), None),
    "null-updated": (json.dumps({"id": "null-updated", "notebook": "a.ipynb", "updated": None, "title": 5}), None),
    "nan-meta": (json.dumps(chat()), '{"id": "nan-meta", "title": "t", "notebook": "a.ipynb", "updated": NaN}'),
    "not-json": ("{not json", None),
    "an-array": ("[1, 2]", None),
    "deep": ("[" * 100_000 + "]" * 100_000, None),
    "huge-title-meta": (
        json.dumps(chat()),
        json.dumps({"id": "huge-title-meta", "title": "t" * 100_000, "updated": 2}),
    ),
}


async def test_the_list_skips_and_logs_unreadable_records(jp_fetch, server_log, findings):
    assert (await put(jp_fetch, "good", json.dumps(chat(updated=5)))).code == 200
    for name, (text, meta) in DAMAGED.items():
        plant(name, text, meta)
    with findings.case("GET chats"):
        chats = await listed(jp_fetch)
        ids = [c["id"] for c in chats]
        assert ids[0] == "good"
        # An old .meta with a title past today's limit is shortened, not dropped.
        assert "huge-title-meta" in ids
        assert len(next(c for c in chats if c["id"] == "huge-title-meta")["title"]) == MAX_TITLE
        assert set(ids) == {"good", "huge-title-meta"}
    with findings.case("GET chats?notebook="):
        assert [c["id"] for c in await listed(jp_fetch, notebook="a.ipynb")] == ["good"]
    with findings.case("the skipped records are logged"):
        skipped = [line for line in server_log if "skipped the unreadable chat" in line]
        assert {name for name in DAMAGED if name != "huge-title-meta"} <= {
            line.split("chat ", 1)[1].split(".json")[0] for line in skipped
        }
    with findings.case("GET of a damaged chat"):
        response = await jp_fetch(CHATS, "not-json", raise_error=False)
        assert response.code == 404
        assert "damaged" in json.loads(response.body)["error"]["message"]


async def test_saves_under_max_chats_never_fail_because_of_another_chat(jp_fetch, findings):
    for name, (text, meta) in DAMAGED.items():
        plant(name, text, meta)
    # A chat whose files cannot be removed: its .json is a folder.
    (chats_dir() / "stuck.json").mkdir()
    (chats_dir() / "stuck.meta").write_text(json.dumps({"id": "stuck", "title": "", "notebook": "", "updated": 0}))
    for i in range(6):
        with findings.case(f"save {i}"):
            response = await put(jp_fetch, f"s{i}", json.dumps(chat(updated=10 + i)))
            assert response.code == 200, response.body
    with findings.case("retention still works"):
        ids = [c["id"] for c in await listed(jp_fetch)]
        assert ids[:3] == ["s5", "s4", "s3"]
        assert not (chats_dir() / "s0.json").exists()


async def test_the_data_directory_is_private_whatever_is_written_first(jp_fetch, findings):
    with findings.case("a chat first"):
        assert (await put(jp_fetch, "first", json.dumps(chat()))).code == 200
        for folder in (chats_dir(), chats_dir().parent):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
