"""History list speed: listing N saved chats of SIZE bytes, from .meta files vs parsing every chat.

    python bench/chat_list.py [N] [SIZE]      (default 300 chats of 1 MB)

Prints the median of 5 listings each way and the ratio. The "parse every
chat" figure is what the list cost before .meta files (and still costs for
chats saved before them).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jupyterlab_notebook_agent.chats import ChatStore


def median_ms(store: ChatStore) -> float:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        store.list("notebook-7.ipynb")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        store = ChatStore(Path(folder))
        for i in range(count):
            chat = {"notebook": f"notebook-{i % 10}.ipynb", "title": f"Chat {i}", "updated": i}
            store.put(f"c{i}", {**chat, "history": [{"role": "user", "content": "x" * size}]})
        with_meta = median_ms(store)
        for meta in Path(folder).glob("*.meta"):
            meta.unlink()
        without = median_ms(store)
    print(f"{count} chats of {size / 1e6:.1f} MB each")
    print(f"list from .meta files: {with_meta:.1f} ms; parsing every chat: {without:.1f} ms")
    print(f"ratio: {without / with_meta:.0f}x faster")


if __name__ == "__main__":
    main()
