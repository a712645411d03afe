"""A scripted OpenAI-compatible model server for tests.

It stands in for the model only: it streams pre-written turns over real
Server-Sent Events (chunked HTTP, ``data:`` frames, tool-call deltas split
across chunks, a usage chunk with empty ``choices``, ``[DONE]``) and records
every request it receives so tests can assert what the agent sent.

It serves ``POST …/chat/completions`` and the legacy ``POST …/completions`` (prompt and
suffix, as inline completion sends them), both playing the same script, turn by turn in
the order the requests arrive.

Control routes (not part of the OpenAI API):
  POST /_script    {"turns": [...]}  replace the script and clear the record
  GET  /_requests                    the recorded chat and completion requests, oldest
                                     first: {"path", "headers" (names lower-cased),
                                     "body"}; the path (…/chat/completions or
                                     …/completions) tells the two apart

A turn is one of:
  {"content": "text"}                                  a text answer (to a completion request:
                                                       "choices[0].text", object "text_completion")
  {"tool_calls": [{"name": "...", "arguments": {...}}]}  tool calls (with optional "content"; a
                                                       completion request gets the content only)
  {"status": 401, "error": {"message": "..."}}         an HTTP error response
                                                       (optional "headers": {"Retry-After": "1"})
  {"sse": "<raw SSE text>"}                            this raw text as the response body,
                                                       as-is (framing tests: comments, CRLF,
                                                       multi-line data, error events, no [DONE])
Optional per turn: "chunk_size" (characters per delta, default 7; for "sse", characters
per HTTP chunk, default the whole body in one), "delay" (seconds between chunks),
"reject_stream_options" (answer 400 to a request that has ``stream_options``, as servers
that reject unknown parameters do, and keep the turn for the next request). In tool-call arguments, the text
``{{cell_id}}`` is replaced with the last ``cell_id`` reported in the request's tool
messages, so a script can act on a cell it inserted without knowing its id in advance.

Fault modes (reliability tests; every one leaves the other turns as they were):
  {"fault": "reset"}                   accept the request, then reset the connection
                                       (TCP RST) before sending a single byte
  "drop_after": N                      on a streamed turn (text, tool calls or "sse"):
                                       send N frames, then (0.2 s later, once the client
                                       has read them) reset the connection, with no
                                       chunked terminator: a drop mid-text, or mid
                                       tool-call arguments with a small "chunk_size"
  "stall": S, "stall_after": N         send N frames (default 1), then send nothing for
                                       S seconds (the connection stays open; a client
                                       that gives up is noticed at once), then go on
  {"stream_bytes": N}                  stream about N bytes of text deltas, made on
                                       the fly ("frame_bytes" per frame, default 64 KiB),
                                       so a 100 MB stream costs this server no memory;
                                       "text": what the deltas repeat (default "x"; non-ASCII
                                       text goes out \\u-escaped, as json.dumps writes it)
  {"status": 302, "headers": {"Location": "http://elsewhere/…"}}
                                       a redirect (any status with any headers works)
Connection refused needs no mode: point the client at a closed port.

Concurrent conversations: POST /_script {"turns": [...], "key": "k"} loads a script
that only requests whose messages (or prompt) contain the marker ``[[script:k]]`` play (they
fall back to the unkeyed script when k has no turns left); loading a keyed script
replaces that key's turns and record only, while an unkeyed load resets everything.
GET /_requests?key=k lists the requests that carried that marker.

Routes match on the path without its query string (Azure adds ?api-version=…).
Every answer allows cross-origin calls (``Access-Control-Allow-Origin: *``, preflight
included), as endpoints meant for browsers do, so direct-mode UI tests can call it.
Streamed means "stream": true in the request (or an "sse" or "stream_bytes" turn); a
completion streams "text_completion" chunks (``choices[0].text`` deltas, a chunk with
"finish_reason", a usage chunk with empty ``choices``) then ``data: [DONE]``, as chat does.
Every fault mode and "status" turn plays the same on both routes.
A streamed turn's record gets "completed" (False until the last frame was sent)
and, if the client went away first, "disconnected_after_chunks" (frames sent)
and "disconnected_at" (time.monotonic() in this process); the server notices a
closed connection while it waits between chunks, not only on its next write.

Run: python tests/scripted_model_server.py --port 8765
"""

from __future__ import annotations

import argparse
import json
import re
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CELL_ID = re.compile(r"cell_id\W{1,4}([A-Za-z0-9_-]+)")
SCRIPT_KEY = re.compile(r"\[\[script:([A-Za-z0-9_.-]+)\]\]")
MODEL_ID = "scripted-model"
# What OpenAI itself answers for a parameter it does not know.
STREAM_OPTIONS_REJECTED = {
    "message": "Unrecognized request argument supplied: stream_options",
    "type": "invalid_request_error",
    "param": None,
    "code": None,
}


