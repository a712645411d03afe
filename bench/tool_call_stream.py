"""What the proxy's look across events costs on one long streamed tool call, llama.cpp style.

llama.cpp's server repeats a call's ``id`` and ``name`` on every fragment of its ``arguments``. The look for a
key streamed in pieces (``sse_deltas.DeltaScrubber``) groups fragments by the agent's reader's rule
(``tool_call_grouping.py``); a rule that parses the call's arguments so far at every such fragment costs
O(n²) per call, on the server's event loop. This feeds the scrubber one ``insert_cell`` call of N fragments
(one event each, none finished, 6 secrets, none present) and prints the time per call and per fragment, and the
growth from N to 4N: linear is ~4x.

Run: python bench/tool_call_stream.py [fragments=1000] [--rounds 5] [--before DIR]
  --before DIR: the same on the jupyterlab_notebook_agent in DIR (e.g. ``git archive REV jupyterlab_notebook_agent``
  unpacked there), in a separate process, with the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRETS = (
    "sk-deltas-0123456789-abcdefghij",
    "zq47-secret-value",
    "b7x2-another-value",
    "another-secret-value-123",
    "sk-proj-Zz9-abcdefgh",
    "token-abcdef-987654",
)


def events(fragments: int) -> list[bytes]:
    """One call streamed as llama.cpp streams it: id and name on every fragment."""
    out = []
    for i in range(fragments):
        piece = '{"source": "' if i == 0 else "df = df.dropna()\\n"
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "insert_cell", "arguments": piece}}
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1733400231,
            "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}],
        }
        out.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    return out


def seconds(fragments: int, rounds: int) -> float:
    """The best of ``rounds`` times to feed the whole call, one event at a time."""
    from jupyterlab_notebook_agent.redaction import SecretMatcher
    from jupyterlab_notebook_agent.sse_deltas import DeltaScrubber

    stream = events(fragments)
    best = float("inf")
    for _ in range(rounds):
        scrubber = DeltaScrubber(SecretMatcher(SECRETS))
        start = time.perf_counter()
        for event in stream:
            scrubber.feed(event)
        scrubber.flush()
        best = min(best, time.perf_counter() - start)
    return best


def measure(fragments: int, rounds: int) -> dict[str, float]:
    return {str(n): seconds(n, rounds) for n in (fragments, 4 * fragments)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fragments", nargs="?", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one side, for --before
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.fragments, args.rounds)))
        return
    sides = {"this checkout": ROOT}
    if args.before:
        if not (args.before / "jupyterlab_notebook_agent" / "sse_deltas.py").is_file():
            parser.error(f"--before {args.before}: no jupyterlab_notebook_agent/sse_deltas.py there")
        sides["before"] = args.before.resolve()
    figures = {}
    for label, where in sides.items():
        env = {**os.environ, "PYTHONPATH": str(where)}
        command = [sys.executable, __file__, str(args.fragments), "--rounds", str(args.rounds), "--json"]
        figures[label] = json.loads(subprocess.run(command, env=env, check=True, capture_output=True).stdout)
    n, big = str(args.fragments), str(4 * args.fragments)
    print(f"one streamed call, llama.cpp style, 6 secrets, best of {args.rounds}:")
    for label, figure in figures.items():
        growth = figure[big] / figure[n]
        print(
            f"  {label:>13}: {n} fragments {figure[n] * 1e3:8.1f} ms ({figure[n] / int(n) * 1e6:6.1f} µs each),"
            f" {big} fragments {figure[big] * 1e3:8.1f} ms; growth {growth:.1f}x (linear ~4x)"
        )
    mine = figures["this checkout"]
    if "before" in figures:
        print(f"  vs before: {mine[big] / figures['before'][big]:.2f}x at {big} fragments")
    growth = mine[big] / mine[n]
    print(f"target: linear in the call's length (growth ≤ 5x from {n} to {big}): {'PASS' if growth <= 5 else 'MISS'}")


if __name__ == "__main__":
    main()
