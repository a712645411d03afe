"""An outside agent for the UI tests: the official MCP SDK client, driven one call at a time.

    python mcp_step_client.py <url> <client name> [--token T] [--stdio COMMAND ARG...]

Reads one JSON object per line on stdin, ``{"tool": "...", "arguments": {...}}``, calls that tool
on the notebook's MCP server and writes the result as one JSON line on stdout (``{"isError": bool,
"text": "...", "images": n}``). An empty line or end of input ends the session (the SDK's DELETE),
then the process. With ``--stdio`` the client starts that command and speaks MCP over its stdin
and stdout (the ``notebook-agent mcp`` bridge) instead of HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("name")
    parser.add_argument("--token", default="")
    parser.add_argument("--stdio", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    info = Implementation(name=options.name, version="1")
    if options.stdio:
        server = StdioServerParameters(command=options.stdio[0], args=options.stdio[1:])
        client = Client(server, client_info=info)
    else:
        headers = {"Authorization": f"Bearer {options.token}"} if options.token else {}
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=600))
        client = Client(streamable_http_client(options.url, http_client=http), client_info=info)
    stdin = anyio.wrap_file(sys.stdin)
    async with client:
        print(json.dumps({"ready": True}), flush=True)
        while line := (await stdin.readline()).strip():
            step = json.loads(line)
            result = await client.call_tool(step["tool"], step.get("arguments", {}))
            texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
            images = sum(1 for block in result.content if getattr(block, "type", "") == "image")
            answer = {"isError": bool(result.is_error), "text": "\n".join(texts), "images": images}
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
