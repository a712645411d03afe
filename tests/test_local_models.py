"""The local models folder, served read-only under notebook-agent/models/."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

WEIGHTS = bytes(range(256)) * 64


@pytest.fixture
def models_dir(tmp_path):
    model = tmp_path / "models" / "tiny"
    (model / "onnx").mkdir(parents=True)
    (model / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (model / "onnx" / "model_q4.onnx").write_bytes(WEIGHTS)
    (model / ".secret").write_text("hidden")
    (tmp_path / "outside.txt").write_text("not a model")
    (model / "escape.txt").symlink_to(tmp_path / "outside.txt")
    return tmp_path / "models"


@pytest.fixture
def served() -> str:
    """How the admin names the folder: the folder itself, or a symlink to it (tests parametrize it)."""
    return "folder"


@pytest.fixture
def jp_server_config(models_dir, served, tmp_path):
    path = models_dir
    if served == "symlink":
        path = tmp_path / "site-models"
        path.symlink_to(models_dir)
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {"local_models_dir": str(path)},
    }


async def test_serves_model_files(jp_fetch):
    config = await jp_fetch("notebook-agent", "models", "tiny", "config.json")
    assert config.code == 200
    assert config.headers["Content-Type"] == "application/json"
    assert json.loads(config.body) == {"model_type": "llama"}
    weights = await jp_fetch("notebook-agent", "models", "tiny", "onnx", "model_q4.onnx")
    assert weights.headers["Content-Type"] == "application/octet-stream"
    assert weights.body == WEIGHTS


@pytest.mark.parametrize("served", ["symlink"])
async def test_a_symlinked_folder_is_served_but_links_out_of_it_are_not(jp_fetch):
    # Sites often link /srv/models to where the weights really are.
    config = await jp_fetch("notebook-agent", "models", "tiny", "config.json")
    assert json.loads(config.body) == {"model_type": "llama"}
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch("notebook-agent", "models", "tiny", "escape.txt")
    assert error.value.code in (403, 404)


async def test_range_requests_work(jp_fetch):
    part = await jp_fetch("notebook-agent", "models", "tiny", "onnx", "model_q4.onnx", headers={"Range": "bytes=0-9"})
    assert part.code == 206
    assert part.body == WEIGHTS[:10]


@pytest.mark.parametrize(
    "path",
    [
        ("tiny", "missing.json"),
        ("tiny", ".secret"),
        ("..", "outside.txt"),
        ("tiny", "..", "..", "outside.txt"),
        ("tiny", "escape.txt"),
    ],
)
async def test_missing_hidden_and_outside_files_are_refused(jp_fetch, path):
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch("notebook-agent", "models", *path)
    assert error.value.code in (403, 404)


async def test_read_only(jp_fetch):
    for method, body in (("PUT", b"x"), ("POST", b"x"), ("DELETE", None)):
        response = await jp_fetch(
            "notebook-agent",
            "models",
            "tiny",
            "config.json",
            method=method,
            body=body,
            raise_error=False,
            allow_nonstandard_methods=True,
        )
        assert response.code == 405, method


async def test_needs_login(jp_fetch, jp_http_port, jp_base_url):
    # jp_fetch starts the server; the request below carries no token.
    url = f"http://localhost:{jp_http_port}{jp_base_url}notebook-agent/models/tiny/config.json"
    response = await AsyncHTTPClient().fetch(HTTPRequest(url, follow_redirects=False), raise_error=False)
    assert response.code in (302, 403)
