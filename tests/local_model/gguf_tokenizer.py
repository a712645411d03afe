"""Build a Hugging Face ``tokenizer.json`` from the tokenizer inside a GGUF file.

Only the GPT-2 style byte-level BPE is handled, with the pre-tokenizers of
SmolLM2 (``tokenizer.ggml.pre`` "smollm": GPT-2's regex, digits one by one)
and Qwen2 ("qwen2": its own split regex, NFC-normalized, as in Qwen2.5's
tokenizer.json): vocabulary and merges come from the GGUF metadata, control
tokens become special added tokens, user-defined ones (Qwen's ``<tool_call>``)
plain added tokens.
"""

from __future__ import annotations

from pathlib import Path

from gguf import GGUFReader
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

CONTROL = 3  # llama.cpp token type of special tokens
USER_DEFINED = 4  # added tokens that are not special

# Qwen2's pre-tokenizer split (its tokenizer.json; llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN2).
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _strings(reader: GGUFReader, key: str) -> list[str]:
    field = reader.fields[key]
    return [bytes(field.parts[i]).decode("utf-8") for i in field.data]


def _ints(reader: GGUFReader, key: str) -> list[int]:
    field = reader.fields[key]
    return [int(field.parts[i][0]) for i in field.data]


def _string(reader: GGUFReader, key: str) -> str:
    field = reader.fields[key]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def _int(reader: GGUFReader, key: str) -> int | None:
    field = reader.fields.get(key)
    return int(field.parts[field.data[0]][0]) if field else None


def read_gguf_tokenizer(path: Path) -> tuple[Tokenizer, dict[str, str]]:
    """The tokenizer and its named special tokens (bos, eos, unk, pad)."""
    reader = GGUFReader(str(path))
    tokens = _strings(reader, "tokenizer.ggml.tokens")
    types = _ints(reader, "tokenizer.ggml.token_type")
    merges = [tuple(m.split(" ", 1)) for m in _strings(reader, "tokenizer.ggml.merges")]
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    pre = _string(reader, "tokenizer.ggml.pre")
    if pre == "qwen2":
        tokenizer.normalizer = normalizers.NFC()
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    elif pre == "smollm":
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )
    else:
        raise SystemExit(f"unsupported tokenizer.ggml.pre {pre!r} (smollm and qwen2 are)")
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, kind in zip(tokens, types) if kind == CONTROL]
    )
    tokenizer.add_tokens(
        [AddedToken(t, special=False, normalized=False) for t, kind in zip(tokens, types) if kind == USER_DEFINED]
    )
    named = {}
    for name in ("bos", "eos", "unknown", "padding"):
        index = _int(reader, f"tokenizer.ggml.{name}_token_id")
        if index is not None:
            named[{"unknown": "unk", "padding": "pad"}.get(name, name)] = tokens[index]
    return tokenizer, named
