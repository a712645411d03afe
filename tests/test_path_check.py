"""The real-path check the agent's file tools use before reading or listing (the route's half of the
shared table tests/path_cases.json; src/headless/__tests__/path-safety.test.ts drives the headless port
through the same table)."""

from __future__ import annotations

import json
import os

import pytest
from path_table import TABLE, build

pytestmark = pytest.mark.fault_category("path checks")


@pytest.fixture
def jp_root_dir(tmp_path):
    """The server root is a fake $HOME holding .env and .ssh, with planted links (the table's tree)."""
    root, _ = build(tmp_path / "tree")
    return root


async def check(jp_fetch, path: str, **params) -> dict:
    response = await jp_fetch("notebook-agent", "path-check", params={"path": path, **params})
    return json.loads(response.body)


async def test_the_route_refuses_hidden_and_outside_paths(jp_fetch, findings):
    for case in TABLE["reads"]:
        with findings.case(f"{case['path']}: {case['verdict']}"):
            answer = await check(jp_fetch, case["path"])
            allowed = case["verdict"] == "allowed"
            findings.leak_if(answer["allowed"] and not allowed, f"{case['path']} allowed")
            assert answer["allowed"] is allowed, case
            assert answer["reason"] == (None if allowed else case["verdict"]), case
            assert answer["inside"] is (case["verdict"] != "outside"), case


async def test_the_route_judges_paths_write_file_is_given_even_those_not_there_yet(jp_fetch, findings):
    """write_file asks before creating: a new name under a link to a hidden or outside folder is refused."""
    for case in TABLE["writes"]:
        with findings.case(f"write {case['path']}: {case['verdict']}"):
            answer = await check(jp_fetch, case["path"])
            allowed = case["verdict"] == "allowed"
            findings.leak_if(answer["allowed"] and not allowed, f"write to {case['path']} allowed")
            assert answer["allowed"] is allowed, case
            assert answer["reason"] == (None if allowed else case["verdict"]), case
            assert answer["real"] == (case.get("real", case["path"]) if allowed else None), case


async def test_the_contents_api_itself_follows_the_links(jp_fetch):
    """Why the check exists: Jupyter serves a link to .env under an ordinary name."""
    response = await jp_fetch("api", "contents", "notes.txt", params={"content": "1"})
    assert "sk-planted-in-dotenv" in json.loads(response.body)["content"]


async def test_listings_name_the_entries_that_lead_to_hidden_paths(jp_fetch, findings):
    for listing in TABLE["listings"]:
        with findings.case(f"list {listing['dir'] or '(root)'}"):
            answer = await check(jp_fetch, listing["dir"], entries="1")
            hidden = {f"{listing['dir']}/{n}".lstrip("/") for n in answer["hidden_entries"]}
            assert hidden == set(listing["hidden"])
            assert not hidden & set(listing["shown"])


async def test_the_size_is_that_of_the_file_a_link_leads_to(jp_fetch, jp_root_dir):
    """The contents API lists a link with its own size: the readers decide on this one."""
    (jp_root_dir / "big.txt").write_text("x" * 100_000)
    (jp_root_dir / "small-name.txt").symlink_to(jp_root_dir / "big.txt")
    listed = json.loads((await jp_fetch("api", "contents", params={"content": "1"})).body)["content"]
    assert next(e["size"] for e in listed if e["name"] == "small-name.txt") < 100_000
    assert (await check(jp_fetch, "small-name.txt"))["size"] == 100_000
    assert (await check(jp_fetch, "big.txt"))["size"] == 100_000
    # No size for a folder, a path with nothing there, or a refused one.
    assert (await check(jp_fetch, ""))["size"] is None
    assert (await check(jp_fetch, "not-there.txt"))["size"] is None
    assert (await check(jp_fetch, "notes.txt"))["size"] is None  # a link to .env


async def test_malformed_paths_are_a_400(jp_fetch):
    for path in ("a\x00b", "x" * 5000, "line\nbreak"):
        response = await jp_fetch("notebook-agent", "path-check", params={"path": path}, raise_error=False)
        assert response.code == 400
        assert json.loads(response.body)["error"]["message"]


def test_inside_root_is_not_fooled_by_a_common_prefix(tmp_path):
    from jupyterlab_notebook_agent.path_check import check_path, inside_root

    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "root-other").mkdir()
    assert inside_root(str(root), "../root-other/x") is False
    assert inside_root(str(root), "sub/../x") is True
    assert check_path(str(root), "sub/.git/config").hidden is True
    assert check_path(str(root), "").allowed is True


async def test_the_links_are_those_of_the_file_a_path_leads_to(jp_fetch, jp_root_dir):
    """A hard link shares its file with names elsewhere (``notes/hl.txt`` is ``venv/pip.conf``): realpath cannot
    see that, and Jupyter's atomic write replaces the contents in place, so the route says how many names the file
    has and write_file refuses to replace one with more than one (an outside review, 2026-12-07)."""
    (jp_root_dir / "venv" / "pip.conf").write_text("[global]\n")
    (jp_root_dir / "notes").mkdir()
    os.link(jp_root_dir / "venv" / "pip.conf", jp_root_dir / "notes" / "hl.txt")
    (jp_root_dir / "notes" / "sym.txt").symlink_to("hl.txt")
    assert (await check(jp_fetch, "notes/hl.txt"))["links"] == 2
    assert (await check(jp_fetch, "venv/pip.conf"))["links"] == 2
    assert (await check(jp_fetch, "notes/sym.txt"))["links"] == 2  # a symbolic link followed
    assert (await check(jp_fetch, "data/ok.csv"))["links"] == 1
    # None for a folder, a path with nothing there, or a refused one.
    assert (await check(jp_fetch, "data"))["links"] is None
    assert (await check(jp_fetch, "notes/new.txt"))["links"] is None
    assert (await check(jp_fetch, "notes.txt"))["links"] is None  # a link to .env
