"""llama.cpp's llama-server with Qwen2.5-Coder-0.5B-Instruct for the inline completion UI test.

The model and the server come from ``scripts/real_model.py`` (cached under
~/.cache/notebook-agent; the test command fetches them in its install lane).
The server needs the key the Jupyter server holds (``--api-key``), so a
suggestion that reaches it proves the proxy added the key; greedy sampling
(``--temp 0``) keeps one machine's suggestions the same from run to run.

    python ui-tests/completion/serve_model.py PORT KEY
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import real_model  # the scripts folder is on the path only now


def main() -> None:
    port, key = sys.argv[1], sys.argv[2]
    spec = real_model.MODELS["qwen2.5-coder-0.5b"]
    model = real_model.ensure_model("qwen2.5-coder-0.5b")
    binary = real_model.ensure_server()
    threads = str(min(os.cpu_count() or 2, 4))
    args = [
        str(binary),
        *("-m", str(model), "--alias", spec["name"]),
        *("--host", "127.0.0.1", "--port", port, "--api-key", key),
        *("-c", "4096", "-t", threads, "--parallel", "1", "--temp", "0", "--seed", "1"),
    ]
    # Playwright stops the process it started: this one becomes the server.
    os.execv(args[0], args)


if __name__ == "__main__":
    main()
