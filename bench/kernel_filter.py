"""What the kernel websocket's secret filter costs per message, measured on the filter itself.

bench/agent-overhead.ts and bench/kernel-roundtrip.ts time whole round trips through a real
server, where the filter's share drowns in the noise of a shared machine. This times the part
the filter adds to every kernel message (jupyterlab_notebook_agent/kernel_websocket.py): the
server's current secret set (a fingerprint check: environment lookups and one ``stat``) and the
scan of the message's JSON frames, for the messages of one ``1+1`` round trip and of a cell
printing 1 MiB (the output of bench/agent-overhead.ts), with 1, 2 and 6 secrets, none present.

Run: python bench/kernel_filter.py [rounds=200]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jupyterlab_notebook_agent.config import NotebookAgent  # noqa: E402
from jupyterlab_notebook_agent.key_store import KeyStore  # noqa: E402
from jupyterlab_notebook_agent.server_secrets import ServerSecrets  # noqa: E402

SECRETS = [
    "sk-bench-env-key-0123456789abcdef",
    "sk-bench-provider-key-0123456789",
    "hdr-bench-secret-value-0123456789",
    "org-bench-0123456789",
    "b7x2",
    "query-bench-0123456789",
]


def frames(content: dict, msg_type: str) -> list[bytes]:
    """The JSON frames of one kernel message, as jupyter_client packs them."""
    header = {"msg_id": "a" * 32, "msg_type": msg_type, "username": "u", "session": "s" * 32, "date": "2026-12-01"}
    parts = [header, {"msg_id": "b" * 32, "msg_type": "execute_request"}, {}, content]
    return [json.dumps(p, ensure_ascii=False).encode() for p in parts]


def round_trip(output: str | None) -> list[list[bytes]]:
    """The messages the browser receives for one execution."""
    messages = [
        frames({"execution_state": "busy"}, "status"),
        frames({"code": "1+1", "execution_count": 1}, "execute_input"),
    ]
    if output is None:
        messages.append(frames({"data": {"text/plain": "2"}, "execution_count": 1, "metadata": {}}, "execute_result"))
    else:
        messages.append(frames({"name": "stdout", "text": output}, "stream"))
    messages.append(frames({"status": "ok", "execution_count": 1}, "execute_reply"))
    messages.append(frames({"execution_state": "idle"}, "status"))
    return messages


def provider(count: int, store: KeyStore) -> ServerSecrets:
    env = {"OPENAI_API_KEY": SECRETS[0]}
    os.environ.update(env)
    headers = {f"X-Secret-{i}": s for i, s in enumerate(SECRETS[2:count])}
    profile = {"base_url": "http://127.0.0.1:9/v1", "headers": headers}
    if count >= 2:
        profile["api_key"] = SECRETS[1]
    config = NotebookAgent(providers={"p": profile})
    return ServerSecrets(config, store)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    one_mib = "".join(f"{i:08d}" + "x" * 119 + "\n" for i in range(8192))
    cases = {"1+1": round_trip(None), "1 MiB of output": round_trip(one_mib)}
    store = KeyStore(Path(tempfile.mkdtemp()) / "keys.json")
    print(f"kernel websocket filter: cost per round trip's messages, median of {rounds} rounds")
    for count in (1, 2, 6):
        secrets = provider(count, store)
        matcher = secrets.matcher()
        assert len(matcher.secrets) == count, matcher.secrets
        for name, messages in cases.items():
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                for parts in messages:
                    m = secrets.matcher()  # as kernel_websocket.py does, per message
                    [m.redact(p) for p in parts]
                times.append(time.perf_counter() - start)
            median = statistics.median(times) * 1e6
            print(f"  {count} secret(s), {name:16} {median:8.1f} µs per round trip ({len(messages)} messages)")
    print(
        "\nfor scale, bench/README.md's round trips: 1+1 ~5.5 ms, 1 MiB of output ~13 ms (agent-overhead.ts);"
        " the target is 10 % of those"
    )


if __name__ == "__main__":
    main()
