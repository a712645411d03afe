"""The tools an outside agent gets, as ``outside_tools.json`` lists them.

The file is written from the TypeScript tools (``src/agent/outside/catalogue.ts``, held against
them by its Jest test), so ``tools/list`` is answered here without a page or Node, and the
action each call needs from the Authorizer is the one the catalogue names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CATALOGUE = Path(__file__).with_name("outside_tools.json")
ACTIONS = ("read", "write", "execute")


@dataclass(frozen=True)
class OutsideTool:
    """One tool: what ``tools/list`` shows, and how a call is authorized and routed."""

    name: str
    action: str
    notebook: bool
    listed: dict[str, Any]


@cache
def outside_tools() -> dict[str, OutsideTool]:
    """The catalogue by name, in its order."""
    tools: dict[str, OutsideTool] = {}
    for entry in json.loads(CATALOGUE.read_text("utf-8"))["tools"]:
        if entry["action"] not in ACTIONS:
            raise ValueError(f"outside_tools.json: {entry['name']} has the unknown action {entry['action']!r}")
        listed = {k: entry[k] for k in ("name", "title", "description", "inputSchema", "annotations")}
        tools[entry["name"]] = OutsideTool(entry["name"], entry["action"], bool(entry["notebook"]), listed)
    return tools
