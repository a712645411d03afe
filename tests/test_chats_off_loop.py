"""A saved chat is read (GET) and saved (PUT) off the event loop once it is more than a few hundred KiB.

An outside review (D7) stalled the server through ``notebook-agent/chats/<id>``: a GET of a 20 MiB chat of
many small JSON values was parsed (``json.loads``) and serialised again (``json.dumps``) on the event loop
(``/api/status`` waited 1.9 s for one GET, 5.7 s for four at once), and a PUT body just under the 1 MiB
off-loop threshold cost the loop about 90 ms (twenty at once: 1.3 s). Now a chat whose file (GET) or body
(PUT) is over :data:`.chats.OFF_LOOP_CHAT_BYTES` is handled in the request worker; a smaller one stays on
the loop (the worker costs a round trip); and the GET answers exactly what it answered before, byte for byte,
damaged files included.

The server's event loop runs in the test's thread: a parse on it is seen there (no timing needed). In the
worker process the test's patches are not there at all (in its fallback thread they are, off the loop).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_data_dir

from jupyterlab_notebook_agent import chats, request_worker

CHATS = "notebook-agent/chats"
KIB = 1024
#: In every chat these tests write: how the parses of their chats are told from any other.
MARKER = "off-loop-probe"

real_loads = json.loads

pytestmark = pytest.mark.fault_category("malformed input")


def chats_dir() -> Path:
    return Path(jupyter_data_dir()) / "notebook_agent" / "chats"


def zeros_chat(size: int, title: str = MARKER) -> bytes:
    """The review's worst shape: about ``size`` bytes of one-character JSON values (``[0,0,...]``)."""
    head = json.dumps({"title": title, "updated": 1})[:-1].encode() + b', "pad": ['
    return head + b"0," * ((size - len(head)) // 2 - 1) + b"0]}"


def rich_chat(size: int) -> dict:
    """A chat of about ``size`` bytes whose answer differs from its file: non-ASCII text (the file keeps it
    as it is, the answer escapes it), floats, escapes, nested values, fields the schema does not know."""
    entry = {"kind": "assistant", "text": f'{MARKER} héllo ✓ 😀 "q" \\ \t tab', "n": 1.5e-7, "ok": None, "x": [1, {}]}
    count = size // len(json.dumps(entry, ensure_ascii=False))
    return {"version": 2, "title": "Grand ✓", "notebook": "dir/é.ipynb", "updated": 1.25, "entries": [entry] * count}


def todays_answer(chat_id: str, path: Path) -> tuple[int, bytes]:
    """What ``GET notebook-agent/chats/<id>`` answered for the file at ``path`` before this change."""
    try:
        chat = real_loads(path.read_text(encoding="utf-8"))
        if not isinstance(chat, dict):
            raise ValueError("it is not a JSON object")
        return 200, json.dumps(chat, allow_nan=False).encode()
    except RecursionError:
        problem = "it is nested too deeply"
    except ValueError as error:
        problem = str(error)
    message = f"The saved chat {chat_id} is damaged and cannot be loaded ({problem})."
    return 404, json.dumps({"error": {"message": message}}).encode()


@pytest.fixture
def watch(monkeypatch):
    """Where each of these tests' chats is parsed (threads), and what went to the request worker."""
    loads_in: list[int] = []
    sent: list[str] = []

    def loads(text, *args, **kwargs):
        if isinstance(text, str) and MARKER in text:
            loads_in.append(threading.get_ident())
        return real_loads(text, *args, **kwargs)

    real_off_loop = chats.off_loop

    async def off_loop(function, *args):
        sent.append(function.__name__)
        return await real_off_loop(function, *args)

    monkeypatch.setattr(json, "loads", loads)
    monkeypatch.setattr(chats, "off_loop", off_loop)
    return loads_in, sent


def threshold() -> int:
    # Today's code has one threshold for PUTs (1 MiB) and none for GETs.
    return getattr(chats, "OFF_LOOP_CHAT_BYTES", 1024 * KIB)


async def test_a_large_chat_is_read_off_the_event_loop_and_answered_as_before(jp_fetch, watch):
    loads_in, sent = watch
    loop_thread = threading.get_ident()
    directory = chats_dir()
    directory.mkdir(parents=True, exist_ok=True)
    # Saved by the route (as the sidebar does), and written by hand (other spacing, non-ASCII as it is).
    response = await jp_fetch(CHATS, "rich", method="PUT", body=json.dumps(rich_chat(2048 * KIB)), raise_error=False)
    assert response.code == 200, response.body[:300]
    hand = {**rich_chat(600 * KIB), "id": "hand"}
    (directory / "hand.json").write_text(json.dumps(hand, ensure_ascii=False, indent=1), encoding="utf-8")
    (directory / "zeros.json").write_bytes(zeros_chat(3 * 1024 * KIB))
    loads_in.clear()
    sent.clear()
    for chat_id in ("rich", "hand", "zeros"):
        path = directory / f"{chat_id}.json"
        assert path.stat().st_size > 512 * KIB
        response = await jp_fetch(CHATS, chat_id, raise_error=False)
        assert (response.code, response.body) == todays_answer(chat_id, path), chat_id
        assert response.headers["Content-Type"] == "application/json", response.headers["Content-Type"]
    assert loop_thread not in loads_in, "a large chat was parsed on the server's event loop"
    assert len(sent) == 3, sent


async def test_a_large_damaged_chat_is_answered_as_before(jp_fetch, watch):
    loads_in, sent = watch
    loop_thread = threading.get_ident()
    directory = chats_dir()
    directory.mkdir(parents=True, exist_ok=True)
    whole = zeros_chat(400 * KIB)
    damaged = {
        "cut": whole[: len(whole) // 2],  # invalid JSON, far into the file
        "nan": whole[:-2] + b", NaN]}",  # parses, but is no JSON to answer with
        "array": b"[" + whole + b"]",  # not an object
        "deep": b'["' + MARKER.encode() + b'", ' + b"[" * 200_000 + b"]" * 200_001,  # nested too deeply
        "latin": whole[:-3] + "é".encode("latin-1") + b"]}",  # not UTF-8
    }
    for chat_id, data in damaged.items():
        (directory / f"{chat_id}.json").write_bytes(data)
    loads_in.clear()
    for chat_id in damaged:
        path = directory / f"{chat_id}.json"
        code, body = todays_answer(chat_id, path)
        assert code == 404 and b"is damaged" in body, (chat_id, body[:300])
        response = await jp_fetch(CHATS, chat_id, raise_error=False)
        assert (response.code, response.body) == (code, body), chat_id
    assert loop_thread not in loads_in, "a large chat was parsed on the server's event loop"
    assert len(sent) == len(damaged), sent
    # A missing chat is still a plain 404, and a bad id a 400, neither of them sent to the worker.
    response = await jp_fetch(CHATS, "missing", raise_error=False)
    assert response.code == 404 and b"There is no chat missing" in response.body
    response = await jp_fetch(CHATS, "a.b", raise_error=False)
    assert response.code == 400, response.body[:300]
    assert len(sent) == len(damaged), sent


async def test_a_put_between_the_new_and_the_old_threshold_is_parsed_off_the_event_loop(jp_fetch, watch):
    loads_in, sent = watch
    loop_thread = threading.get_ident()
    body = zeros_chat(300 * KIB)
    assert 256 * KIB < len(body) < 1024 * KIB
    response = await jp_fetch(CHATS, "mid", method="PUT", body=body, raise_error=False)
    assert response.code == 200, response.body[:300]
    assert loop_thread not in loads_in, "a 300 KiB chat was parsed on the server's event loop"
    assert len(sent) == 1, sent
    saved = real_loads((chats_dir() / "mid.json").read_text(encoding="utf-8"))
    assert saved == {**real_loads(body), "id": "mid"}
    # The file holds what it held before, byte for byte (non-ASCII text as it is), and so does its .meta.
    rich = rich_chat(300 * KIB)
    response = await jp_fetch(CHATS, "mid", method="PUT", body=json.dumps(rich), raise_error=False)
    assert response.code == 200, response.body[:300]
    file = chats_dir() / "mid.json"
    assert file.read_bytes() == json.dumps({**rich, "id": "mid"}, ensure_ascii=False, allow_nan=False).encode()
    meta = {"id": "mid", "title": rich["title"], "notebook": rich["notebook"], "updated": rich["updated"]}
    assert file.with_suffix(".meta").read_bytes() == json.dumps(meta, ensure_ascii=False).encode()
    assert loop_thread not in loads_in and len(sent) == 2, sent
    # What is wrong with it is still a 400 naming the field.
    bad = zeros_chat(300 * KIB, title=MARKER + "\n")
    response = await jp_fetch(CHATS, "mid", method="PUT", body=bad, raise_error=False)
    assert response.code == 400 and json.loads(response.body)["error"]["field"] == "title", response.body[:300]
    assert loop_thread not in loads_in


async def test_a_small_chat_stays_on_the_event_loop(jp_fetch, watch):
    loads_in, sent = watch
    loop_thread = threading.get_ident()
    body = json.dumps(rich_chat(16 * KIB))
    assert len(body.encode()) < threshold()
    response = await jp_fetch(CHATS, "small", method="PUT", body=body, raise_error=False)
    assert response.code == 200, response.body[:300]
    path = chats_dir() / "small.json"
    assert path.stat().st_size < threshold()
    response = await jp_fetch(CHATS, "small", raise_error=False)
    assert (response.code, response.body) == todays_answer("small", path)
    assert response.headers["Content-Type"] == "application/json"
    # Parsed twice on the loop (the PUT's body, the GET's file), never sent to the worker.
    assert loads_in == [loop_thread, loop_thread] and sent == []


async def test_a_disk_error_in_the_worker_is_answered_as_on_the_loop_and_keeps_the_worker(jp_fetch, watch, monkeypatch):
    """An OSError raised by the worker's function is no failure of the worker (off_loop would drop it)."""
    _, sent = watch
    directory = chats_dir()
    (directory / "folder.json").mkdir(parents=True)  # found, but cannot be read: a 500 saying why
    on_loop = await jp_fetch(CHATS, "folder", raise_error=False)
    assert on_loop.code == 500 and b"Is a directory" in on_loop.body, on_loop.body[:300]
    assert sent == []
    await jp_fetch(CHATS, "warm", method="PUT", body=zeros_chat(300 * KIB), raise_error=False)  # the worker runs
    worker = request_worker._pool
    monkeypatch.setattr(chats, "OFF_LOOP_CHAT_BYTES", 0, raising=False)
    in_worker = await jp_fetch(CHATS, "folder", raise_error=False)
    assert (in_worker.code, in_worker.body) == (on_loop.code, on_loop.body)
    assert len(sent) == 2 and request_worker._pool is worker is not None


async def test_a_read_waits_for_a_save_still_in_the_worker(jp_fetch, monkeypatch):
    """A page saves a long chat and reloads: the save is still in the worker when the reload asks for the chats. The
    list and the chat must be the saved ones (they were the old ones: the security UI test's reload restored the
    chat before the last)."""
    import asyncio

    real_off_loop = chats.off_loop
    in_worker = asyncio.Event()

    async def slow_off_loop(function, *args):
        if function is chats.encode_chat:
            in_worker.set()
            await asyncio.sleep(0.5)  # a worker still starting, or busy
        return await real_off_loop(function, *args)

    monkeypatch.setattr(chats, "off_loop", slow_off_loop)
    old = json.dumps({"title": "Old", "notebook": "nb.ipynb", "updated": 1}).encode()
    assert (await jp_fetch(CHATS, "reloaded", method="PUT", body=old)).code == 200
    new = json.loads(zeros_chat(300 * KIB, title="New"))
    new.update(notebook="nb.ipynb", updated=2)
    saving = asyncio.ensure_future(jp_fetch(CHATS, "reloaded", method="PUT", body=json.dumps(new)))
    await asyncio.wait_for(in_worker.wait(), 30)
    listed = json.loads((await jp_fetch(CHATS, params={"notebook": "nb.ipynb"})).body)["chats"]
    got = json.loads((await jp_fetch(CHATS, "reloaded")).body)
    assert (await saving).code == 200
    assert [c["title"] for c in listed if c["id"] == "reloaded"] == ["New"], listed
    assert got["title"] == "New"
