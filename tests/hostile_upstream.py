"""A hostile model endpoint for tests: it echoes every secret it receives back to the proxy.

Whatever credentials the proxy sends it (the ``Authorization`` bearer token, an ``api-key``
header, every ``X-*`` header of the profile, the query string) it sends back, in the form
and place the request's ``model`` asks for, as an echoing debug endpoint, a gateway that
reflects headers or an error message quoting the request would:

  header:<Name>          a 200 JSON answer with the secret in the response header <Name>
  error-header:<Name>    a 429 with the secret in the response header <Name>
  json                   a 200 JSON answer with the secrets raw, \\u-escaped, URL-encoded and mixed
  sse:<N>                a 200 SSE stream with the same, written N bytes per HTTP chunk
  error                  a 401 JSON error quoting the secrets in every form
  error-cut              a 400 whose body puts the key across the proxy's 1 MiB cut
  short                  a 200 JSON answer where short secrets appear whole and inside longer words
  cut:<N>                a 200 JSON answer that promises its whole length but breaks off after N bytes
  names                  a 200 model list whose names hold control characters, among plain ones
  escapes                a 200 JSON answer with the secrets (and ``Echo.extra``) in JSON's short escapes only:
                         ``\\/`` for every slash (PHP's encoder), ``\\"``, line breaks as ``\\n`` and ``\\r\\n``,
                         and a JSON string of a JSON string; no ``\\u`` escape anywhere
  sse-escapes:<N>        the same as an SSE stream, written N bytes per HTTP chunk
  nested                 a 200 JSON answer whose text holds ``Echo.extra`` as a tool or a cell writes it: JSON
                         text (``json.dumps({"value": …})``), JSON twice, ``repr``, ``repr`` of JSON, ``repr`` of
                         bytes; inside the answer's JSON, so a line break arrives as ``\\\\n`` and deeper
  sse-nested:<N>         the same as an SSE stream, one form a delta, written N bytes per HTTP chunk
  split:<N>              a 200 SSE stream of ``before <key> after`` in deltas that cut the key in N pieces (one
                         event, one HTTP chunk each); as ``choices[].text`` on ``v1/completions``
  split-escaped:<N>      the same, every character of every delta ``\\u``-escaped
  split-tool:<N>         the same in a tool call's ``function.arguments``
  split-choices:<N>      two choices (``n: 2``) streaming it, their events interleaved
  split-keys:<N>         ``split`` with every key of every event written as escapes (``"\\u0063ontent"``), the same
                         JSON to every parser
  split-big:<N>          ``split`` after an event longer than the proxy holds whole (1 MiB), written in two chunks
  split-around-big:<N>   ``split`` with an event of choice 1 of 2 MiB (over the 1 MiB held) after the key's first piece
  split@<type>:<N>       ``split`` with that Content-Type (``none``: no Content-Type), e.g. ``split@text/plain:3``

Each answer also carries text that must survive (``"index": 1``, words containing a short
secret), so a filter that destroys the answer is caught too. The last request is kept in
``Echo.received`` (headers lower-cased, body parsed).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

#: The proxy cuts error bodies here (proxy_handler.MAX_ERROR_BODY).
CUT = 1024 * 1024

#: Model names of the ``names`` list: plain ones, and ones no picker should show or relay.
PLAIN_NAMES = ("plain-model", "qwen2.5:7b-instruct", "modèle-français")
UNSHOWN_NAMES = (
    "evil\x1b[2J\x1b[31mred",  # a terminal escape
    "two\nlines",
    "nul\x00byte",
    "bell\x07",
    "del\x7fname",
    "c1\x85next-line",
    "sep\u2028line",
    "rtl\u202eledom-niam",  # shows as another name
)


def escaped(secret: str) -> str:
    """Every character as a JSON ``\\u`` escape."""
    return "".join(f"\\u{ord(c):04x}" for c in secret)


def url_encoded(secret: str) -> str:
    """Every byte percent-encoded."""
    return "".join(f"%{b:02X}" for b in secret.encode())


def mixed(secret: str) -> str:
    """Some characters raw, some ``\\u``-escaped (upper case), some URL-encoded."""
    out = []
    for i, c in enumerate(secret):
        out.append(c if i % 3 == 0 else f"\\u{ord(c):04X}" if i % 3 == 1 else f"%{ord(c):02x}")
    return "".join(out)


def forms(secret: str) -> list[str]:
    """The forms the endpoint echoes a secret in (JSON-string-safe)."""
    return [secret, escaped(secret), url_encoded(secret), quote(secret, safe=""), mixed(secret)]


class Echo:
    """The last request and the secrets seen in it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.received: dict[str, Any] = {}
        #: What a GET (``v1/models``, which has no body to name a mode in) answers.
        self.get_mode = "json"
        #: Secrets the endpoint knows without receiving them (a test's MCP ``env`` values), for ``escapes``.
        self.extra: list[str] = []

    def secrets(self, headers: dict[str, str], path: str) -> list[str]:
        found = []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            found.append(auth[7:])
        for name, value in headers.items():
            if name == "api-key" or name.startswith("x-"):
                found.append(value)
        found += [value for _, value in parse_qsl(urlsplit(path).query)]
        return [s for s in dict.fromkeys(found) if s]


