"""A real MCP server for the tests, written with the official Python SDK.

Run over stdio (``python mcp_test_server.py``) or streamable HTTP
(``python mcp_test_server.py --http PORT``; then every request must carry
``Authorization: Bearer $MCP_TEST_TOKEN``). Tools:

* ``station_reading(station)``: text only the tool knows (the end-to-end test's answer uses it);
* ``plot()``: a text part and a small PNG image;
* ``notes()``: an embedded text resource;
* ``whoami()``: the value of ``$MCP_TEST_TOKEN`` (a secret the server holds: it must be redacted);
* ``env_value(name, form)``: an environment variable (a secret of its ``env``) as a careless tool returns it:
  ``raw``, ``json`` (``json.dumps({"value": …})``), ``json-twice``, ``repr``, ``repr-of-json``;
* ``pid()``: the server's process id;
* ``crash()``: the process exits at once;
* ``hang()``: never answers; when cancelled it writes ``cancelled`` to ``$MCP_TEST_MARKER``;
* ``garbage()`` (stdio): answers its own request with a result that is not a tool result;
* ``huge()``: 300 000 characters of text;
* ``server_error()``: answers with JSON-RPC error -32000 (the generic "server error" code)
  while the server stays up;
* ``fail_next_listing()``: the next tools/list answers -32000 the same way.

With ``$MCP_TEST_SCHEMAS`` (a JSON object ``{"tool": schema}``) it also offers one tool per
entry, answering ``called``, whose input schema is that (hostile) schema, as given.

At start-up it prints its token to stderr, as careless servers do: it must reach no log.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import sys
import zlib

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import EmbeddedResource, TextContent, TextResourceContents

server = MCPServer("notebook-agent-test")

#: The original stdout pipe (the client reads it), duplicated before the SDK diverts fd 1.
WIRE = os.dup(1)


def tiny_png(width: int = 4, height: int = 3) -> bytes:
    """A valid RGB PNG of the given size, written without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@server.tool()
def station_reading(station: str) -> str:
    """The current temperature reading of a weather station."""
    return f"Station {station}: 17.25 degrees C, reading id R-4821-{station.upper()}"


@server.tool()
def plot() -> list:
    """A chart of the readings, as an image."""
    return ["A 4x3 chart of the readings.", Image(data=tiny_png(), format="png")]


@server.tool()
def notes() -> list:
    """The station's notes, as an embedded resource."""
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="Calibrated in May."),
        )
    ]


@server.tool()
def whoami() -> str:
    """Who the server runs as."""
    return f"token={os.environ.get('MCP_TEST_TOKEN', '')}"


#: How ``env_value`` writes a value.
FORMS = {
    "raw": lambda v: v,
    "json": lambda v: json.dumps({"value": v}),
    "json-twice": lambda v: json.dumps(json.dumps({"value": v})),
    "repr": repr,
    "repr-of-json": lambda v: repr(json.dumps({"value": v})),
}


@server.tool()
def env_value(name: str, form: str) -> str:
    """An environment variable of the server, written as ``form`` (raw, json, json-twice, repr, repr-of-json)."""
    return FORMS[form](os.environ.get(name, ""))


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    try:
        await asyncio.sleep(3600)
    except BaseException:
        marker = os.environ.get("MCP_TEST_MARKER")
        if marker:
            # Whole or not at all: the test reads the marker as soon as it exists.
            with open(f"{marker}.tmp", "w") as file:
                file.write("cancelled")
            os.replace(f"{marker}.tmp", marker)
        raise
    return "unreachable"


@server.tool()
async def garbage(ctx: Context) -> str:
    """Answer this request with something that is not a tool result (stdio only)."""
    request_id = int(ctx.request_id) if str(ctx.request_id).isdigit() else ctx.request_id
    reply = {"jsonrpc": "2.0", "id": request_id, "result": {"content": "not a list", "isError": "maybe"}}
    # The SDK diverts file descriptor 1 to stderr while it serves: write to the copy made before.
    os.write(WIRE, (json.dumps(reply) + "\n").encode())
    await asyncio.sleep(3600)
    return "unreachable"


@server.tool()
def huge() -> list:
    """A very long text."""
    return [TextContent(type="text", text="x" * 300_000)]


@server.tool()
def server_error() -> str:
    """Fail with JSON-RPC's generic server error (-32000); the server stays up."""
    raise MCPError(code=-32000, message="the database is down")


#: How many of the next tools/list requests answer JSON-RPC error -32000 (``fail_next_listing()``).
LISTINGS_TO_FAIL = 0
_list_tools = server.list_tools


async def _listing():
    global LISTINGS_TO_FAIL
    if LISTINGS_TO_FAIL:
        LISTINGS_TO_FAIL -= 1
        raise MCPError(code=-32000, message="the tool index is rebuilding")
    return await _list_tools()


server.list_tools = _listing


@server.tool()
def fail_next_listing() -> str:
    """The next tools/list answers JSON-RPC's generic server error (-32000); the server stays up."""
    global LISTINGS_TO_FAIL
    LISTINGS_TO_FAIL = 1
    return "the next listing fails"


def add_schema_tools() -> None:
    """One tool per entry of ``$MCP_TEST_SCHEMAS``, with that input schema exactly."""
    schemas = json.loads(os.environ.get("MCP_TEST_SCHEMAS") or "{}")
    for name, schema in schemas.items():

        def called() -> str:
            return "called"

        server.add_tool(called, name=name, description=f"a tool with the schema {name}")
        server._tool_manager.get_tool(name).parameters = schema


def main() -> None:
    add_schema_tools()
    print(f"test server starting with token {os.environ.get('MCP_TEST_TOKEN', '')}", file=sys.stderr, flush=True)
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        run_http(int(sys.argv[2]))
    else:
        server.run()


def run_http(port: int) -> None:
    import uvicorn
    from starlette.responses import PlainTextResponse

    token = os.environ.get("MCP_TEST_TOKEN", "")
    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
