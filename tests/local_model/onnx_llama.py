"""Build a Llama-architecture decoder as an ONNX graph, without torch.

The graph has the inputs and outputs transformers.js expects of a decoder
with a KV cache: ``input_ids``, ``attention_mask``, ``position_ids`` and
``past_key_values.{i}.key|value`` in; ``logits`` and ``present.{i}.key|value``
out. Grouped-query attention, RoPE (rotate-half), RMSNorm and SwiGLU follow
``transformers``' ``LlamaForCausalLM``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


@dataclass(frozen=True)
class LlamaShape:
    """The dimensions of a Llama model."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5
    # Biases on the query, key and value projections (Qwen2 has them, Llama not): weights
    # ``layers.{i}.q_bias``, ``.k_bias`` and ``.v_bias``.
    attention_bias: bool = False


def random_weights(shape: LlamaShape, seed: int = 0) -> dict[str, np.ndarray]:
    """Random weights, named as in ``LlamaForCausalLM`` (matrices as [in, out])."""
    rng = np.random.default_rng(seed)
    h, q, kv = shape.hidden_size, shape.num_heads * shape.head_dim, shape.num_kv_heads * shape.head_dim

    def mat(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols)) * 0.05).astype(np.float32)

    weights = {
        "embed_tokens": mat(shape.vocab_size, h),
        "norm": np.ones(h, np.float32),
        "lm_head": mat(h, shape.vocab_size),
    }
    for i in range(shape.num_layers):
        p = f"layers.{i}."
        weights |= {
            p + "input_layernorm": np.ones(h, np.float32),
            p + "post_attention_layernorm": np.ones(h, np.float32),
            p + "q_proj": mat(h, q),
            p + "k_proj": mat(h, kv),
            p + "v_proj": mat(h, kv),
            p + "o_proj": mat(q, h),
            p + "gate_proj": mat(h, shape.intermediate_size),
            p + "up_proj": mat(h, shape.intermediate_size),
            p + "down_proj": mat(shape.intermediate_size, h),
        }
        if shape.attention_bias:
            weights |= {p + "q_bias": mat(1, q)[0], p + "k_bias": mat(1, kv)[0], p + "v_bias": mat(1, kv)[0]}
    return weights


