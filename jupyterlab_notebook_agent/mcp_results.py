"""What the browser gets of an MCP listing and of a tool result: plain JSON, bounded.

The observation budgets proper are the agent's (src/agent/context/observations.ts); these
caps only keep one answer from a careless server to a size the browser can take (a tool
that returns 50 MB of text gets its head and a note). Binary blobs and audio are described,
not passed; images pass when they are a raster format the model may see.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from .mcp_config import McpServerSpec, namespaced
from .mcp_schema import outside_reference

#: Characters of text (all text parts of one result together).
MAX_TEXT = 200_000
#: Images per result, and base64 characters per image (about 3 MB of image).
MAX_IMAGES = 4
MAX_IMAGE_CHARS = 4_000_000
IMAGE_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Structured content larger than this (as JSON) is left out: the text parts say the same.
MAX_STRUCTURED = 50_000
#: A tool description longer than this is cut (it is sent with every model request).
MAX_DESCRIPTION = 2000
#: Input schemas larger than this (as JSON) make the tool unusable: listed as skipped.
MAX_SCHEMA = 20_000


def _size(base64_text: str) -> int:
    return len(base64_text) * 3 // 4


def describe_tools(spec: McpServerSpec, tools: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The tools the agent may call (namespaced, with their JSON schemas), and those skipped with why."""
    listed: list[dict[str, Any]] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for tool in tools:
        name = namespaced(spec.name, tool.name) if isinstance(tool.name, str) else None
        if name is None or name in seen:
            skipped.append(f"{str(tool.name)[:80]!r}: not a usable tool name (letters, digits, '_', '-'; 64 at most)")
            continue
        schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
        try:
            size = len(json.dumps(schema, allow_nan=False))
        except (TypeError, ValueError, RecursionError):
            size = MAX_SCHEMA + 1
        if schema.get("type", "object") != "object" or size > MAX_SCHEMA:
            skipped.append(f"{tool.name!r}: its input schema is not an object schema of a usable size")
            continue
        outside = outside_reference(schema)
        if outside is not None:
            # Never fetched: the schema is the MCP server's, and a reference would make this server
            # read a URL or file of its choosing (and show it in an error).
            skipped.append(
                f"{tool.name!r}: its input schema refers to {outside[:120]!r}, outside itself "
                "(references to other documents are not fetched)"
            )
            continue
        seen.add(name)
        listed.append(
            {
                "name": name,
                "tool": tool.name,
                "title": tool.title or None,
                "description": (tool.description or "")[:MAX_DESCRIPTION],
                "input_schema": {**schema, "type": "object"},
                "auto_approve": spec.auto_approves(tool.name),
            }
        )
    return listed, skipped


def _resource(block: EmbeddedResource, budget: int) -> tuple[dict[str, Any], int]:
    contents = block.resource
    item: dict[str, Any] = {"type": "resource", "uri": str(contents.uri), "mime_type": contents.mime_type}
    if isinstance(contents, TextResourceContents):
        item["text"] = contents.text[:budget]
        if len(contents.text) > budget:
            item["truncated"] = len(contents.text) - budget
        return item, len(item["text"])
    if isinstance(contents, BlobResourceContents):
        item["bytes"] = _size(contents.blob)
    return item, 0


def result_json(name: str, result: CallToolResult) -> dict[str, Any]:
    """A tool result as the browser gets it."""
    content: list[dict[str, Any]] = []
    text_left, images = MAX_TEXT, 0
    for block in result.content:
        if isinstance(block, TextContent):
            text = block.text[: max(text_left, 0)]
            item: dict[str, Any] = {"type": "text", "text": text}
            if len(block.text) > len(text):
                item["truncated"] = len(block.text) - len(text)
            text_left -= len(text)
            content.append(item)
        elif isinstance(block, ImageContent):
            usable = block.mime_type in IMAGE_MIMES and len(block.data) <= MAX_IMAGE_CHARS and images < MAX_IMAGES
            if usable and _valid_base64(block.data):
                images += 1
                content.append({"type": "image", "mime_type": block.mime_type, "data": block.data})
            else:
                content.append({"type": "image", "mime_type": block.mime_type, "bytes": _size(block.data)})
        elif isinstance(block, EmbeddedResource):
            item, used = _resource(block, max(text_left, 0))
            text_left -= used
            content.append(item)
        elif isinstance(block, ResourceLink):
            content.append({"type": "resource_link", "uri": str(block.uri), "name": block.name})
        elif isinstance(block, AudioContent):
            content.append({"type": "audio", "mime_type": block.mime_type, "bytes": _size(block.data)})
        else:
            content.append({"type": "unknown"})
    answer: dict[str, Any] = {"name": name, "is_error": bool(result.is_error), "content": content}
    if result.structured_content is not None:
        try:
            small = len(json.dumps(result.structured_content, allow_nan=False)) <= MAX_STRUCTURED
        except (TypeError, ValueError):  # NaN, or something JSON cannot hold
            small = False
        answer["structured"] = result.structured_content if small else None
    return answer


def _valid_base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
        return True
    except ValueError:
        return False
