"""What the outbound filter costs the proxy: throughput of a long streamed answer, with and without secrets.

Starts the scripted model server (tests/scripted_model_server.py) and private `jupyter server`
processes (127.0.0.1, free ports, temporary directories) that proxy to it:

  filter     the server holds 6 secrets (OPENAI_API_KEY, a provider key, three header values,
             one of them 4 characters long, and a base URL query value): every byte of the
             answer goes through the streaming matcher
  none       the same server with no secret at all: the filter passes bytes through untouched
  before     (with --before DIR) the same as "filter" on the extension at DIR, e.g. the code
             before the filter existed (git archive of an older commit), without the query
             value (that code builds a wrong URL from a base URL with a query string)

Each round streams MB megabytes of SSE through each server in turn (interleaved, so load drift
hits all), twice: ASCII text, and non-ASCII text that goes out \\u-escaped (the matcher's slower
path, as from servers that write JSON with ensure_ascii); with --prose also English prose and Python code (the
text models write, where the literal search costs most); with --held a third time, text whose every
delta ends in the first letter of a secret ("…dogs": the look-behind across events holds it and
parses the next event, its slow path). Events are --frame bytes long (64 KB; a model's token
stream sends ~200-byte events, where the per-event work counts most). Prints, per server and content, the
median throughput and the server's CPU time per MB (user + system, from /proc), the cost of the
filter (CPU per MB pooled over the rounds, filter/none - 1: the robust figure on a shared machine, where wall-clock
throughput swings with the load; the proxy is CPU-bound, so it is the throughput cost) and the
servers' peak memory growth (VmHWM). Target: filter cost <= 10 %.

Run: python bench/proxy_filter.py [MB=100] [--rounds 3] [--before DIR] [--frame BYTES] [--prose] [--held]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's package, wherever one is installed

from scripted_model_server import _big_stream, serve  # noqa: E402

from jupyterlab_notebook_agent.redaction import SecretMatcher, StreamScrubber  # noqa: E402
from jupyterlab_notebook_agent.sse_relay import SseRelay  # noqa: E402

try:  # the look-behind across events (issue #35, D4); a --before checkout's own bench has none
    from jupyterlab_notebook_agent.sse_deltas import DeltaScrubber
except ImportError:  # pragma: no cover
    DeltaScrubber = None

SECRETS = {
    "OPENAI_API_KEY": "sk-bench-env-key-0123456789abcdef",
    "key": "sk-bench-provider-key-0123456789",
    "header": "hdr-bench-secret-value-0123456789",
    "org": "org-bench-0123456789",
    "short": "b7x2",
    "query": "query-bench-0123456789",
}
CONTENTS = {"ascii": "x", "escaped non-ASCII": "Größe "}
#: With --prose: text as models write it. The two above are a matcher's easy cases ("x" is one byte its literal search
#: rules out at once); on prose and code Hyperscan's pass costs three to four times as much per MB (bench/README.md).
PROSE = {
    "English prose": "The quick brown fox jumps over the lazy dog; revenue rose 12.5 % in 2024. ",
    "Python code": 'for row in rows:\n    total[row["region"]] += row["units"] * row["unit_price"]\n',
}
#: With --held: every delta ends in "s", the first letter of two secrets (the look-behind's slow path).
HELD = {"held (ends in 's')": "dogs"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One private jupyter server proxying to the model server."""

    def __init__(self, name: str, package: Path, model_url: str, secrets: bool, work: Path, query: bool = True) -> None:
        self.name = name
        self.port = free_port()
        self.token = os.urandom(16).hex()
        home = work / name
        (home / "config").mkdir(parents=True)
        (home / "root").mkdir()
        agent: dict = {"default_provider": "p"}
        profile: dict = {"base_url": model_url}
        if secrets:
            profile = {
                "base_url": f"{model_url}?k={SECRETS['query']}" if query else model_url,
                "api_key": SECRETS["key"],
                "headers": {"X-Secret": SECRETS["header"], "X-Org": SECRETS["org"], "X-Short": SECRETS["short"]},
            }
        agent["providers"] = {"p": profile}
        config = {"ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}}, "NotebookAgent": agent}
        (home / "config" / "jupyter_server_config.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
        env.update(
            PYTHONPATH=str(package),
            JUPYTER_CONFIG_DIR=str(home / "config"),
            JUPYTER_DATA_DIR=str(home / "data"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        )
        if secrets:
            env["OPENAI_API_KEY"] = SECRETS["OPENAI_API_KEY"]
        args = [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={self.port}"]
        args += ["--ServerApp.port_retries=0", f"--ServerApp.root_dir={home / 'root'}"]
        args += [f"--IdentityProvider.token={self.token}", "--ServerApp.log_level=WARN"]
        self.log = open(home / "server.log", "wb")
        # cwd: not this checkout, or ``python -m`` would import its package whatever PYTHONPATH says.
        self.process = subprocess.Popen(args, env=env, cwd=home / "root", stdout=self.log, stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                status, _ = self.request("GET", "api/status")
                if status == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: the server did not start; see {self.log.name}")

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        connection.request(method, "/" + path, body=body, headers={"Authorization": f"token {self.token}"})
        response = connection.getresponse()
        return response.status, response.read()

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stream(self, megabytes: int) -> tuple[float, int]:
        """Seconds and bytes for one streamed answer of about ``megabytes`` MB."""
        body = json.dumps({"messages": [{"role": "user", "content": "go"}], "stream": True}).encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        start = time.perf_counter()
        connection.request(
            "POST", "/notebook-agent/v1/chat/completions", body=body, headers={"Authorization": f"token {self.token}"}
        )
        response = connection.getresponse()
        received = 0
        while True:
            chunk = response.read(256 * 1024)
            if not chunk:
                break
            received += len(chunk)
        elapsed = time.perf_counter() - start
        if response.status != 200 or received < megabytes * 1024 * 1024 * 0.9:
            raise RuntimeError(f"{self.name}: HTTP {response.status}, {received} bytes")
        return elapsed, received

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def in_process(unit: str, frame: int, megabytes: int = 20) -> tuple[float, float]:
    """ms per MB the scrubber (6 secrets) adds to the proxy's per-chunk work, measured alone (best of 5),
    without and with the look-behind across events before it.

    The same frames as a streamed answer, cut into whole events by the SSE relay as the proxy does,
    then fed to the filter: no server, no sockets, so the figure is free of the noise of a
    shared machine.
    """
    data = "".join(_big_stream(megabytes * 1024 * 1024, frame, unit)).encode()
    relay, events = SseRelay(), []
    for i in range(0, len(data), 16384):
        chunk = relay.feed(data[i : i + 16384])
        if chunk:
            events.append(chunk)
    matcher, best, both = SecretMatcher(tuple(SECRETS.values())), float("inf"), float("inf")
    for _ in range(5):
        scrubber = StreamScrubber(matcher)
        start = time.perf_counter()
        for chunk in events:
            scrubber.feed(chunk, at_boundary=True)
        best = min(best, time.perf_counter() - start)
        if DeltaScrubber is not None:
            scrubber, deltas = StreamScrubber(matcher), DeltaScrubber(matcher)
            start = time.perf_counter()
            for chunk in events:
                scrubber.feed(deltas.feed(chunk), at_boundary=True)
            both = min(both, time.perf_counter() - start)
    per_mb = len(data) / 1e6
    return best * 1000 / per_mb, both * 1000 / per_mb


def _pooled(runs: list[tuple[float, int]]) -> float:
    """ms of CPU per MB over ``runs`` of (CPU seconds, bytes)."""
    return sum(used for used, _ in runs) * 1000 / (sum(received for _, received in runs) / 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("megabytes", nargs="?", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout whose jupyterlab_notebook_agent to compare with")
    parser.add_argument("--frame", type=int, default=64 * 1024, help="bytes per SSE event (64 KB)")
    parser.add_argument("--prose", action="store_true", help="also English prose and Python code")
    parser.add_argument("--held", action="store_true", help="also text whose every delta ends in a secret's start")
    args = parser.parse_args()
    contents = {**CONTENTS, **(PROSE if args.prose else {}), **(HELD if args.held else {})}
    model, script = serve(0)
    model_url = f"http://127.0.0.1:{model.server_port}/v1"
    work = Path(tempfile.mkdtemp(prefix="proxy-filter-bench-"))
    servers: list[Server] = []
    try:
        servers.append(Server("filter", ROOT, model_url, True, work))
        servers.append(Server("none", ROOT, model_url, False, work))
        if args.before:
            # Without the query string: code before the filter builds a wrong URL from it (a 404).
            servers.append(Server("before", args.before.resolve(), model_url, True, work, query=False))
        print(
            f"proxy filter: {args.megabytes} MB SSE per answer in {args.frame}-byte events, {args.rounds} rounds, "
            "servers interleaved"
        )
        rates: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        for unit in contents.values():
            for server in servers:  # warm-up: first-use allocations, imports
                script.load([{"stream_bytes": 4 * 1024 * 1024, "text": unit, "frame_bytes": args.frame}])
                server.stream(4)
        baseline_rss = {s.name: s.peak_rss_mb() for s in servers}
        for content, unit in contents.items():
            for _ in range(args.rounds):
                for server in servers:
                    turn = {"stream_bytes": args.megabytes * 1024 * 1024, "text": unit, "frame_bytes": args.frame}
                    script.load([turn])
                    before = server.cpu_seconds()
                    seconds, received = server.stream(args.megabytes)
                    used = server.cpu_seconds() - before
                    rates.setdefault((server.name, content), []).append(received / seconds / 1e6)
                    cpu.setdefault((server.name, content), []).append((used, received))
        for content in contents:
            print(f"\n{content}:")
            medians = {s.name: statistics.median(rates[(s.name, content)]) for s in servers}
            # Pooled over the rounds: one run's CPU time is ~40 clock ticks of 10 ms, so a per-run figure
            # moves in steps of 2.5 %; the total over all rounds is a finer measure of the same cost.
            cpu_ms = {s.name: _pooled(cpu[(s.name, content)]) for s in servers}
            for server in servers:
                spread = ", ".join(f"{r:.0f}" for r in rates[(server.name, content)])
                runs = ", ".join(f"{_pooled([run]):.1f}" for run in cpu[(server.name, content)])
                print(
                    f"  {server.name:8} median {medians[server.name]:6.1f} MB/s (runs: {spread}); "
                    f"server CPU {cpu_ms[server.name]:.2f} ms per MB (runs: {runs})"
                )
            wall = medians["none"] / medians["filter"] - 1
            cost = cpu_ms["filter"] / cpu_ms["none"] - 1
            print(f"  filter cost: server CPU per MB {cost:+.1%} (filter/none); throughput {wall:+.1%} (none/filter)")
            if "before" in medians:
                versus = cpu_ms["filter"] / cpu_ms["before"] - 1
                print(f"  vs before:   server CPU per MB {versus:+.1%} (filter/before)")
            # CPU per MB is the figure: wall-clock throughput on a shared machine swings with the load.
            status = "PASS" if cost <= 0.10 else "MISS"
            print(f"target: {content}: filter cost <= 10 % (server CPU per MB): {status} ({cost:.1%})")
        print("\nthe filter alone, in this process (6 secrets, the same events, best of 5):")
        for content, unit in contents.items():
            alone, both = in_process(unit, args.frame)
            none = _pooled(cpu[("none", content)])
            print(
                f"  {content:18} scrubber {alone:.2f} ms per MB ({alone / none:.1%} of the no-secret server's CPU "
                f"per MB); with the look across events {both:.2f} ms per MB ({both / none:.1%})"
            )
        print("\npeak memory growth of each server over all streams (VmHWM):")
        for server in servers:
            print(f"  {server.name:8} {server.peak_rss_mb() - baseline_rss[server.name]:+.1f} MB")
    finally:
        for server in servers:
            server.stop()
        model.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
