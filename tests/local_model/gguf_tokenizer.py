"""Build a Hugging Face ``tokenizer.json`` from the tokenizer inside a GGUF file.

Only the GPT-2 style byte-level BPE that SmolLM2 (and Llama 3) use is handled:
vocabulary and merges come from the GGUF metadata, control tokens become
special added tokens.
"""

from __future__ import annotations

from pathlib import Path

from gguf import GGUFReader
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

CONTROL = 3  # llama.cpp token type of special tokens


def _strings(reader: GGUFReader, key: str) -> list[str]:
    field = reader.fields[key]
    return [bytes(field.parts[i]).decode("utf-8") for i in field.data]


def _ints(reader: GGUFReader, key: str) -> list[int]:
    field = reader.fields[key]
    return [int(field.parts[i][0]) for i in field.data]


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
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, kind in zip(tokens, types) if kind == CONTROL]
    )
    named = {}
    for name in ("bos", "eos", "unknown", "padding"):
        index = _int(reader, f"tokenizer.ggml.{name}_token_id")
        if index is not None:
            named[{"unknown": "unk", "padding": "pad"}.get(name, name)] = tokens[index]
    return tokenizer, named
