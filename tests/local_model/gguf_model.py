"""What the GGUF-to-ONNX builds share: a model's shape and float weights read from a GGUF file, and
the check of a built graph's next-token predictions against llama.cpp's on the same GGUF.

Two architectures, both decoded by the graphs of onnx_llama.py / onnx_llama_fused.py:

- ``llama`` (SmolLM2): llama.cpp's converter permutes the query and key rows for its interleaved
  RoPE; they are permuted back for the graphs' rotate-half RoPE (as transformers' GGUF loader does).
- ``qwen2`` (Qwen2.5): the query, key and value projections have biases; llama.cpp runs its RoPE in
  the NEOX (rotate-half) layout and its converter leaves the rows as they are.

Every dimension comes from the GGUF metadata, under the architecture's prefix.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize
from onnx_llama import LlamaShape

# Our weight names (onnx_llama.py) -> llama.cpp's, per layer.
MATRICES = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
    "gate_proj": "ffn_gate",
    "up_proj": "ffn_up",
    "down_proj": "ffn_down",
}


def scalar(reader: GGUFReader, key: str) -> float | int | bool:
    field = reader.fields[key]
    return field.parts[field.data[0]][0].item()


def string(reader: GGUFReader, key: str) -> str:
    field = reader.fields[key]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def architecture(reader: GGUFReader) -> str:
    return string(reader, "general.architecture")


def read_shape(reader: GGUFReader) -> LlamaShape:
    """The model's dimensions, from the GGUF metadata."""
    arch = architecture(reader)
    if arch not in ("llama", "qwen2"):
        raise SystemExit(f"unsupported GGUF architecture {arch!r} (llama and qwen2 are)")

    def meta(key: str) -> float | int | bool:
        return scalar(reader, f"{arch}.{key}")

    hidden = int(meta("embedding_length"))
    heads = int(meta("attention.head_count"))
    names = {t.name for t in reader.tensors}
    vocab = (
        int(meta("vocab_size"))
        if f"{arch}.vocab_size" in reader.fields
        else len(reader.fields["tokenizer.ggml.tokens"].data)
    )
    return LlamaShape(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=int(meta("feed_forward_length")),
        num_layers=int(meta("block_count")),
        num_heads=heads,
        num_kv_heads=int(meta("attention.head_count_kv")),
        head_dim=hidden // heads,
        rope_theta=float(meta("rope.freq_base")),
        rms_norm_eps=float(meta("attention.layer_norm_rms_epsilon")),
        attention_bias="blk.0.attn_q.bias" in names,
    )


def context_length(reader: GGUFReader) -> int:
    return int(scalar(reader, f"{architecture(reader)}.context_length"))


