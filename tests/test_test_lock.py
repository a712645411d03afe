"""The test command installs only what it checked (#35 D3): the locks in requirements/ and scripts/install-test-deps.sh.

Each lock pins every package it installs with the sha256 of its files, and covers what pyproject.toml and
the ``.in`` files ask for (a dependency added without running scripts/lock-test-deps.sh fails here):
test.txt the test environment, jupyterhub.txt the hub of scripts/jupyterhub-check.sh, whose proxy's
package-lock.json has an integrity hash for every package (npm ci checks them), as the floor type-check's
does, wheel-build.txt what
scripts/test-wheel.sh builds the package with (pyproject.toml's build requirements and its hook's, no
JupyterLab) and wheel-targets/*.txt each of its targets' environments. No npm install script runs: each
package-lock's packages that have one are denied in their package.json's ``allowScripts``.

The install scripts, pointed at a local index (PEP 503, as pip reads it; no network), refuse a wheel
whose sha256 is not its pin and a package published only as an sdist, whose setup.py and build backend
would write a marker if anything ran them; the pinned wheel is installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_real_model_downloads import publish, write_sdist, write_wheel

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements"
#: What installs a lock: the test command's entry, and the one script every locked install goes through.
SCRIPTS = [ROOT / "scripts" / "install-test-deps.sh", ROOT / "scripts" / "install-locked.sh"]
TARGETS = sorted(path.stem for path in (REQUIREMENTS / "wheel-targets").glob("*.in"))
#: Each lock and what it is made from: ``.in`` files, ``project`` (pyproject.toml's dependencies), ``test`` (its
#: test extra).
LOCKS = {
    "test.txt": ["project", "build.in", "test"],
    "jupyterhub.txt": ["project", "jupyterhub.in", "build.in"],
    "wheel-build.txt": ["wheel-build.in"],
    **{f"wheel-targets/{target}.txt": ["project", f"wheel-targets/{target}.in"] for target in TARGETS},
}


def locked(lock: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Each package's pinned versions in ``lock`` (one per marker split) and their hashes."""
    entries: dict[str, list[tuple[str, list[str]]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", (REQUIREMENTS / lock).read_text()):
        head = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", block)
        if head:
            hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
            entries.setdefault(canonicalize_name(head[1]), []).append((head[2], hashes))
    return entries


def requirements_in(source: str) -> list[str]:
    return [line.split("#")[0].strip() for line in (REQUIREMENTS / source).read_text().splitlines()]


def wanted(lock: str) -> list[Requirement]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lines = []
    for source in LOCKS[lock]:
        if source == "project":
            lines += pyproject["project"]["dependencies"]
        elif source == "test":
            lines += pyproject["project"]["optional-dependencies"]["test"]
        else:
            lines += requirements_in(source)
    return [Requirement(line) for line in lines if line]


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_pins_every_package_with_its_hashes(lock):
    entries = locked(lock)
    assert len(entries) > len(wanted(lock))  # the whole tree, not only the direct dependencies
    for name, versions in entries.items():
        for version, hashes in versions:
            assert hashes, f"{name}=={version} has no sha256 in {lock}"


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_covers_what_the_project_asks_for(lock):
    entries = locked(lock)
    for requirement in wanted(lock):
        versions = [version for version, _ in entries.get(canonicalize_name(requirement.name), [])]
        assert versions, f"{requirement} is not in {lock}: run scripts/lock-test-deps.sh"
        assert any(requirement.specifier.contains(v, prereleases=True) for v in versions), (
            f"{requirement}: {lock} pins {versions}; run scripts/lock-test-deps.sh"
        )


def test_the_wheel_is_built_with_what_pyproject_asks_for_and_no_jupyterlab():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    asked = [
        *pyproject["build-system"]["requires"],
        *pyproject["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]["dependencies"],
    ]
    listed = [line for line in requirements_in("wheel-build.in") if line]
    assert {str(Requirement(line)) for line in listed} == {str(Requirement(line)) for line in [*asked, "build"]}
    assert not {"jupyterlab", "notebook"} & set(locked("wheel-build.txt"))


def test_each_default_wheel_target_has_its_lock():
    script = (ROOT / "scripts" / "test-wheel.sh").read_text()
    defaults = re.search(r'targets="\$\{WHEEL_TARGETS:-([^}]*)\}"', script)[1].split()
    assert defaults and set(defaults) <= set(TARGETS)
    floor = {name: [version for version, _ in pins] for name, pins in locked("wheel-targets/lab-floor.txt").items()}
    assert floor["jupyterlab"] == ["4.0.0"] and floor["jupyter-server"] == ["2.4.0"]


@pytest.mark.parametrize("folder", [".", "ui-tests", "requirements/configurable-http-proxy"])
def test_no_npm_install_script_runs_without_a_decision(folder):
    """Every locked npm package with an install script is named in ``allowScripts`` (npm 11 runs only those allowed);
    the test command allows none: a dependency that brings one fails here until someone decides."""
    manifest = json.loads((ROOT / folder / "package.json").read_text())
    lock = json.loads((ROOT / folder / "package-lock.json").read_text())
    scripted = {
        path.rsplit("node_modules/", 1)[1]
        for path, package in lock["packages"].items()
        if package.get("hasInstallScript")
    }
    decided = manifest.get("allowScripts", {})
    assert scripted <= set(decided), (
        f"{folder}: install scripts with no allowScripts entry: {sorted(scripted - set(decided))}"
    )
    assert not any(decided.values()), f"{folder}: an install script is allowed"


@pytest.mark.parametrize("folder", ["requirements/configurable-http-proxy", "scripts/floor-types"])
def test_npm_locks_pin_what_their_package_json_asks_for_with_integrity_hashes(folder):
    """The hub's proxy and the floor type-check's JupyterLab 4.0.0 packages (``npm ci`` checks the hashes)."""
    dependencies = json.loads((ROOT / folder / "package.json").read_text())["dependencies"]
    packages = json.loads((ROOT / folder / "package-lock.json").read_text())["packages"]
    for name, version in dependencies.items():
        assert packages[f"node_modules/{name}"]["version"] == version, f"{name}: run scripts/lock-test-deps.sh"
    for path, package in packages.items():
        if path:  # "" is the folder's own package
            assert package.get("integrity", "").startswith("sha512-"), path


def install(script: Path, python: Path, lock: Path, index: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE="/dev/null", PIP_INDEX_URL=index.as_uri(), PIP_NO_INPUT="1", PYTHON=str(python))
    return subprocess.run(["bash", str(script), str(lock)], env=env, capture_output=True, text=True, timeout=300)


def installed(python: Path, name: str) -> bool:
    found = subprocess.run([str(python), "-m", "pip", "show", "-q", name], capture_output=True, check=False)
    return found.returncode == 0


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_install_takes_only_pinned_wheels_and_runs_nothing_downloaded(script, tmp_path_factory, tmp_path):
    folder = tmp_path_factory.mktemp("venv")  # an empty environment: the test's own stays as it is
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    venv = folder / "bin" / "python"
    index, marker = tmp_path / "index", tmp_path / "MARKER"
    good = write_wheel(index / "probe-wheel" / "probe_wheel-1.0-py3-none-any.whl", "probe-wheel", "1.0", b"x")
    publish(index, "probe-wheel")
    write_sdist(index / "probe-sdist" / "probe_sdist-1.0.tar.gz", "probe_sdist-1.0", marker)
    publish(index, "probe-sdist")

    # A wheel whose sha256 is not its pin: refused, nothing installed.
    wrong = tmp_path / "wrong.txt"
    wrong.write_text(f"probe-wheel==1.0 --hash=sha256:{'0' * 64}\n")
    result = install(script, venv, wrong, index)
    assert result.returncode != 0 and "DO NOT MATCH THE HASHES" in result.stderr
    assert not installed(venv, "probe-wheel")

    # A package published only as an sdist, pinned by its true sha256: refused before its build runs.
    sdist = tmp_path / "sdist.txt"
    digest = hashlib.sha256((index / "probe-sdist" / "probe_sdist-1.0.tar.gz").read_bytes()).hexdigest()
    sdist.write_text(f"probe-sdist==1.0 --hash=sha256:{digest}\n")
    result = install(script, venv, sdist, index)
    assert result.returncode != 0
    assert not marker.exists(), "a downloaded setup.py or build backend ran"
    assert not installed(venv, "probe-sdist")

    # The pinned wheel: installed (the editable install after it is not what this looks at).
    right = tmp_path / "right.txt"
    right.write_text(f"probe-wheel==1.0 --hash=sha256:{good}\n")
    install(script, venv, right, index)
    assert installed(venv, "probe-wheel")
