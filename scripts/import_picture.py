"""Draw the imports of some of a checkout's TypeScript folders as a picture.

A box per file (its width its lines, within its floor), a floor per level of
imports (a file stands above every file of the picture it imports; files that
import each other share a floor), an arrow per import: solid for a value
import, dashed for a type-only one, dotted for ``import()``. With ``--start
ENTRY``, the files JupyterLab loads at start from ENTRY (value imports only,
followed through the whole tree) are dark, the others light: what the
extension's start-up pays for.

    python scripts/import_picture.py . src/agent/session --out session.png
    git archive REV | tar -x -C /tmp/rev   # an earlier commit, to compare
    python scripts/import_picture.py /tmp/rev src/jupyter --start src/index.ts --out before.png
    python scripts/import_picture.py . src/components --by-folder --out folders.png

With ``--by-folder``, a box stands for each sub-folder of the drawn folders
(its width the lines of all its files), the files directly in a drawn folder
keeping a box each: the layers of a folder grouped by feature.

Needs matplotlib (in the test dependencies).
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, Rectangle

_FROM = re.compile(r"^(import|export)\s+([\s\S]*?)\s+from\s+['\"]([^'\"]+)['\"]", re.M)
_BARE = re.compile(r"^import\s+['\"]([^'\"]+)['\"]", re.M)
_DYNAMIC = re.compile(r"import\(\s*['\"]([^'\"]+)['\"]\s*\)")


@dataclass
class Module:
    """One file and what it imports (resolved paths, relative to the root)."""

    path: str
    lines: int
    values: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    dynamic: set[str] = field(default_factory=set)


def _type_only(kind: str, clause: str) -> bool:
    if kind == "import" and clause.startswith("type "):
        return True
    if kind == "export" and clause.startswith("type "):
        return True
    braces = re.search(r"\{([\s\S]*)\}", clause)
    head = clause.split("{")[0].strip().rstrip(",").strip()
    if braces and not head:
        names = [n.strip() for n in braces.group(1).split(",") if n.strip()]
        return bool(names) and all(n.startswith("type ") for n in names)
    return False


def _resolve(root: Path, importer: str, spec: str) -> str | None:
    if not spec.startswith("."):
        return None
    base = (root / importer).parent / spec
    for candidate in (Path(f"{base}.ts"), Path(f"{base}.tsx"), base / "index.ts"):
        if candidate.is_file():
            return candidate.resolve().relative_to(root.resolve()).as_posix()
    return None


def read(root: Path, path: str) -> Module:
    """The module at `path` (relative to `root`)."""
    text = (root / path).read_text(encoding="utf-8")
    module = Module(path, text.count("\n") + 1)
    for match in _FROM.finditer(text):
        target = _resolve(root, path, match.group(3))
        if target:
            kind, clause = match.group(1), match.group(2).strip()
            (module.types if _type_only(kind, clause) else module.values).add(target)
    for match in _BARE.finditer(text):
        target = _resolve(root, path, match.group(1))
        if target:
            module.values.add(target)
    for match in _DYNAMIC.finditer(text):
        target = _resolve(root, path, match.group(1))
        if target:
            module.dynamic.add(target)
    return module


def loaded_at_start(root: Path, entry: str) -> set[str]:
    """The files `entry` loads through value imports, across the whole tree."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        path = todo.pop()
        if path in seen or not (root / path).is_file():
            continue
        seen.add(path)
        todo.extend(read(root, path).values)
    return seen


def by_folder(modules: dict[str, Module], folders: list[str]) -> tuple[dict[str, Module], dict[str, str]]:
    """The modules merged per sub-folder of `folders` (``chat/``), and each file's group."""
    group: dict[str, str] = {}
    for p in modules:
        top = next((f.rstrip("/") for f in folders if p.startswith(f.rstrip("/") + "/")), "")
        rest = p[len(top) + 1 :] if top else p
        group[p] = f"{top}/{rest.split('/')[0]}/" if "/" in rest else p
    merged: dict[str, Module] = {}
    for p, m in modules.items():
        g = merged.setdefault(group[p], Module(group[p], 0))
        g.lines += m.lines
        g.values |= {group.get(t, t) for t in m.values}
        g.types |= {group.get(t, t) for t in m.types}
        g.dynamic |= {group.get(t, t) for t in m.dynamic}
    for g in merged.values():
        g.types -= g.values
        g.dynamic -= g.values | g.types
        g.values.discard(g.path)
        g.types.discard(g.path)
        g.dynamic.discard(g.path)
    return merged, group


