#!/usr/bin/env python3
"""Record a real model server's streams as test fixtures.

    python scripts/record_streams.py --upstream http://127.0.0.1:8080 --port 8099 --out /tmp/streams

A pass-through proxy on loopback: point the eval (or anything speaking the
OpenAI chat API) at http://127.0.0.1:PORT/v1 and every streamed chat
completion is written to OUT/NNN.chunks.txt as the server sent it (the SSE
body byte for byte, after a comment line with the request's last message),
the format of src/agent/__tests__/fixtures/chunks/.
"""

from __future__ import annotations

import argparse
import http.server
import itertools
import json
import urllib.request
from pathlib import Path

counter = itertools.count(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with urllib.request.urlopen(args.upstream + self.path) as answer:
                body = answer.read()
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.headers.get("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            request = urllib.request.Request(
                args.upstream + self.path, data=body, headers={"Content-Type": "application/json"}
            )
            sent = json.loads(body)
            last = sent.get("messages", [{}])[-1]
            note = json.dumps({"tools": [t["function"]["name"] for t in sent.get("tools", [])], "last": last})[:400]
            with urllib.request.urlopen(request) as answer:
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.headers.get("Content-Type", "text/event-stream"))
                self.end_headers()
                path = out / f"{next(counter):03d}.chunks.txt"
                with path.open("wb") as saved:
                    saved.write(f": request {note}\n\n".encode())
                    for line in answer:
                        saved.write(line)
                        self.wfile.write(line)
                        self.wfile.flush()

        def log_message(self, *_: object) -> None:
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
