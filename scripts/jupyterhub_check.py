"""Checks a running JupyterHub (started by scripts/jupyterhub-check.sh) the way its users use Notebook Agent.

Two local users, each with their own single-user server (LocalProcessSpawner,
so each runs as that user): both reach the model through their own server's
proxy; a key one of them stores is used for their requests only and lands in
their own home, mode 0600; the chats each saves are listed for them only; and
neither can reach the other's server. Standard library only. Prints one line
per check and ends with "N passed, N failed".

  python3 scripts/jupyterhub_check.py HUB_URL SERVICE_TOKEN MODEL_URL USER_A USER_B
"""

from __future__ import annotations

import json
import os
import pwd
import stat
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

RESULTS: list[tuple[str, bool]] = []


def check(name: str, ok: bool, detail: object = "") -> None:
    RESULTS.append((name, ok))
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f" ({detail})" if detail and not ok else ""), flush=True)


def call(url: str, token: str, method: str = "GET", body: object | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"token {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        raw = error.read()
        status = error.code
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def start_server(hub: str, token: str, user: str) -> None:
    status, _ = call(f"{hub}/hub/api/users/{user}/server", token, "POST", {})
    if status not in (201, 202, 400):  # 400: already running
        raise SystemExit(f"could not start {user}'s server: {status}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        _, model = call(f"{hub}/hub/api/users/{user}", token)
        server = (model or {}).get("servers", {}).get("", {})
        if server.get("ready"):
            return
        time.sleep(0.5)
    raise SystemExit(f"{user}'s server did not become ready")


def main() -> int:
    hub, service_token, model_url, *users = sys.argv[1:]
    tokens: dict[str, str] = {}
    for user in users:
        call(f"{hub}/hub/api/users", service_token, "POST", {"usernames": [user]})
        start_server(hub, service_token, user)
        status, made = call(f"{hub}/hub/api/users/{user}/tokens", service_token, "POST", {"note": "check"})
        tokens[user] = made["token"]
    check("both single-user servers started", len(tokens) == len(users))

    for user in users:
        base = f"{hub}/user/{user}"
        token = tokens[user]
        status, config = call(f"{base}/notebook-agent/config", token)
        check(f"{user}: the config route answers, with the admin's endpoint", status == 200 and config["configured"])
        key = f"sk-{user}-own-key-0123456789"
        status, stored = call(f"{base}/notebook-agent/keys/default", token, "PUT", {"api_key": key})
        check(f"{user}: stores their own key", status == 200 and stored["key_source"] == "user", stored)
        call(f"{model_url}/_script", token, "POST", {"turns": [{"content": f"hello {user}"}]})
        body = {"messages": [{"role": "user", "content": "hi"}], "stream": False}
        status, answer = call(f"{base}/notebook-agent/v1/chat/completions", token, "POST", body)
        check(
            f"{user}: the model answers through their own server's proxy",
            status == 200 and answer["choices"][0]["message"]["content"] == f"hello {user}",
            status,
        )
        _, requests = call(f"{model_url}/_requests", token)
        sent = requests[-1]["headers"].get("authorization") if requests else None
        check(f"{user}: the request carried their key, and only theirs", sent == f"Bearer {key}", sent)
        chat = {"notebook": f"{user}.ipynb", "title": f"{user}'s chat", "updated": 1, "items": [], "history": []}
        status, _ = call(f"{base}/notebook-agent/chats/chat-{user}", token, "PUT", chat)
        check(f"{user}: saves a chat", status in (200, 204), status)

    for user in users:
        base = f"{hub}/user/{user}"
        _, listed = call(f"{base}/notebook-agent/chats", tokens[user])
        titles = [c["title"] for c in listed["chats"]]
        check(f"{user}: lists only their own chat", titles == [f"{user}'s chat"], titles)
        home = Path(pwd.getpwnam(user).pw_dir)
        keys = home / ".local" / "share" / "jupyter" / "notebook_agent" / "keys.json"
        info = keys.stat() if keys.exists() else None
        owner_ok = info is not None and info.st_uid == pwd.getpwnam(user).pw_uid
        mode_ok = info is not None and stat.S_IMODE(info.st_mode) == 0o600
        check(f"{user}: their key file is in their home, theirs, mode 0600", owner_ok and mode_ok, keys)
        others = [u for u in users if u != user]
        held = json.loads(keys.read_text()) if info else {}
        check(
            f"{user}: their key file holds only their key",
            all(f"sk-{o}-" not in json.dumps(held) for o in others),
        )
        chats = home / ".local" / "share" / "jupyter" / "notebook_agent" / "chats"
        check(f"{user}: their chats are in their home", (chats / f"chat-{user}.json").exists(), chats)

    a, b = users[0], users[1]
    status, _ = call(f"{hub}/user/{b}/notebook-agent/config", tokens[a])
    check(f"{a}'s token cannot reach {b}'s server", status in (403, 404) or status >= 300, status)
    status, _ = call(f"{hub}/user/{b}/notebook-agent/chats", tokens[a])
    check(f"{a}'s token cannot read {b}'s chats", status != 200, status)

    passed = sum(ok for _, ok in RESULTS)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
