"""What the code cells of a generated notebook are (eval/src/sets/generate.ts).

Reads ``{"cells": [{"type": "code"|"markdown"|"raw", "source": "..."}], "files": ["sales.csv", ...]}``
on stdin and prints one JSON object:

  * ``prose``: code cells that are prose, by index among all cells: ``{"index", "why"}``,
    where ``why`` is ``comments only`` (text and no code) or the ``SyntaxError``
    Python reports (a title, a plan or a printed table written into a code cell);
  * ``reads``: for each named file, whether a code cell names it in a string
    (``pd.read_csv('sales.csv')``, ``open("data/sales.csv")``);
  * ``invented``: why the notebook looks like it made its own data rather than
    read the files: a DataFrame or Series built from a literal list of three or
    more numbers, random data (``np.random``, ``default_rng``, ``random.``), or
    CSV text read from a string (``StringIO``).

IPython syntax (``%magic``, ``!shell``, ``%%cell magic``) is not Python: such
lines are left out before compiling, as IPython would transform them.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from typing import Any

MAGIC = re.compile(r"^\s*[%!]")
FRAME_MAKERS = {"DataFrame", "Series", "from_dict", "from_records"}
RANDOM = re.compile(
    r"\b(np\.random\.|numpy\.random\.|default_rng\(|random\.(rand|randint|random|uniform|gauss|choice)\()"
)


def python_of(source: str) -> str | None:
    """The cell as plain Python; None for a cell magic (not Python at all)."""
    if source.lstrip().startswith("%%"):
        return None
    return "\n".join("" if MAGIC.match(line) else line for line in source.splitlines())


def is_comments_only(source: str) -> bool:
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    return bool(lines) and all(line.startswith("#") for line in lines)


def is_number(node: ast.AST) -> bool:
    """A numeric literal: 12, 3.5, -7."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool)


def numbers_in(node: ast.AST) -> int:
    """The most numeric literals in one list, tuple or set literal under ``node``."""
    best = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.List | ast.Tuple | ast.Set):
            best = max(best, sum(1 for item in sub.elts if is_number(item)))
    return best


def call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def invented_in(tree: ast.AST, source: str) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = call_name(node)
            if name in FRAME_MAKERS and any(numbers_in(arg) >= 3 for arg in [*node.args, *node.keywords]):
                found.append(f"a {name} built from literal numbers")
            if name == "StringIO" and any(
                isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "\n" in arg.value for arg in node.args
            ):
                found.append("CSV text read from a string")
    if RANDOM.search(source):
        found.append("random data")
    return found


def analyse(cells: list[dict[str, Any]], files: list[str]) -> dict[str, Any]:
    prose = []
    invented: list[str] = []
    reads = {name: False for name in files}
    for index, cell in enumerate(cells):
        if cell.get("type") != "code":
            continue
        source = cell.get("source") or ""
        if not source.strip():
            continue
        if is_comments_only(source):
            prose.append({"index": index, "why": "comments only"})
            continue
        python = python_of(source)
        if python is None:
            continue
        try:
            tree = ast.parse(python)
        except SyntaxError as error:
            prose.append({"index": index, "why": f"{type(error).__name__}: {error.msg} (line {error.lineno})"})
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for name in files:
                    base = name.rsplit("/", 1)[-1]
                    if node.value == base or node.value.endswith("/" + base):
                        reads[name] = True
        for why in invented_in(tree, python):
            invented.append(f"cell {index + 1}: {why}")
    return {"prose": prose, "reads": reads, "invented": invented}


def main() -> None:
    request = json.load(sys.stdin)
    json.dump(analyse(request["cells"], request["files"]), sys.stdout)


if __name__ == "__main__":
    main()
