"""The real-path check the agent's file tools use before reading."""

from __future__ import annotations

import json
import os

from jupyterlab_notebook_agent.path_check import inside_root


async def test_links_out_of_the_root_are_reported(jp_fetch, jp_root_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "id_rsa"
    outside.write_text("secret")
    (jp_root_dir / "data").mkdir()
    (jp_root_dir / "data" / "ok.csv").write_text("a\n1\n")
    os.symlink(outside, jp_root_dir / "data" / "link.csv")
    os.symlink(jp_root_dir / "data" / "ok.csv", jp_root_dir / "inner-link.csv")

    async def check(path: str) -> bool:
        response = await jp_fetch("notebook-agent", "path-check", params={"path": path})
        return json.loads(response.body)["inside"]

    assert await check("data/ok.csv") is True
    assert await check("inner-link.csv") is True  # a link that stays inside is fine
    assert await check("data/link.csv") is False
    assert await check("../../etc/passwd") is False
    assert await check("") is True


def test_inside_root_is_not_fooled_by_a_common_prefix(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "root-other").mkdir()
    assert inside_root(str(root), "../root-other/x") is False
    assert inside_root(str(root), "sub/../x") is True
