"""MCP server entries: what is accepted, what is refused (with a message that quotes no secret),
and where the user's file counts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from traitlets.config import Config

from jupyterlab_notebook_agent.config import NotebookAgent
from jupyterlab_notebook_agent.mcp_config import mcp_secret_variables, mcp_secrets, parse_server, resolve_mcp_servers

SECRET = "env-secret-value-0123456789"


def agent(**traits) -> NotebookAgent:
    return NotebookAgent(config=Config({"NotebookAgent": traits}))


def test_a_stdio_and_an_http_server_parse():
    stdio = parse_server("files", {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": SECRET}}, "config")
    assert (stdio.transport, stdio.args, stdio.timeout, stdio.auto_approve) == ("stdio", ("-y", "srv"), 30.0, False)
    http = parse_server("web", {"url": "https://h/mcp", "headers": {"Authorization": "Bearer abcdefghij"}}, "user")
    assert http.transport == "http" and http.source == "user"
    assert set(http.secrets()) == {"Bearer abcdefghij", "abcdefghij"}
    assert parse_server("a", {"command": "x", "auto_approve": ["t1"]}, "config").auto_approves("t1")
    assert not parse_server("a", {"command": "x", "auto_approve": ["t1"]}, "config").auto_approves("t2")
    assert parse_server("a", {"command": "x", "auto_approve": True}, "config").auto_approves("anything")


@pytest.mark.parametrize(
    ("name", "spec", "says"),
    [
        ("a__b", {"command": "x"}, "the name"),
        ("bad name", {"command": "x"}, "the name"),
        ("x" * 33, {"command": "x"}, "the name"),
        ("ok", "npx", "must be an object"),
        ("ok", {}, "either command"),
        ("ok", {"command": "x", "url": "http://h"}, "either command"),
        ("ok", {"command": "x", "colour": 1}, "unknown field(s) colour"),
        ("ok", {"command": "x", "args": "-y"}, "args must be a list"),
        ("ok", {"command": "x", "env": {"TOKEN": 5}}, "value of TOKEN"),
        ("ok", {"command": "x", "env": {"1BAD": "v"}}, "not a valid name"),
        ("ok", {"command": "x", "headers": {"A": "b"}}, "headers belong to url"),
        ("ok", {"url": "ftp://h/mcp"}, "http(s) URL"),
        ("ok", {"url": "file:///etc/passwd"}, "http(s) URL"),
        ("ok", {"url": "http://h/mcp", "args": []}, "belong to command"),
        ("ok", {"url": "http://h/mcp", "headers": {"X": f"{SECRET}\r\nEvil: 1"}}, "single-line"),
        ("ok", {"url": "http://h/mcp", "headers": {"Bad Name": "v"}}, "not a valid name"),
        ("ok", {"command": "x", "timeout": 0}, "timeout must be"),
        ("ok", {"command": "x", "timeout": True}, "timeout must be"),
        ("ok", {"command": "x", "start_timeout": 10_000}, "start_timeout must be"),
        ("ok", {"command": "x", "auto_approve": "yes"}, "auto_approve must be"),
    ],
)
def test_bad_entries_are_refused_with_a_message_that_quotes_no_secret(name, spec, says):
    with pytest.raises(ValueError) as refused:
        parse_server(name, spec, "config")
    assert says in str(refused.value)
    assert SECRET not in str(refused.value)


def test_the_users_file_counts_only_when_the_admin_allows_it(tmp_path: Path):
    user = tmp_path / "mcp.json"
    user.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "mine": {"command": sys.executable, "env": {"K": SECRET}},
                    "shared": {"command": "mine-instead"},
                }
            }
        )
    )
    admin = {"shared": {"command": "the-admins"}}
    closed = resolve_mcp_servers(agent(mcp_servers=admin, user_mcp_config=str(user)))
    assert list(closed.servers) == ["shared"] and not closed.user_servers_allowed
    assert SECRET not in mcp_secrets(agent(mcp_servers=admin, user_mcp_config=str(user)))
    opened = agent(mcp_servers=admin, user_mcp_config=str(user), allow_user_mcp_servers=True)
    servers = resolve_mcp_servers(opened)
    assert servers.servers["shared"].command == "the-admins"  # the admin's entry wins
    assert servers.servers["mine"].source == "user"
    assert any("'shared' in the user's file ignored" in e for e in servers.errors)
    assert SECRET in mcp_secrets(opened)


def test_the_users_http_servers_need_a_url_the_admin_allowed(tmp_path: Path):
    """The rule of model endpoints: the admin's URLs as configured, a user's only from allowed_mcp_urls."""
    user = tmp_path / "mcp.json"
    listed, other = "https://mcp.example.org/mcp", f"https://elsewhere.example.org/mcp?key={SECRET}"
    user.write_text(json.dumps({"mcpServers": {"listed": {"url": listed + "/"}, "other": {"url": other}}}))
    admin = {"admins": {"url": "https://admin.example.org/mcp"}}
    config = agent(mcp_servers=admin, user_mcp_config=str(user), allow_user_mcp_servers=True, allowed_mcp_urls=[listed])
    servers = resolve_mcp_servers(config)
    assert sorted(servers.servers) == ["admins", "listed"]
    refused = [e for e in servers.errors if "'other'" in e]
    assert refused and "allowed_mcp_urls" in refused[0] and SECRET not in refused[0]
    nothing_listed = agent(mcp_servers=admin, user_mcp_config=str(user), allow_user_mcp_servers=True)
    assert sorted(resolve_mcp_servers(nothing_listed).servers) == ["admins"]


def test_a_broken_user_file_is_reported_not_fatal(tmp_path: Path):
    user = tmp_path / "mcp.json"
    for text, says in (("{not json", "could not be read"), ('{"servers": 1}', "expected"), ("[" * 100_000, "read")):
        user.write_text(text)
        servers = resolve_mcp_servers(agent(user_mcp_config=str(user), allow_user_mcp_servers=True))
        assert servers.servers == {} and says in servers.errors[0]


def test_secrets_of_invalid_entries_are_still_secrets():
    config = agent(
        mcp_servers={"bad__name": {"command": "x", "env": {"K": SECRET}}, "u": {"url": f"http://h/?k={SECRET}"}}
    )
    assert list(resolve_mcp_servers(config).servers) == ["u"]  # bad__name is refused, its env still secret
    assert mcp_secrets(config) == [SECRET]
    assert mcp_secrets(agent(mcp_servers={"s": {"command": "x", "env": {"LEVEL": "info"}}})) == []


def test_short_header_values_are_secrets_and_short_env_values_configuration():
    config = agent(mcp_servers={"s": {"url": "http://h/mcp", "headers": {"X-Key": "zq47"}, "env": {"DEBUG": "1"}}})
    assert mcp_secrets(config) == ["zq47"]  # matched as a whole token by the outbound filter
    # A kernel would lose every variable that happened to equal a short value: only long ones are kept from it.
    assert mcp_secret_variables(config, {"A": "zq47", "B": SECRET}) == set()
    long = agent(mcp_servers={"s": {"url": "http://h/mcp", "headers": {"X-Key": SECRET}}})
    assert mcp_secret_variables(long, {"A": SECRET, "B": "other"}) == {"A"}


def test_a_user_name_and_short_query_values_in_an_mcp_url_are_no_secrets():
    """``user`` or ``json`` as secrets would be redacted from every answer (and Content-Type headers)."""
    url = "https://user:pw@h/mcp?format=json&token=abcdefghijkl"
    assert set(mcp_secrets(agent(mcp_servers={"s": {"url": url}}))) == {"user:pw", "pw", "abcdefghijkl"}
    assert set(mcp_secrets(agent(mcp_servers={"s": {"url": "https://tok3n@h/mcp"}}))) == {"tok3n"}  # a bare token