def short_escaped(secret: str) -> list[str]:
    """``secret`` as JSON string contents in short escapes only (no ``\\u``): each a form to echo."""
    plain = json.dumps(secret)[1:-1]  # \" \\ \n \r \t
    crlf = json.dumps(secret.replace("\r\n", "\n").replace("\n", "\r\n"))[1:-1]
    twice = json.dumps(json.dumps(secret))[1:-1]  # a JSON string of a JSON string (a tool result's JSON)
    return [plain.replace("/", "\\/"), plain, crlf, crlf.replace("/", "\\/"), twice]


#: How ``nested`` writes a secret into its text (the answer's JSON escapes each once more).
NESTED = (
    lambda s: json.dumps({"value": s}),
    lambda s: json.dumps(json.dumps({"value": s})),
    repr,
    lambda s: repr(json.dumps({"value": s})),
    lambda s: repr(s.encode()),
)


def _escaped_keys(event: str) -> str:
    """A JSON event with each key's first letter ``\\u``-escaped (keys are the strings followed by a colon)."""
    return re.sub(r'"([A-Za-z_])(\w*)"(?=\s*:)', lambda m: f'"\\u{ord(m[1]):04x}{m[2]}"', event)


def split_text(text: str, secret: str, pieces: int) -> list[str]:
    """``text`` cut so that ``secret`` in it is in ``pieces`` parts (the first and last with the text around it)."""
    start = text.index(secret)
    size = len(secret) / pieces
    cuts = [start + round(size * i) for i in range(1, pieces)]
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _long(secrets: list[str]) -> list[str]:
    return [s for s in secrets if len(s) >= 8]