def unpermute(weight: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's query/key row permutation of the llama architecture ([out, ...] array)."""
    dim = weight.shape[0] // heads // 2
    return weight.reshape(heads, dim, 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)


def read_weights(reader: GGUFReader, shape: LlamaShape) -> dict[str, np.ndarray]:
    """Dequantized weights, named as onnx_llama.py wants them (matrices [in, out])."""
    permuted = architecture(reader) == "llama"
    tensors = {}
    for tensor in reader.tensors:
        # numpy shape is GGUF's reversed: [out, in] for matrices. gguf.quants dequantizes every
        # block type these files use (Q4_0/1, Q5_0, Q8_0, the k-quants Q4_K and Q6_K).
        tensors[tensor.name] = dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
    embed = tensors["token_embd.weight"]
    weights = {
        "embed_tokens": embed,
        "norm": tensors["output_norm.weight"],
        # Tied embeddings: no output.weight in the file.
        "lm_head": np.ascontiguousarray(tensors.get("output.weight", embed).T),
    }
    heads = {"q": shape.num_heads, "k": shape.num_kv_heads}
    for i in range(shape.num_layers):
        blk, p = f"blk.{i}.", f"layers.{i}."
        weights[p + "input_layernorm"] = tensors[blk + "attn_norm.weight"]
        weights[p + "post_attention_layernorm"] = tensors[blk + "ffn_norm.weight"]
        for ours, theirs in MATRICES.items():
            matrix = tensors[blk + theirs + ".weight"]
            if permuted and ours[0] in heads:
                matrix = unpermute(matrix, heads[ours[0]])
            weights[p + ours] = np.ascontiguousarray(matrix.T)
        if shape.attention_bias:
            for part in "qkv":
                bias = tensors[blk + f"attn_{part}.bias"]
                weights[p + f"{part}_bias"] = unpermute(bias, heads[part]) if permuted and part in heads else bias
    return weights


def onnx_logits(path: Path, ids: list[int]) -> np.ndarray:
    """Every prompt position's logits from a built graph (onnxruntime on the CPU)."""
    import onnxruntime as ort

    config = json.loads((path.parent.parent / "config.json").read_text())
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    kv, hd = config["num_key_value_heads"], config["head_dim"]
    feeds: dict[str, np.ndarray] = {
        "input_ids": np.array([ids], np.int64),
        "attention_mask": np.ones((1, len(ids)), np.int64),
        "position_ids": np.arange(len(ids), dtype=np.int64)[None],
    }
    for i in range(config["num_hidden_layers"]):
        for part in ("key", "value"):
            feeds[f"past_key_values.{i}.{part}"] = np.zeros((1, kv, 0, hd), np.float32)
    if "num_logits_to_keep" in {i.name for i in session.get_inputs()}:
        feeds["num_logits_to_keep"] = np.array(0, np.int64)  # every position's
    return session.run(["logits"], feeds)[0][0]


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


#: How many of llama.cpp's most likely next tokens each position's KL is summed over (its server gives no more).
TOP = 20


def check_against_llama_cpp(out: Path, gguf: Path, prompt: str, graphs: list[str]) -> dict[str, float]:
    """Top-1 agreement of each graph's next-token predictions with llama.cpp's, per prompt position.

    llama.cpp is its own ``llama-server`` on the same GGUF (tests/llama_server.py): one ``/completion`` of
    one token per prompt position, each giving its ``TOP`` most likely next tokens (the prompt's cache makes
    each a step). ``prompt`` ends inside the assistant's reply ("...assistant\\n" and a few words): the
    agreement there is printed on its own.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, where llama_server.py is
    from llama_server import llama_server, post, tokenize
    from tokenizers import Tokenizer

    with llama_server(gguf, gguf.stem, context=512) as url:
        ids = tokenize(url, prompt)
        start = len(tokenize(url, prompt.split("assistant\n")[0] + "assistant\n"))
        # Per position: llama.cpp's TOP next tokens (id -> log-probability); the first is its top-1.
        reference: list[dict[int, float]] = []
        for end in range(1, len(ids) + 1):
            body = {"prompt": ids[:end], "n_predict": 1, "n_probs": TOP, "temperature": 0, "cache_prompt": True}
            [step] = post(url, "/completion", body)["completion_probabilities"]
            reference.append({top["id"]: top["logprob"] for top in step["top_logprobs"]})
    top_ref = np.array([next(iter(tops)) for tops in reference])
    ours = Tokenizer.from_file(str(out / "tokenizer.json")).encode(prompt).ids
    if ours != list(ids):
        print(f"warning: tokenizers differ ({len(ours)} vs {len(ids)} tokens)")
    agreement = {}
    for name in graphs:
        logits = onnx_logits(out / "onnx" / name, list(ids))
        top = logits.argmax(-1)
        agree = float((top == top_ref).mean())
        # Also: where the answer is determined (the assistant's reply), token by token.
        reply = float((top[start - 1 : -1] == top_ref[start - 1 : -1]).mean())
        log_ours = np.log(softmax(logits) + 1e-12)
        kl = float(
            np.mean(
                [
                    sum(np.exp(lp) * (lp - log_ours[position, token]) for token, lp in tops.items())
                    for position, tops in enumerate(reference)
                ]
            )
        )
        print(
            f"{name}: top-1 agrees with llama.cpp at {int((top == top_ref).sum())}/{len(ids)} positions "
            f"({agree:.0%}); in the assistant's reply {reply:.0%}; mean KL(llama.cpp || ours) over llama.cpp's "
            f"top {TOP} tokens {kl:.4f}"
        )
        agreement[name] = agree
    return agreement
