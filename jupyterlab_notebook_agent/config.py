"""Server-side configuration of the model endpoints.

Keys live here (server config, environment, or the user's key file on the
server), never in the browser: the proxy adds them to upstream requests. An
admin can configure every user of a server at once with ``c.NotebookAgent.*``
or environment variables.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from traitlets import Bool, Dict, Float, Integer, List, Unicode, validate
from traitlets.config import Configurable
from traitlets.log import get_logger

#: The smallest request body cap (``max_request_bytes``, ``max_completion_request_bytes``) that is used.
MIN_REQUEST_BYTES = 1024

#: The smallest value each numeric setting takes, and how its warning names the unit. A value below it is
#: ignored with a warning (see :meth:`NotebookAgent._in_range`).
LOWEST: dict[str, tuple[float, str]] = {
    "max_chats": (0, "chats; 0 keeps every chat"),
    "max_request_bytes": (MIN_REQUEST_BYTES, "bytes"),
    "max_completion_request_bytes": (MIN_REQUEST_BYTES, "bytes"),
    "max_retries": (0, "retries"),
    "max_retry_wait": (0.0, "seconds"),
    "discover_timeout": (0.05, "seconds"),
}

#: The ports ``discover_ports`` may name.
PORTS = range(1, 65536)


def normalize_base_url(url: str) -> str:
    """Canonical form used to compare base URLs: no trailing slash."""
    return url.strip().rstrip("/")


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def split_query(url: str) -> tuple[str, str]:
    """``url`` without its query string, and the query string (``""`` when none)."""
    base, _, query = url.partition("?")
    return base.rstrip("/"), query.split("#", 1)[0]


#: Where configuration and secrets share a place (a URL's query, an MCP server's ``env``), shorter
#: values are configuration (``format=json``, ``DEBUG=1``), not secrets: redacted, ``json`` or
#: ``1`` would vanish from every answer. Keys, passwords and header values count at any length.
MIN_SECRET = 8


def url_secrets(url: str, parts: bool = False) -> Any:
    """Credentials a URL carries: the password (``user:pass@``; or the user, when it is a bare token
    ``TOKEN@``) and every query value.

    A user name next to a password is not a secret (a name such as ``user`` would otherwise be
    redacted from every answer, ``"role": "user"`` included), nor is a query value shorter than
    :data:`MIN_SECRET` (``format=json``: a key is longer, and ``json`` would be redacted from
    every answer and header). Each as written and percent-decoded.
    ``parts=True``: ``{"userinfo": [...], "query": [...]}`` (every value) instead.
    """
    try:
        split = urlsplit(url)
    except ValueError:
        return {} if parts else []
    userinfo = []
    if "@" in split.netloc:
        info = split.netloc.rsplit("@", 1)[0]
        user, _, password = info.partition(":")
        userinfo = [info, password] if password else [user]
    query = [value for _, value in parse_qsl(split.query, keep_blank_values=False)]
    query += [v.split("=", 1)[1] for v in split.query.split("&") if "=" in v]
    if parts:
        return {"userinfo": [v for v in userinfo if v], "query": [v for v in query if v]}
    values = [*userinfo, *(v for v in query if len(unquote(v)) >= MIN_SECRET)]
    return [v for v in dict.fromkeys([*values, *(unquote(v) for v in values)]) if v]


def public_url(url: str) -> str:
    """``url`` with its credentials and query values replaced by ``[redacted]``: fit for the browser and the log."""
    try:
        split = urlsplit(url)
    except ValueError:
        return "[redacted URL]"
    netloc = split.netloc
    if "@" in netloc:
        netloc = "[redacted]@" + netloc.rsplit("@", 1)[1]
    query = "&".join(
        f"{part.split('=', 1)[0]}=[redacted]" if "=" in part else part for part in split.query.split("&") if part
    )
    return urlunsplit((split.scheme, netloc, split.path, query, ""))


class NotebookAgent(Configurable):
    """Configuration of Notebook Agent's server extension."""

    base_url = Unicode(
        "",
        help=(
            "Base URL of the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1. "
            "Defaults to the OPENAI_BASE_URL environment variable. This endpoint is the provider 'default'."
        ),
    ).tag(config=True)

    api_key = Unicode(
        "",
        help=(
            "API key sent upstream as a Bearer token. Defaults to the OPENAI_API_KEY "
            "environment variable. Never sent to the browser."
        ),
    ).tag(config=True)

    model = Unicode(
        "",
        help="Default model name. Defaults to the NOTEBOOK_AGENT_MODEL environment variable.",
    ).tag(config=True)

    allowed_base_urls = List(
        Unicode(),
        default_value=[],
        help=(
            "Further base URLs a user may select in the sidebar settings while in proxy mode. "
            "The proxy forwards to no other host."
        ),
    ).tag(config=True)

    providers = Dict(
        default_value={},
        help=(
            "Named model providers, e.g. {'openai': {'kind': 'openai', 'api_key_env': 'OPENAI_API_KEY', "
            "'models': ['gpt-4o-mini']}, 'azure': {'kind': 'azure', 'endpoint': 'https://NAME.openai.azure.com', "
            "'deployment': 'gpt-4o', 'api_version': '2024-10-21', 'api_key_env': 'AZURE_OPENAI_API_KEY'}, "
            "'ollama': {'kind': 'openai-compatible', 'base_url': 'http://127.0.0.1:11434/v1'}}. "
            "Fields: kind (openai | openai-compatible | azure), base_url, endpoint, deployment, api_version, "
            "api_key, api_key_env, models, default_model, headers, headers_env (header name -> variable name, "
            "read per request, so the value stays out of the logged config). The browser picks one with the "
            "X-Notebook-Agent-Provider header. The legacy base_url/OPENAI_BASE_URL endpoint is the provider "
            "'default'."
        ),
    ).tag(config=True)

    default_provider = Unicode(
        "",
        help=(
            "Provider used when the browser names none. Unset: the legacy endpoint ('default') if "
            "base_url/OPENAI_BASE_URL is set, else the first entry of providers."
        ),
    ).tag(config=True)

    allow_user_keys = Bool(
        True,
        help=(
            "Let users store their own API key per provider on the server (PUT notebook-agent/keys/<provider>). "
            "A stored key takes precedence over api_key and api_key_env. False: the routes answer 403 and "
            "stored keys are ignored."
        ),
    ).tag(config=True)

    hide_keys_from_kernels = Bool(
        True,
        help=(
            "Start kernels without the model keys of the server's environment (OPENAI_API_KEY, "
            "AZURE_OPENAI_API_KEY, every provider's api_key_env and headers_env, and any variable holding an MCP "
            "server's env or header value). This is not isolation: "
            "code in a kernel runs as the same user as the server and can read its memory and files (see the "
            "docs/security.md). False: kernels inherit them, for notebooks that call the API themselves."
        ),
    ).tag(config=True)

    local_models_dir = Unicode(
        "",
        help=(
            "Folder of models for the in-browser local model, served read-only (to logged-in users) under "
            "<base_url>notebook-agent/models/, one sub-folder per model in the transformers.js layout "
            "(config.json, tokenizer.json, tokenizer_config.json, onnx/model_q4.onnx, ...). Point the "
            "'localModelPath' setting at 'notebook-agent/models/' to load models from it. Empty: not served."
        ),
    ).tag(config=True)

    key_store_path = Unicode(
        "",
        help="File holding user-stored keys (mode 0600). Default: <jupyter_data_dir>/notebook_agent/keys.json.",
    ).tag(config=True)

    chats_dir = Unicode(
        "",
        help="Folder of the saved chats (one 0600 file each). Default: <jupyter_data_dir>/notebook_agent/chats.",
    ).tag(config=True)

    max_chats = Integer(
        0,
        help=(
            "Keep at most this many saved chats (of all notebooks): saving one more forgets the least recently "
            "updated. 0 (the default) keeps every chat."
        ),
    ).tag(config=True)

    max_request_bytes = Integer(
        32 * 1024 * 1024,
        help=(
            "Largest request body POST notebook-agent/v1/chat/completions takes, in bytes (32 MiB; at least 1024, "
            "a smaller value is ignored with a warning). The agent's requests are far smaller (its context and at "
            "most four images of 500 KB); a larger body is refused with 413 before it is read as JSON."
        ),
    ).tag(config=True)

    max_completion_request_bytes = Integer(
        1024 * 1024,
        help=(
            "Largest request body POST notebook-agent/v1/completions takes, in bytes (1 MiB; at least 1024, a "
            "smaller value is ignored with a warning). Inline completion sends about 5 KB (4000 characters before "
            "the cursor, 1000 after); a larger body is refused with 413."
        ),
    ).tag(config=True)

    @validate(*LOWEST)
    def _in_range(self, proposal: Any) -> float:
        # Not a TraitError (nor traitlets' own ``min=``): that makes the whole extension fail to load (every
        # route a 404) over one setting, where the default is a safe answer and the warning says what to fix.
        value, trait = proposal["value"], proposal["trait"]
        lowest, unit = LOWEST[trait.name]
        if value >= lowest:
            return value
        get_logger().warning(
            "Notebook Agent: c.NotebookAgent.%s = %s is ignored: it must be at least %s (%s); using the default, %s.",
            trait.name,
            value,
            lowest,
            unit,
            trait.default_value,
        )
        return trait.default_value

    max_retries = Integer(
        2,
        help=(
            "Retries after an upstream 429, 502, 503 or 504 received before anything was sent to the browser "
            "(never once streaming started)."
        ),
    ).tag(config=True)

    max_retry_wait = Float(
        20.0,
        help=(
            "Longest wait before a retry, in seconds. An upstream Retry-After longer than this is not waited "
            "for: the error goes to the browser at once."
        ),
    ).tag(config=True)

    secrets = List(
        Unicode(),
        default_value=[],
        help=(
            "More values to treat as secrets, though no provider sends them: kept out of what the browser "
            "receives, of requests to model endpoints, of kernel output and of the log. The command line "
            "passes its own key this way to the private server it starts."
        ),
    ).tag(config=True)

    # -- local servers found without configuration (discovery.py) ------------------------------

    discover_local_servers = Bool(
        True,
        help=(
            "With no endpoint configured, look for OpenAI-compatible model servers on this machine's loopback "
            "(127.0.0.1, the ports of discover_ports) in the background and offer those that answer with a model "
            "list as providers (on Linux, not one another user of the machine runs). False: never look, e.g. on a "
            "shared machine without /proc/net, or where only the configured endpoints may be used."
        ),
    ).tag(config=True)

    discover_ports = List(
        Integer(),
        default_value=[11434, 1234, 8080, 8000],
        help=(
            "Loopback ports looked at when no endpoint is configured: Ollama (11434), LM Studio (1234), "
            "llama.cpp's server (8080) and vLLM (8000) by default."
        ),
    ).tag(config=True)

    discover_timeout = Float(
        1.0,
        help="Seconds one port may take to answer GET /v1/models before it is passed over.",
    ).tag(config=True)

    @validate("discover_ports")
    def _ports(self, proposal: Any) -> list[int]:
        # A port out of range is dropped with a warning, the others still looked at (see _in_range: why not an error).
        ports = proposal["value"]
        usable = [port for port in ports if port in PORTS]
        if len(usable) < len(ports):
            get_logger().warning(
                "Notebook Agent: c.NotebookAgent.discover_ports: %s ignored: a port is 1 to 65535.",
                ", ".join(str(port) for port in ports if port not in PORTS),
            )
        return usable

    # -- MCP tool servers (mcp_config.py) ---------------------------------------------------

    mcp_servers = Dict(
        default_value={},
        help=(
            "MCP tool servers whose tools the agent may call, by name: a subprocess speaking stdio, "
            "{'files': {'command': 'npx', 'args': ['-y', '@modelcontextprotocol/server-filesystem', '/data'], "
            "'env': {'TOKEN': '...'}}}, or a streamable-HTTP endpoint, {'search': {'url': 'https://host/mcp', "
            "'headers': {'Authorization': 'Bearer ...'}}}. Optional fields: timeout (seconds per call, "
            "default 30), start_timeout (seconds to start, default 60), auto_approve (true, or a list of "
            "tool names, called without asking the user; default: every call asks), cwd. Servers run on "
            "this Jupyter server, never in the browser; env and header values are never sent to the "
            "browser or logged. Tools reach the agent as '<server>__<tool>'."
        ),
    ).tag(config=True)

    outside_worker_command = List(
        Unicode(),
        default_value=["notebook-agent", "mcp-worker"],
        help=(
            "The command that serves outside agents' calls on notebooks no JupyterLab page has open "
            "(docs/outside-agents.md): the notebook-agent command line's mcp-worker, started on first use with "
            "--server <this server's URL> and the server's token in $JUPYTER_TOKEN. Not found (no Node, or the "
            "command line not installed), or []: such calls are refused, saying to open the notebook in JupyterLab."
        ),
    ).tag(config=True)

    allow_user_mcp_servers = Bool(
        False,
        help=(
            "Also read MCP servers from the user's <jupyter config dir>/notebook_agent/mcp.json "
            "({'mcpServers': {name: server}}, same fields as mcp_servers; a server of mcp_servers wins a name "
            "clash). False (the default): that file is ignored, and only the admin's servers are used."
        ),
    ).tag(config=True)

    allowed_mcp_urls = List(
        Unicode(),
        default_value=[],
        help=(
            "URLs of streamable-HTTP MCP servers that the user's mcp.json may name (the same rule as "
            "allowed_base_urls for model endpoints: a user reaches only endpoints the admin listed). An entry of "
            "the user's file with any other url is ignored. The servers of mcp_servers need no entry here."
        ),
    ).tag(config=True)

    user_mcp_config = Unicode(
        "",
        help="The user's MCP file read when allow_user_mcp_servers is True. Default: "
        "<jupyter config dir>/notebook_agent/mcp.json.",
    ).tag(config=True)