class _Graph:
    """Collects nodes and initializers with unique names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def op(self, op_type: str, inputs: list[str], **attrs: object) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def rms_norm(self, x: str, weight: str, eps: float) -> str:
        var = self.op("ReduceMean", [self.op("Mul", [x, x])], axes=[-1], keepdims=1)
        inv = self.op("Reciprocal", [self.op("Sqrt", [self.op("Add", [var, "eps"])])])
        return self.op("Mul", [self.op("Mul", [x, inv]), weight])


def build_model(shape: LlamaShape, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """The decoder graph with ``weights`` as initializers."""
    g = _Graph()
    hd, nh, nkv = shape.head_dim, shape.num_heads, shape.num_kv_heads
    rep = nh // nkv
    for name, value in weights.items():
        g.const(name, value)
    g.const("eps", np.array(shape.rms_norm_eps, np.float32))
    g.const("scale", np.array(1.0 / np.sqrt(hd), np.float32))
    inv_freq = 1.0 / (shape.rope_theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    g.const("inv_freq", inv_freq.astype(np.float32))
    g.const("one", np.array(1, np.int64))
    g.const("zero_f", np.array(0.0, np.float32))
    g.const("neg_inf", np.array(-3.0e38, np.float32))
    g.const("q_shape", np.array([0, 0, nh, hd], np.int64))
    g.const("kv_shape", np.array([0, 0, nkv, hd], np.int64))
    g.const("q_group_shape", np.array([0, nkv, rep, -1, hd], np.int64))
    g.const("heads_shape", np.array([0, nh, -1, hd], np.int64))
    g.const("merge_shape", np.array([0, 0, -1], np.int64))
    g.const("ax1", np.array([1], np.int64))
    g.const("ax2", np.array([2], np.int64))
    g.const("ax_m1", np.array([-1], np.int64))
    g.const("idx1", np.array([1], np.int64))
    half = hd // 2
    g.const("split_half", np.array([half, half], np.int64))

    # RoPE tables from position_ids: [B, 1, S, hd].
    pos = g.op("Unsqueeze", [g.op("Cast", ["position_ids"], to=TensorProto.FLOAT), "ax_m1"])
    freqs = g.op("Mul", [pos, "inv_freq"])
    emb = g.op("Concat", [freqs, freqs], axis=-1)
    cos = g.op("Unsqueeze", [g.op("Cos", [emb]), "ax1"])
    sin = g.op("Unsqueeze", [g.op("Sin", [emb]), "ax1"])

    # Mask [B, 1, 1, S, T]: causal (query i sits at T - S + i) and padding.
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), "idx1"], axis=0)
    total = g.op("Gather", [g.op("Shape", ["attention_mask"]), "idx1"], axis=0)
    seq_s = g.op("Squeeze", [seq])
    total_s = g.op("Squeeze", [total])
    rows = g.op("Range", [g.op("Sub", [total_s, seq_s]), total_s, "one"])
    cols = g.op("Range", [g.op("Sub", [total_s, total_s]), total_s, "one"])
    causal = g.op(
        "LessOrEqual", [g.op("Unsqueeze", [cols, np_axes(g, "ax0", [0])]), g.op("Unsqueeze", [rows, "ax_m1"])]
    )
    pad = g.op("Cast", ["attention_mask"], to=TensorProto.BOOL)
    pad = g.op("Unsqueeze", [pad, np_axes(g, "ax123", [1, 2, 3])])
    allowed = g.op("And", [causal, pad])
    mask = g.op("Where", [allowed, "zero_f", "neg_inf"])

    def rope(x: str) -> str:
        x1, x2 = g.op("Identity", [x]) + "_a", g.op("Identity", [x]) + "_b"
        g.nodes[-2:] = [helper.make_node("Split", [x, "split_half"], [x1, x2], axis=-1)]
        rotated = g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)
        return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [rotated, sin])])

    x = g.op("Gather", ["embed_tokens", "input_ids"], axis=0)
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", shape.vocab_size])
    ]
    for i in range(shape.num_layers):
        p = f"layers.{i}."
        past_k, past_v = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        for name in (past_k, past_v):
            inputs.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch_size", nkv, "past_sequence_length", hd])
            )
        h = g.rms_norm(x, p + "input_layernorm", shape.rms_norm_eps)

        def project(name: str, heads_shape: str, h: str = h, p: str = p) -> str:
            y = g.op("MatMul", [h, p + name + "_proj"])
            if shape.attention_bias:
                y = g.op("Add", [y, p + name + "_bias"])
            return g.op("Transpose", [g.op("Reshape", [y, heads_shape])], perm=[0, 2, 1, 3])

        q, k, v = project("q", "q_shape"), project("k", "kv_shape"), project("v", "kv_shape")
        q, k = rope(q), rope(k)
        present_k, present_v = f"present.{i}.key", f"present.{i}.value"
        g.nodes.append(helper.make_node("Concat", [past_k, k], [present_k], axis=2))
        g.nodes.append(helper.make_node("Concat", [past_v, v], [present_v], axis=2))
        for name in (present_k, present_v):
            outputs.append(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch_size", nkv, "total_sequence_length", hd])
            )
        # Grouped-query attention without repeating K/V: [B, nkv, rep, S, hd].
        qg = g.op("Reshape", [q, "q_group_shape"])
        kt = g.op("Unsqueeze", [g.op("Transpose", [present_k], perm=[0, 1, 3, 2]), "ax2"])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [qg, kt]), "scale"]), mask])
        probs = g.op("Softmax", [scores], axis=-1)
        attn = g.op("MatMul", [probs, g.op("Unsqueeze", [present_v, "ax2"])])
        attn = g.op("Transpose", [g.op("Reshape", [attn, "heads_shape"])], perm=[0, 2, 1, 3])
        attn = g.op("MatMul", [g.op("Reshape", [attn, "merge_shape"]), p + "o_proj"])
        x = g.op("Add", [x, attn])
        h = g.rms_norm(x, p + "post_attention_layernorm", shape.rms_norm_eps)
        gate = g.op("MatMul", [h, p + "gate_proj"])
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        mlp = g.op("MatMul", [g.op("Mul", [act, g.op("MatMul", [h, p + "up_proj"])]), p + "down_proj"])
        x = g.op("Add", [x, mlp])
    x = g.rms_norm(x, "norm", shape.rms_norm_eps)
    g.nodes.append(helper.make_node("MatMul", [x, "lm_head"], ["logits"]))
    graph = helper.make_graph(g.nodes, "llama", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="notebook-agent-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def np_axes(g: _Graph, name: str, axes: list[int]) -> str:
    """An int64 axes constant, created once."""
    if not any(init.name == name for init in g.inits):
        g.const(name, np.array(axes, np.int64))
    return name
