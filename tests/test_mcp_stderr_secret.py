"""A secret with line breaks that an MCP server writes to stderr stays out of the error the browser and the log see.

An outside re-check: an admin's stdio server whose ``env`` holds a PEM printed it to stderr and exited; the error
(``POST``/``GET notebook-agent/mcp/servers``, the log's warning) held it with its line breaks made spaces, which no
filter took for the secret: the text was put on one line before the secrets were taken out.
"""

from __future__ import annotations

import logging
import sys

import pytest

from jupyterlab_notebook_agent.mcp_config import parse_server
from jupyterlab_notebook_agent.mcp_connection import McpCallError, McpConnection

LINES = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"]
PEM = "\n".join(["-----BEGIN PRIVATE KEY-----", *LINES, "-----END PRIVATE KEY-----"])
SCRIPT = "import os, sys; sys.stderr.write('could not load the key:\\n' + os.environ['SA_KEY'] + '\\n'); sys.exit(1)"

pytestmark = pytest.mark.fault_category("outbound filter")


async def test_a_pem_the_server_prints_to_stderr_is_redacted_from_its_error_and_the_log(caplog):
    spec = parse_server("keyed", {"command": sys.executable, "args": ["-c", SCRIPT], "env": {"SA_KEY": PEM}}, "admin")
    connection = McpConnection(spec, logging.getLogger("test-mcp-stderr"))
    with caplog.at_level(logging.WARNING), pytest.raises(McpCallError) as failed:
        await connection.ensure()
    said = " ".join([str(failed.value), connection.error or "", *(r.getMessage() for r in caplog.records)])
    assert "could not load the key" in said and "[redacted]" in said, said
    for line in LINES:  # the key's own lines, however the text was joined
        assert line not in said, said