class Script:
    """Turns to play and requests received, shared by all handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.turns: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.keyed: dict[str, list[dict[str, Any]]] = {}

    def load(self, turns: list[dict[str, Any]], key: str | None = None) -> None:
        with self.lock:
            if key is None:
                self.turns = list(turns)
                self.requests = []
                self.keyed = {}
            else:
                self.keyed[key] = list(turns)
                self.requests = [r for r in self.requests if r.get("key") != key]

    def next_turn(self, request: dict[str, Any]) -> dict[str, Any] | None:
        key = _script_key(request.get("body"))
        with self.lock:
            if key is not None:
                request["key"] = key
            self.requests.append(request)
            queue = self.keyed.get(key or "") or self.turns
            return queue.pop(0) if queue else None

    def requeue(self, turn: dict[str, Any], request: dict[str, Any] | None = None) -> None:
        """Put a turn back to be played by the next request (of the same key)."""
        with self.lock:
            key = (request or {}).get("key")
            queue = self.keyed.setdefault(key, []) if key is not None else self.turns
            queue.insert(0, turn)

    def recorded(self, key: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if key is None or r.get("key") == key]


def _script_key(body: Any) -> str | None:
    """The ``[[script:KEY]]`` marker in a request's messages (or a completion's prompt), if any."""
    prompt = body.get("prompt") if isinstance(body, dict) else None
    found = SCRIPT_KEY.search(prompt) if isinstance(prompt, str) else None
    if found:
        return found.group(1)
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else json.dumps(content)
        found = SCRIPT_KEY.search(text)
        if found:
            return found.group(1)
    return None


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _fill_cell_id(arguments: str, messages: list[dict[str, Any]]) -> str:
    if "{{cell_id}}" not in arguments:
        return arguments
    found = None
    for message in messages:
        if message.get("role") == "tool":
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            matches = CELL_ID.findall(text)
            if matches:
                found = matches[-1]
    return arguments.replace("{{cell_id}}", found or "no-cell-id-seen")


def stream_chunks(turn: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat.completion.chunk objects that play one turn."""
    size = int(turn.get("chunk_size", 7))
    base = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL_ID,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    for piece in _pieces(turn.get("content", ""), size) if turn.get("content") else []:
        chunks.append(chunk({"content": piece}))
    calls = turn.get("tool_calls", [])
    for index, call in enumerate(calls):
        arguments = call.get("arguments", {})
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        arguments = _fill_cell_id(arguments, messages)
        head = {"index": index, "id": call.get("id", f"call_{index}_{len(messages)}"), "type": "function"}
        chunks.append(chunk({"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]}))
        for piece in _pieces(arguments, size):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, "tool_calls" if calls else "stop"))
    chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    return chunks


def whole_completion(turn: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streaming form of one turn."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("content") or None}
    calls = turn.get("tool_calls", [])
    if calls:
        message["tool_calls"] = [
            {
                "id": call.get("id", f"call_{i}"),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": _fill_cell_id(
                        call["arguments"]
                        if isinstance(call.get("arguments"), str)
                        else json.dumps(call.get("arguments", {})),
                        messages,
                    ),
                },
            }
            for i, call in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
    }


def completion_chunks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """The text_completion chunks that play one turn on the legacy completions route."""
    size = int(turn.get("chunk_size", 7))
    base = {"id": "cmpl-scripted", "object": "text_completion", "created": int(time.time()), "model": MODEL_ID}

    def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": finish}]}

    chunks = [chunk(piece) for piece in _pieces(turn.get("content", ""), size)] if turn.get("content") else []
    chunks.append(chunk("", "stop"))
    chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    return chunks