def floors(modules: dict[str, Module]) -> dict[str, int]:
    """Each file's floor: 0 for those importing no file of the picture."""
    edges = {p: (m.values | m.types | m.dynamic) & modules.keys() for p, m in modules.items()}
    # Files that import each other (strongly connected) share a floor.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    group: dict[str, int] = {}
    counter = [0]

    def connect(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            while True:
                other = stack.pop()
                group[other] = index[node]
                if other == node:
                    break

    for node in sorted(edges):
        if node not in index:
            connect(node)
    level: dict[int, int] = {}

    def height(g: int) -> int:
        if g not in level:
            level[g] = 0
            below = {group[t] for p in edges if group[p] == g for t in edges[p]} - {g}
            level[g] = max((height(b) + 1 for b in below), default=0)
        return level[g]

    return {p: height(group[p]) for p in modules}


def draw(root: Path, folders: list[str], out: Path, title: str, entry: str | None, grouped: bool = False) -> None:
    """Draw the folders' files (or, grouped, their sub-folders) and imports into `out`."""
    paths = sorted(
        p.relative_to(root).as_posix()
        for folder in folders
        for p in (root / folder).rglob("*.ts*")
        if p.suffix in (".ts", ".tsx") and "__tests__" not in p.parts and not p.name.endswith(".d.ts")
    )
    modules = {p: read(root, p) for p in paths}
    start = loaded_at_start(root, entry) if entry else set()
    files = len(modules)
    if grouped:
        modules, group = by_folder(modules, folders)
        # A folder is dark when JupyterLab's start loads any of its files.
        start = {group[p] for p in start if p in group}
        paths = sorted(modules)
    floor = floors(modules)
    common = os.path.commonpath([str(Path(f)) for f in folders]).replace(os.sep, "/")
    width, row, gap, space = 100.0, 10.0, 7.0, 0.6
    top = max(floor.values(), default=0)
    # One scale for every floor: a box's width is its lines, the widest floor fills the width.
    size = {p: max(modules[p].lines, 25) for p in paths}
    rows = [[p for p in paths if floor[p] == level] for level in range(top + 1)]
    scale = min((width - space * (len(r) - 1)) / sum(size[p] for p in r) for r in rows if r)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    fig, ax = plt.subplots(figsize=(16, 2.0 + 1.45 * (top + 1)))
    for level in range(top, -1, -1):
        here = sorted(rows[level], key=lambda p: -modules[p].lines)
        used = sum(size[p] * scale for p in here) + space * (len(here) - 1)
        x = (width - used) / 2
        y = (top - level) * (row + gap)
        for p in here:
            w = size[p] * scale
            boxes[p] = (x, y, w, row)
            dark = p in start
            ax.add_patch(
                Rectangle(
                    (x, -y - row),
                    w,
                    row,
                    facecolor="#34618e" if dark else "#dce6f0",
                    edgecolor="#1d3a56",
                    linewidth=0.6,
                )
            )
            name = p[len(common) + 1 :] if common and p.startswith(common + "/") else p
            label = f"{name}\n{modules[p].lines}"
            narrow = w <= 6
            ax.text(
                x + w / 2,
                -y - row / 2,
                f"{Path(name).name} {modules[p].lines}" if narrow else label,
                ha="center",
                va="center",
                fontsize=4.4 if narrow else 5.6 if w > 12 else 4.8,
                color="white" if dark else "#1d3a56",
                rotation=90 if narrow else 0,
            )
            x += w + space
    for p, module in modules.items():
        for targets, style in ((module.values, "-"), (module.types, "--"), (module.dynamic, ":")):
            for t in targets & boxes.keys():
                if t == p:
                    continue
                x0, y0, w0, h0 = boxes[p]
                x1, y1, w1, _ = boxes[t]
                ax.add_patch(
                    FancyArrowPatch(
                        (x0 + w0 / 2, -y0 - h0),
                        (x1 + w1 / 2, -y1),
                        arrowstyle="-|>",
                        mutation_scale=5,
                        linestyle=style,
                        linewidth=0.45,
                        color="#8a4b2a" if y1 <= y0 else "#6b7785",
                        alpha=0.8,
                        connectionstyle="arc3,rad=0.04",
                    )
                )
    lines = sum(m.lines for m in modules.values())
    legend = (
        (
            f"{files} files in {len(modules)} folders, {lines} lines; a box per folder (width: its files' lines), "
            "a folder above every folder it imports;"
            if grouped
            else f"{len(modules)} files, {lines} lines; a box per file (width: its lines), "
            "a file above every file it imports;"
        )
        + " arrows: solid value import, dashed type-only, dotted import(); "
        "brown: an arrow up or across (files that import each other)"
    )
    if entry:
        what = "folders with a file" if grouped else "files"
        dark = sum(p in start for p in paths)
        legend += f"; dark: loaded at JupyterLab's start from {entry} ({dark} of these {what})"
    ax.set_title(title, loc="left", fontsize=11)
    ax.text(0, -(top + 1) * (row + gap) + gap / 2, legend, fontsize=6.5, va="top", color="#333")
    ax.set_xlim(-1, width + 1)
    ax.set_ylim(-(top + 1) * (row + gap) - 2, 2)
    ax.axis("off")
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the checkout (a work tree, or an unpacked git archive)")
    parser.add_argument("folders", nargs="+", help="folders to draw, relative to the root")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--title", default="", help="the picture's title (default: the folders)")
    parser.add_argument("--start", default=None, help="the extension's entry (e.g. src/index.ts)")
    parser.add_argument("--by-folder", action="store_true", help="a box per sub-folder instead of per file")
    args = parser.parse_args()
    draw(args.root, args.folders, args.out, args.title or " + ".join(args.folders), args.start, args.by_folder)


if __name__ == "__main__":
    main()