def make_handler(echo: Echo) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer({"model": echo.get_mode})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"model": "json"}
            self._answer(body)

        def _answer(self, body: dict[str, Any]) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            secrets = echo.secrets(headers, self.path)
            with echo.lock:
                echo.received = {"path": self.path, "headers": headers, "body": body}
            mode = str(body.get("model", "json"))
            key = _long(secrets)[0] if _long(secrets) else "no-key-received"
            every = [form for s in secrets for form in forms(s)]
            text = " | ".join(every)
            if mode.startswith("header:") or mode.startswith("error-header:"):
                name = mode.split(":", 1)[1]
                status = 200 if mode.startswith("header:") else 429
                value = {"Content-Type": f"application/json; charset={key}"}.get(name, key)
                payload = json.dumps({"id": "x", "choices": [], "note": "header echo"}).encode()
                self._send(status, payload, {"Content-Type": "application/json", name: value})
            elif mode.startswith("retry-after:"):  # retry-after:<status>:<value>, a value float() reads
                _, status, value = mode.split(":", 2)
                payload = json.dumps({"id": "x", "choices": [], "error": {"message": "wait"}}).encode()
                self._send(int(status), payload, {"Content-Type": "application/json", "Retry-After": value})
            elif mode == "json":
                payload = {"id": "chatcmpl-echo", "choices": [{"index": 1, "message": {"content": text}}]}
                body = json.dumps(payload).encode().replace(b"\\\\", b"\\")  # \\u escapes stay escapes
                self._send(200, body, {"Content-Type": "application/json"})
            elif mode.startswith("sse:"):
                self._stream(int(mode.split(":", 1)[1]), every)
            elif mode == "escapes" or mode.startswith("sse-escapes:"):
                shown = [form for s in [*secrets, *echo.extra] for form in short_escaped(s)]
                if mode == "escapes":
                    content = " | ".join(shown)
                    doc = {"id": "chatcmpl-echo", "choices": [{"index": 1, "message": {"content": "@@"}}]}
                    body = json.dumps(doc).replace("@@", content)  # the forms as they are
                    self._send(200, body.encode(), {"Content-Type": "application/json"})
                else:
                    self._stream(int(mode.split(":", 1)[1]), shown, written=True)
            elif mode == "nested":
                content = " | ".join(write(s) for s in echo.extra for write in NESTED)
                doc = {"id": "chatcmpl-echo", "choices": [{"index": 0, "message": {"content": content}}]}
                self._send(200, json.dumps(doc).encode(), {"Content-Type": "application/json"})
            elif mode.startswith("sse-nested:"):
                self._stream(int(mode.split(":", 1)[1]), [write(s) for s in echo.extra for write in NESTED], plain=True)
            elif mode.startswith("split"):
                kind, pieces = mode.rsplit(":", 1)
                completion = self.path.rstrip("/").endswith("/completions") and "/chat/" not in self.path
                self._split(kind, split_text(f"before {key} after", key, int(pieces)), completion)
            elif mode == "error":
                message = f"Incorrect API key provided: {text}; you sent Authorization: Bearer {key}"
                payload = json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
                self._send(401, payload.replace(b"\\\\", b"\\"), {"Content-Type": "application/json"})
            elif mode == "error-cut":
                # The key starts 20 bytes before the cut: cutting first would keep its first 20 characters.
                head = b'{"error": {"message": "' + b"x" * (CUT - 23 - 20)
                payload = head + key.encode() + b'"}}'
                self._send(400, payload, {"Content-Type": "application/json"})
            elif mode.startswith("cut:"):
                payload = {"id": "chatcmpl-cut", "choices": [{"index": 0, "message": {"content": "x" * 200}}]}
                whole = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(whole)))
                self.end_headers()
                self.wfile.write(whole[: int(mode.split(":", 1)[1])])
                self.wfile.flush()
                self.close_connection = True  # gone before the promised length
            elif mode == "names":
                data = [
                    {"id": name, "object": "model", "owned_by": "hostile"} for name in (*PLAIN_NAMES, *UNSHOWN_NAMES)
                ]
                self._send(
                    200, json.dumps({"object": "list", "data": data}).encode(), {"Content-Type": "application/json"}
                )
            elif mode == "short":
                shorts = [s for s in secrets if len(s) < 8]
                words = " ".join(f"whole {s} inside x{s}y" for s in shorts)
                payload = {"choices": [{"index": 1, "message": {"content": words}}], "quoted": shorts}
                self._send(200, json.dumps(payload).encode(), {"Content-Type": "application/json"})
            else:
                self._send(404, b'{"error": {"message": "unknown mode"}}', {"Content-Type": "application/json"})

        def _stream(self, size: int, every: list[str], written: bool = False, plain: bool = False) -> None:
            """``written``: the forms are JSON string contents already (put in as they are); ``plain``: they are
            text, which the events' JSON escapes as any encoder does."""
            events = []
            for n, form in enumerate(every):
                delta = {"index": 0, "delta": {"content": "@@" if written else form}, "finish_reason": None}
                event = json.dumps({"id": "chatcmpl-echo", "choices": [delta], "n": n})
                event = event if plain else event.replace("\\\\", "\\")
                event = event.replace("@@", form) if written else event
                events.append(f"data: {event}\n\n")
            events.append("data: [DONE]\n\n")
            data = "".join(events).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), size):
                piece = data[i : i + size]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
                if size < 16 and i % 64 == 0:
                    time.sleep(0.001)  # separate TCP segments now and then, not only HTTP chunks
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _split(self, kind: str, pieces: list[str], completion: bool) -> None:
            """One event per piece, each its own HTTP chunk (see the ``split`` modes)."""
            kind, _, content_type = kind.partition("@")
            head = {"id": "cmpl-split", "object": "text_completion" if completion else "chat.completion.chunk"}
            events: list[str] = []
            if kind == "split-big":
                field: dict[str, Any] = (
                    {"text": "z" * (1 << 20)} if completion else {"delta": {"content": "z" * (1 << 20)}}
                )
                events.append(json.dumps({**head, "choices": [{"index": 0, **field}]}))
            if kind == "split-tool":
                call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "run", "arguments": ""}}
                events.append(json.dumps({**head, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
            for piece in pieces:
                for index in (0, 1) if kind == "split-choices" else (0,):
                    if kind == "split-tool":
                        delta: dict[str, Any] = {"tool_calls": [{"index": 0, "function": {"arguments": "@@"}}]}
                        choice: dict[str, Any] = {"index": index, "delta": delta}
                    elif completion:
                        choice = {"index": index, "text": "@@", "logprobs": None, "finish_reason": None}
                    else:
                        choice = {"index": index, "delta": {"content": "@@"}, "finish_reason": None}
                    written = escaped(piece) if kind == "split-escaped" else json.dumps(piece)[1:-1]
                    events.append(json.dumps({**head, "choices": [choice]}).replace("@@", written))
                if kind == "split-around-big" and piece is pieces[0]:
                    # Another choice's event, longer than the proxy holds whole, between the key's pieces. Twice
                    # that: the proxy reads at most 64 KB at a time (Tornado's chunk size), so it always sees the
                    # event past 1 MiB before its end; at 1 MiB and a few bytes, a read that took the last ~200
                    # bytes with the end made it one whole event, held (CI saw it once).
                    field = {"text": "z" * (2 << 20)} if completion else {"delta": {"content": "z" * (2 << 20)}}
                    events.append(json.dumps({**head, "choices": [{"index": 1, **field}]}))
            for index in (0, 1) if kind == "split-choices" else (0,):
                last = {"index": index, "finish_reason": "stop", **({"text": ""} if completion else {"delta": {}})}
                events.append(json.dumps({**head, "choices": [last]}))
            if kind == "split-keys":
                events = [_escaped_keys(event) for event in events]
            events.append("[DONE]")
            self.send_response(200)
            if content_type != "none":
                self.send_header("Content-Type", content_type or "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in events:
                data = f"data: {event}\n\n".encode()
                # A long event in two chunks, so that the proxy sees it grow past what it holds whole.
                for part in (data[: len(data) // 2], data[len(data) // 2 :]) if len(data) > 1 << 20 else (data,):
                    self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                    self.wfile.flush()
                    time.sleep(0.002)  # each its own TCP segment, as a model's deltas come
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


def serve() -> tuple[ThreadingHTTPServer, Echo]:
    """Start the endpoint on a free loopback port in a background thread."""
    echo = Echo()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(echo))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, echo