def whole_text_completion(turn: dict[str, Any]) -> dict[str, Any]:
    """The non-streaming form of one turn on the legacy completions route."""
    return {
        "id": "cmpl-scripted",
        "object": "text_completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "text": turn.get("content") or "", "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _route(path: str) -> str | None:
    """The model route a path names (query string ignored): "chat", "completion", or None."""
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/completions"):
        return "completion"
    return None


def make_handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass  # keep test output quiet

        def end_headers(self) -> None:
            # Like endpoints that allow browsers to call them (direct mode tests).
            self.send_header("Access-Control-Allow-Origin", "*")
            super().end_headers()

        def do_OPTIONS(self) -> None:
            self.send_response(204)
            self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
            self.send_header("Access-Control-Allow-Headers", "*")
            self.send_header("Access-Control-Max-Age", "600")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, str(value))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            return json.loads(raw) if raw else {}

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/_requests":
                key = parse_qs(parts.query).get("key", [None])[0]
                self._json(200, script.recorded(key))
            elif self.path.endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "tests"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self.path == "/_script":
                payload = self._body()
                script.load(payload.get("turns", []), payload.get("key"))
                self._json(200, {"ok": True})
                return
            route = _route(self.path)
            if route is None:
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = self._body()
            record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
            turn = script.next_turn(record)
            if turn is None:
                self._json(500, {"error": {"message": "scripted model: no turns left", "type": "script_exhausted"}})
                return
            if turn.get("fault") == "reset":
                record["completed"] = False
                _reset(self)
                return
            if "status" in turn:
                error = {"error": turn.get("error", {"message": "scripted error"})}
                self._json(int(turn["status"]), error, turn.get("headers"))
                return
            if turn.get("reject_stream_options") and "stream_options" in body:
                script.requeue(turn, record)
                self._json(400, {"error": STREAM_OPTIONS_REJECTED})
                return
            messages = body.get("messages", [])
            if not body.get("stream") and "sse" not in turn and "stream_bytes" not in turn:
                whole = whole_completion(turn, messages) if route == "chat" else whole_text_completion(turn)
                self._json(200, whole)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._play(turn, _frames(turn, messages, route), record)

        def _play(self, turn: dict[str, Any], frames: Any, record: dict[str, Any]) -> None:
            """Send the frames as HTTP chunks, with the turn's delays, stall and drop."""
            delay = float(turn.get("delay", 0))
            drop_after = turn.get("drop_after")
            stall = float(turn.get("stall", 0))
            stall_after = int(turn.get("stall_after", 1))
            record["completed"] = False
            for sent, frame in enumerate(frames):
                if drop_after is not None and sent >= int(drop_after):
                    _record_disconnect(record, sent)
                    # A reset discards data the peer has not read yet: let it read the frames first.
                    time.sleep(0.2)
                    _reset(self)
                    return
                if stall and sent == stall_after and _peer_closed_within(self.connection, stall):
                    _record_disconnect(record, sent)
                    return
                data = frame.encode()
                try:
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.flush()
                except OSError:
                    _record_disconnect(record, sent)
                    return
                if delay and _peer_closed_within(self.connection, delay):
                    _record_disconnect(record, sent + 1)
                    return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            record["completed"] = True

    return Handler


def _peer_closed_within(sock: socket.socket, seconds: float) -> bool:
    """Wait ``seconds``, returning early (True) if the client closed the connection meanwhile."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        readable, _, _ = select.select([sock], [], [], left)
        if not readable:
            return False
        try:
            if sock.recv(1, socket.MSG_PEEK) == b"":
                return True
        except OSError:
            return True
        time.sleep(min(left, 0.01))  # pipelined bytes, not a close: keep waiting


def _record_disconnect(record: dict[str, Any], frames_sent: int) -> None:
    record["disconnected_after_chunks"] = frames_sent
    record["disconnected_at"] = time.monotonic()


def _frames(turn: dict[str, Any], messages: list[dict[str, Any]], route: str = "chat") -> Any:
    """The SSE frames of a streamed turn (an iterator: big streams are made on the fly)."""
    if "sse" in turn:
        raw = turn["sse"]
        size = int(turn.get("chunk_size") or len(raw) or 1)
        return iter([raw[i : i + size] for i in range(0, len(raw), size)])
    if "stream_bytes" in turn:
        total, frame_bytes = int(turn["stream_bytes"]), int(turn.get("frame_bytes", 64 * 1024))
        return _big_stream(total, frame_bytes, turn.get("text", "x"), route)
    chunks = stream_chunks(turn, messages) if route == "chat" else completion_chunks(turn)
    return iter([f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"])


def _big_stream(total: int, frame_bytes: int, unit: str = "x", route: str = "chat") -> Any:
    """About ``total`` bytes of text-delta frames, one at a time, then a finish and [DONE]."""
    chat = route == "chat"
    kind = "chat.completion.chunk" if chat else "text_completion"
    head = {"id": "chatcmpl-scripted" if chat else "cmpl-scripted", "object": kind, "created": 0, "model": MODEL_ID}

    def frame(text: str | None, finish: str | None = None) -> str:
        if chat:
            choice = {"index": 0, "delta": {} if text is None else {"content": text}, "finish_reason": finish}
        else:
            choice = {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}
        return f"data: {json.dumps({**head, 'choices': [choice]})}\n\n"

    room = max(1, frame_bytes - len(frame("")))
    encoded = max(1, len(json.dumps(unit)) - 2)
    piece = frame(unit * max(1, room // encoded))
    for _ in range(max(1, total // len(piece))):
        yield piece
    yield frame(None, "stop")
    yield "data: [DONE]\n\n"


def _reset(handler: BaseHTTPRequestHandler) -> None:
    """Abort the connection with a TCP RST (SO_LINGER 0), as a crashing server or proxy does."""
    handler.close_connection = True
    sock = handler.connection
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass


class _QuietServer(ThreadingHTTPServer):
    """Clients that reset their connection (aborts, fault tests) are normal here: no traceback."""

    # socketserver's default backlog of 5 drops connections when 20 agents
    # (the load test) connect at once on a busy machine.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def serve(port: int = 0, host: str = "127.0.0.1") -> tuple[ThreadingHTTPServer, Script]:
    """Start the server in a background thread; returns it and its script."""
    script = Script()
    server = _QuietServer((host, port), make_handler(script))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    server, _ = serve(args.port, args.host)
    print(f"scripted model server on http://{args.host}:{server.server_port}/v1", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
