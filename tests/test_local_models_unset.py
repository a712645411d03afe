"""Without c.NotebookAgent.local_models_dir, the models route says how to set it."""

from __future__ import annotations

import json


async def test_unset_folder_is_a_404_that_says_what_to_set(jp_fetch):
    response = await jp_fetch("notebook-agent", "models", "tiny", "config.json", raise_error=False)
    assert response.code == 404
    assert "c.NotebookAgent.local_models_dir" in json.loads(response.body)["error"]["message"]
