"""Server-side configuration of the model endpoints.

Keys live here (server config, environment, or the user's key file on the
server), never in the browser: the proxy adds them to upstream requests. An
admin can configure every user of a server at once with ``c.NotebookAgent.*``
or environment variables.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from traitlets import Bool, Dict, Float, Integer, List, Unicode
from traitlets.config import Configurable


def normalize_base_url(url: str) -> str:
    """Canonical form used to compare base URLs: no trailing slash."""
    return url.strip().rstrip("/")


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


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
            "api_key, api_key_env, models, default_model, headers. The browser picks one with the "
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
            "AZURE_OPENAI_API_KEY and every provider's api_key_env), so code the agent runs cannot print a "
            "key into a notebook or send it anywhere. False: kernels inherit them, for notebooks that call "
            "the API themselves."
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
        min=0,
        help=(
            "Keep at most this many saved chats (of all notebooks): saving one more forgets the least recently "
            "updated. 0 (the default) keeps every chat."
        ),
    ).tag(config=True)

    max_retries = Integer(
        2,
        min=0,
        help=(
            "Retries after an upstream 429, 502, 503 or 504 received before anything was sent to the browser "
            "(never once streaming started)."
        ),
    ).tag(config=True)

    max_retry_wait = Float(
        20.0,
        min=0.0,
        help=(
            "Longest wait before a retry, in seconds. An upstream Retry-After longer than this is not waited "
            "for: the error goes to the browser at once."
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
        Integer(min=1, max=65535),
        default_value=[11434, 1234, 8080, 8000],
        help=(
            "Loopback ports looked at when no endpoint is configured: Ollama (11434), LM Studio (1234), "
            "llama.cpp's server (8080) and vLLM (8000) by default."
        ),
    ).tag(config=True)

    discover_timeout = Float(
        1.0,
        min=0.05,
        help="Seconds one port may take to answer GET /v1/models before it is passed over.",
    ).tag(config=True)
