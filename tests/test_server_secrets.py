"""The server's one set of secrets (server_secrets.py) holds the MCP servers' too: the filters of
responses, kernel messages and log lines all read it, so an MCP header or env value is as safe as
a model key. No server needed: the set is built from the config."""

from __future__ import annotations

import json
import logging
import threading

from jupyterlab_notebook_agent.config import NotebookAgent
from jupyterlab_notebook_agent.server_secrets import RedactingFilter, ServerSecrets

ADMIN_HEADER = "mcp-admin-header-0123456789abc"
ADMIN_ENV = "mcp-admin-env-value-0123456789"
USER_HEADER = "mcp-user-header-0123456789xyz"


def admin_config(**extra) -> NotebookAgent:
    return NotebookAgent(
        mcp_servers={
            "tools": {"command": "python", "args": ["-m", "x"], "env": {"TOKEN": ADMIN_ENV}},
            "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {ADMIN_HEADER}"}},
        },
        **extra,
    )


def test_mcp_env_and_header_values_are_server_secrets():
    secrets = ServerSecrets(admin_config(), None)
    redacted = secrets.redact(f"env {ADMIN_ENV}, header Bearer {ADMIN_HEADER}")
    assert ADMIN_ENV not in redacted and ADMIN_HEADER not in redacted
    assert redacted.startswith("env [redacted], header ") and redacted.endswith("[redacted]")


def test_a_users_mcp_file_counts_and_a_change_to_it_is_seen(tmp_path):
    user_file = tmp_path / "mcp.json"
    config = admin_config(allow_user_mcp_servers=True, user_mcp_config=str(user_file))
    secrets = ServerSecrets(config, None)
    assert USER_HEADER in secrets.redact(f"x {USER_HEADER}")  # no file yet
    user_file.write_text(
        json.dumps({"mcpServers": {"mine": {"url": "http://127.0.0.1:9/m", "headers": {"X-Key": USER_HEADER}}}})
    )
    assert secrets.redact(f"x {USER_HEADER}") == "x [redacted]"


def test_log_lines_lose_them():
    secrets = ServerSecrets(admin_config(), None)
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "calling with %s", (ADMIN_HEADER,), None)
    assert RedactingFilter(secrets).filter(record)
    assert ADMIN_HEADER not in record.getMessage()


def test_a_set_that_cannot_be_built_is_logged_through_the_same_filter_without_hanging(monkeypatch):
    """The error line passes the log's own redacting filter, which asks for the set again: that second look
    waited for the first one's lock forever, and the server hung at start-up (a secret too long to compile)."""
    from jupyterlab_notebook_agent import server_secrets

    log = logging.getLogger("test-server-secrets-hang")
    secrets = ServerSecrets(admin_config(), None, log)
    log.addFilter(RedactingFilter(secrets))
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    log.addHandler(handler)

    def fail(*_: object) -> list[str]:
        raise ValueError("no set")

    monkeypatch.setattr(server_secrets, "collect_secrets", fail)
    done = threading.Event()
    threading.Thread(target=lambda: (secrets.matcher(), done.set()), daemon=True).start()
    assert done.wait(10), "matcher() hung"
    assert [r.getMessage() for r in records] == ["Notebook Agent: could not collect the server's secrets"]


def test_records_a_child_logger_passes_up_and_tracebacks_lose_them_in_the_handlers_that_write_the_log():
    """Jupyter makes ``tornado`` a child of the server's log: ``tornado.general`` quoted a malformed header holding the
    key ("Malformed HTTP message from None: Invalid header value ...") past the filters on the loggers, which apply
    only to records logged through them. An exception's text is written after every filter, by the formatter."""
    from jupyterlab_notebook_agent import _redact_logs

    app = logging.getLogger("test-redact-app")
    lines: list[str] = []
    handler = logging.Handler()
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    handler.emit = lambda record: lines.append(handler.format(record))  # type: ignore[method-assign]
    app.addHandler(handler)
    app.propagate = False
    tornado = logging.getLogger("tornado")
    saved = (tornado.parent, tornado.propagate, tornado.level)
    tornado.parent, tornado.propagate = app, True
    tornado.setLevel(logging.INFO)
    general = logging.getLogger("tornado.general")
    general_filters = list(general.filters)
    try:
        _redact_logs(app, RedactingFilter(ServerSecrets(admin_config(), None)))
        general.info("Malformed HTTP message from %s: Invalid header value %r", None, f"Bearer {ADMIN_HEADER}\x01")
        logging.getLogger("tornado.curl_httpclient").warning("upstream said %s", ADMIN_ENV)
        try:
            raise ValueError(f"bad token {ADMIN_ENV}")
        except ValueError:
            app.exception("a call failed")
    finally:
        tornado.parent, tornado.propagate = saved[0], saved[1]
        tornado.setLevel(saved[2])
        general.filters[:] = general_filters
        app.removeHandler(handler)
    said = "\n".join(lines)
    assert "Malformed HTTP message" in said and "upstream said [redacted]" in said and "ValueError" in said, said
    assert ADMIN_HEADER not in said and ADMIN_ENV not in said, said
