"""Which call each streamed tool-call fragment joins, from the shared table tests/tool_call_cases.json.

src/agent/__tests__/tool-call-grouping.test.ts plays the same table through the agent's reader (TurnAccumulator):
the server's look for a key streamed in pieces (sse_deltas.py) groups fragments with tool_call_grouping.py, and must
join the same fragments the reader joins.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_notebook_agent.tool_call_grouping import ToolCallGrouping

CASES = json.loads((Path(__file__).parent / "tool_call_cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_fragments_join_the_calls_the_reader_joins_them_to(case):
    grouping = ToolCallGrouping()
    for fragment in case["fragments"]:
        grouping.add(fragment)
    calls = sorted(grouping.calls, key=lambda call: call.key)  # stable, as the reader's sort
    assert [[call.name, call.arguments] for call in calls if call.name != ""] == case["calls"]
