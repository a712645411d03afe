"""The Llama decoder of onnx_llama.py with onnxruntime's fused operators, for the WebAssembly rung.

Same inputs, outputs and arithmetic as ``onnx_llama.build_model`` (a test
checks the logits agree), but built the way onnxruntime's own model builders
write decoders, from the ``com.microsoft`` operators onnxruntime-web's CPU
build has kernels for:

- ``GroupQueryAttention`` (rotary embedding, KV-cache concatenation, grouped
  heads, causal softmax: one node instead of ~30 per layer), fed one packed
  Q|K|V product;
- ``SimplifiedLayerNormalization`` / ``SkipSimplifiedLayerNormalization``
  (RMSNorm, with the residual add folded in);
- one packed gate|up product per MLP;
- ``DynamicQuantizeMatMul`` for the int8 matrices (activations quantized per
  call, weights per output column, symmetric).

On one WebAssembly thread the decode step is bound by the matrix products;
this layout removes the rest (Transposes, Concats, the decomposed norms and
RoPE) and halves the number of products. Measured on SmolLM2-135M in
Chromium: 31 ms a step with the plain graph quantized by ``quantize_dynamic``,
25 ms with this one (bench/README.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx_llama import LlamaShape

MS = "com.microsoft"


#: The int8 matrices' values lie in ±63 unless a build asks for more (see :func:`build_fused_model`).
INT8_LIMIT = 63


def int8_columns(matrix: np.ndarray, limit: int = 127) -> tuple[np.ndarray, np.ndarray]:
    """A [in, out] matrix as int8 values and one scale per output column (symmetric, ±``limit``)."""
    scales = np.abs(matrix).max(axis=0) / float(limit)
    scales[scales == 0] = 1.0
    values = np.clip(np.rint(matrix / scales), -limit, limit).astype(np.int8)
    return values, scales.astype(np.float32)


class _Graph:
    """Nodes and initializers; every node output gets a unique name."""

    def __init__(self, int8: Callable[[str], bool], int8_limit: int = INT8_LIMIT) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._int8 = int8
        self._int8_limit = int8_limit
        self._n = 0

    def op(self, op_type: str, inputs: list[str], outputs: int | list[str] = 1, **attrs: object) -> list[str]:
        self._n += 1
        names = outputs if isinstance(outputs, list) else [f"{op_type}_{self._n}_{j}" for j in range(outputs)]
        domain = attrs.pop("domain", None)
        self.nodes.append(helper.make_node(op_type, inputs, names, domain=domain, **attrs))
        return names

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def linear(self, x: str, name: str, matrix: np.ndarray) -> str:
        """x @ matrix, in int8 when the caller asked for this matrix in int8."""
        if not self._int8(name):
            return self.op("MatMul", [x, self.const(name, matrix)])[0]
        values, scales = int8_columns(matrix, self._int8_limit)
        inputs = [x, self.const(name + "_int8", values), self.const(name + "_scales", scales)]
        return self.op("DynamicQuantizeMatMul", inputs, domain=MS)[0]


def build_fused_model(
    shape: LlamaShape,
    weights: dict[str, np.ndarray],
    int8: Callable[[str], bool] = lambda name: False,
    untie_output: bool = True,
    max_positions: int = 8192,
    int8_embedding: bool = False,
    int8_limit: int = INT8_LIMIT,
) -> onnx.ModelProto:
    """The decoder with fused operators; ``int8(name)`` picks the matrices stored as int8.

    Matrix names: ``layers.{i}.qkv_proj``, ``.o_proj``, ``.gate_up_proj``,
    ``.down_proj`` and ``lm_head``. With ``untie_output`` the output matrix is a
    float copy of the embedding laid out [hidden, vocab] (its product is ~10 %
    faster than a transposed Gemm over the embedding itself, for +4 bytes a
    parameter); without, the logits come from the embedding matrix directly.
    With ``int8_embedding`` the embedding is stored as int8 with one scale per
    token (a quarter of the bytes: Qwen2's 151936 x 896 table is 545 MB in
    float); the rows a pass looks up are converted back to float.

    ``int8_limit``: the int8 matrices' values lie in ±``int8_limit``. 63 (7 bits, the default) for a graph
    that runs on onnxruntime's native CPU kernels (Node, Python): on x86 CPUs without VNNI (AVX2 only) their
    u8-by-s8 product adds two products in 16 bits with saturation, so 255 * 127 * 2 overflows and the results go
    wrong (onnxruntime's ``reduce_range``); 255 * 63 * 2 fits. 127 only for a graph that runs in
    onnxruntime-web's WebAssembly kernels alone.
    """
    g = _Graph(int8, int8_limit)
    hd, nkv = shape.head_dim, shape.num_kv_heads
    eps = shape.rms_norm_eps
    if int8_embedding and not (untie_output or int8("lm_head")):
        raise ValueError("an int8 embedding cannot be the output matrix: untie it")
    if int8_embedding:
        values, scales = int8_columns(np.ascontiguousarray(weights["embed_tokens"].T))  # a scale per token
        table = g.const("embed_tokens_int8", np.ascontiguousarray(values.T))
        token_scales = g.const("embed_tokens_scales", scales[:, None])
    else:
        embed = g.const("embed_tokens", weights["embed_tokens"])

    # GroupQueryAttention takes the lengths, not the mask: batch 1, no padding.
    one = g.const("one", np.array([1], np.int64))
    seen = g.op("ReduceSum", ["attention_mask", one], keepdims=0)[0]
    seqlens_k = g.op("Cast", [g.op("Sub", [seen, one])[0]], to=TensorProto.INT32)[0]
    width = g.op("Gather", [g.op("Shape", ["attention_mask"])[0], g.const("idx1", np.array(1, np.int64))], axis=0)[0]
    total = g.op("Cast", [width], to=TensorProto.INT32)[0]
    inv_freq = 1.0 / (shape.rope_theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    angles = np.outer(np.arange(max_positions), inv_freq)
    cos = g.const("cos_cache", np.cos(angles).astype(np.float32))
    sin = g.const("sin_cache", np.sin(angles).astype(np.float32))

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
        # Unused (GroupQueryAttention counts positions from the cache), kept so callers feed the same inputs.
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        # The last positions to compute logits for, 0 for all: transformers.js's generate() sends 1, so a
        # prompt pass makes one row of logits instead of one per prompt token (a vocabulary-wide product each).
        helper.make_tensor_value_info("num_logits_to_keep", TensorProto.INT64, []),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", shape.vocab_size])
    ]
    if int8_embedding:
        rows = g.op("Cast", [g.op("Gather", [table, "input_ids"], axis=0)[0]], to=TensorProto.FLOAT)[0]
        x = g.op("Mul", [rows, g.op("Gather", [token_scales, "input_ids"], axis=0)[0]])[0]
    else:
        x = g.op("Gather", [embed, "input_ids"], axis=0)[0]
    branch = None  # the previous attention or MLP output, added to x by the next norm
    for i in range(shape.num_layers):
        p = f"layers.{i}."
        norm = g.const(p + "input_layernorm", weights[p + "input_layernorm"])
        if branch is None:
            h = g.op("SimplifiedLayerNormalization", [x, norm], epsilon=eps, axis=-1, stash_type=1)[0]
        else:
            h, _, _, x = g.op("SkipSimplifiedLayerNormalization", [x, branch, norm], 4, epsilon=eps, domain=MS)
        qkv = np.concatenate([weights[p + "q_proj"], weights[p + "k_proj"], weights[p + "v_proj"]], axis=1)
        packed = g.linear(h, p + "qkv_proj", qkv)
        if shape.attention_bias:
            bias = np.concatenate([weights[p + "q_bias"], weights[p + "k_bias"], weights[p + "v_bias"]])
            packed = g.op("Add", [packed, g.const(p + "qkv_bias", bias)])[0]
        past = [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        present = [f"present.{i}.key", f"present.{i}.value"]
        for name in past:
            inputs.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch_size", nkv, "past_sequence_length", hd])
            )
        for name in present:
            outputs.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch_size", nkv, "total_sequence_length", hd])
            )
        attention = g.op(
            "GroupQueryAttention",
            [packed, "", "", *past, seqlens_k, total, cos, sin],
            [f"attention_{i}", *present],
            num_heads=shape.num_heads,
            kv_num_heads=nkv,
            do_rotary=1,
            rotary_interleaved=0,
            scale=float(1.0 / np.sqrt(hd)),
            domain=MS,
        )[0]
        branch = g.linear(attention, p + "o_proj", weights[p + "o_proj"])
        norm = g.const(p + "post_attention_layernorm", weights[p + "post_attention_layernorm"])
        h, _, _, x = g.op("SkipSimplifiedLayerNormalization", [x, branch, norm], 4, epsilon=eps, domain=MS)
        gate_up = np.concatenate([weights[p + "gate_proj"], weights[p + "up_proj"]], axis=1)
        halves = g.const(p + "halves", np.array([shape.intermediate_size] * 2, np.int64))
        gate, up = g.op("Split", [g.linear(h, p + "gate_up_proj", gate_up), halves], 2, axis=-1)
        act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])[0]])[0], up])[0]
        branch = g.linear(act, p + "down_proj", weights[p + "down_proj"])
    final = g.const("norm", weights["norm"])
    h = g.op("SkipSimplifiedLayerNormalization", [x, branch, final], 4, epsilon=eps, domain=MS)[0]
    start = g.op("Neg", [g.op("Unsqueeze", ["num_logits_to_keep", g.const("axis0", np.array([0], np.int64))])[0]])[0]
    end = g.const("to_end", np.array([np.iinfo(np.int64).max], np.int64))
    h = g.op("Slice", [h, start, end, one])[0]  # axis 1 (sequence); -0 = 0 keeps every position
    if untie_output or int8("lm_head"):
        logits = g.linear(h, "lm_head", weights["lm_head"])
        g.op("Identity", [logits], ["logits"])
    else:
        rows = g.op("Reshape", [h, g.const("rows_shape", np.array([-1, shape.hidden_size], np.int64))])[0]
        flat = g.op("Gemm", [rows, embed], transB=1)[0]
        minus_one = g.const("minus_one", np.array([-1], np.int64))
        logits_shape = g.op("Concat", [g.op("Shape", ["input_ids"])[0], minus_one], axis=0)[0]
        g.op("Reshape", [flat, logits_shape], ["logits"])
    graph = helper.make_graph(g.nodes, "llama_fused", inputs, outputs, g.inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="notebook-agent-tests")
    model.ir_version = 8
    return model
