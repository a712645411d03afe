"""The shared path table (tests/path_cases.json): builds its tree of files and links."""

from __future__ import annotations

import json
import os
from pathlib import Path

TABLE = json.loads((Path(__file__).parent / "path_cases.json").read_text())


def build(base: Path) -> tuple[Path, Path]:
    """Create ``base/home`` (the root, a fake $HOME) and ``base/outside`` as the table says."""
    root, outside = base / "home", base / "outside"
    for folder, files in ((root, TABLE["files"]), (outside, TABLE["outside_files"])):
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for name, target in TABLE["links"].items():
        link = root / name
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.replace("{outside}", str(outside)), link)
    return root, outside
