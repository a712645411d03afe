"""Where an outside agent's call runs: the page that has its notebook open.

Pages register the notebooks they have open (``outside_channel.py``); a call on one of them is
relayed to that page, which runs it through the agent's own tools over the live notebook. A
notebook no page has open is refused until the server-side port serves it.
"""

from __future__ import annotations

import json
from typing import Any

SETTINGS_KEY = "notebook_agent_outside"


def text_result(text: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


class OutsideHub:
    """The pages connected to this server and what they have open, per user."""

    def list_notebooks(self, user: str) -> dict[str, Any]:
        notebooks: list[str] = []
        return {
            "content": [{"type": "text", "text": json.dumps({"open_in_jupyterlab": notebooks})}],
            "structuredContent": {"open_in_jupyterlab": notebooks},
            "isError": False,
        }

    async def call(self, user: str, session: Any, tool: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        return text_result(
            f"{arguments.get('notebook')} is not open in JupyterLab. Ask the user to open it there, then call again.",
            error=True,
        )

    def session_ended(self, session_id: str) -> None:
        """The client ended its session: its runs end with it."""
