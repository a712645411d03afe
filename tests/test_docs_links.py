"""The documentation's links, as GitHub resolves them, and README.md's length.

README.md, the other Markdown files at the root, bench/README.md, eval/README.md and every page in docs/: each
relative link and image must name a file of the repository, and a ``#anchor`` a heading of that file as GitHub
makes its anchors (a page that includes another file with ``--8<-- "path"`` has that file's headings too). Links
in code are not links. The site's own build (``mkdocs build --strict``, scripts/test-all.sh) checks the same
links as the site resolves them; this checks them where most people read them, on GitHub and in a checkout.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The README keeps what a newcomer needs first; the rest is in docs/.
README_MAX_LINES = 300

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title"), ![alt](target), [text](<target with spaces>)
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_TARGET = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<[a-z][^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
INCLUDE = re.compile(r"^--8<--\s+[\"']([^\"':]+)(?::[^\"']*)?[\"']\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents() -> list[Path]:
    """The Markdown files whose links are checked."""
    found = sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").rglob("*.md"))
    found += [p for p in (ROOT / "bench" / "README.md", ROOT / "eval" / "README.md") if p.exists()]
    return found


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fence = ""
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append((number, line))
    return lines


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link and image of ``path``, outside code."""
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        line = CODE_SPAN.sub("", line)
        for pattern in (INLINE, REFERENCE, HTML_TARGET):
            for match in pattern.finditer(line):
                target = match.group(1)
                if target.startswith("<") and target.endswith(">"):
                    target = target[1:-1]
                found.append((number, target))
    return found


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text, lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<![\w])_+|_+(?![\w])", "", text)  # _emphasis_, not snake_case
    text = text.strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path, seen: set[Path] | None = None) -> set[str]:
    """The anchors of a Markdown file: its headings' (numbered -1, -2… when repeated) and HTML ids."""
    seen = seen or set()
    seen.add(path)
    result: set[str] = set()
    counts: dict[str, int] = {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(2))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            result.add(slug if n == 0 else f"{slug}-{n}")
        result.update(HTML_ANCHOR.findall(line))
        included = INCLUDE.match(line)
        if included:
            source = ROOT / included.group(1)
            if source.exists() and source not in seen:
                result |= anchors(source, seen)
    return result


def broken_links(path: Path) -> list[str]:
    """What is wrong with each relative link of ``path``, as 'file:line: target: why'."""
    problems = []
    here = path.relative_to(ROOT)
    for number, target in links(path):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # http(s), mailto…: not fetched here (no network)
        where, _, fragment = target.partition("#")
        where = unquote(where.split("?")[0])
        if where.startswith("/"):
            problems.append(f"{here}:{number}: {target}: an absolute path (GitHub reads it from the site's root)")
            continue
        resolved = (path.parent / where).resolve() if where else path
        if not resolved.is_relative_to(ROOT):
            problems.append(f"{here}:{number}: {target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{here}:{number}: {target}: no such file")
        elif fragment and resolved.suffix == ".md":
            if unquote(fragment) not in anchors(resolved):
                problems.append(
                    f"{here}:{number}: {target}: no heading of {resolved.relative_to(ROOT)} makes #{fragment}"
                )
    return problems


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    problems = broken_links(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_readme_links_into_the_site() -> None:
    """The README is the way in: it links to the site's pages, and they exist."""
    targets = {target.partition("#")[0] for _, target in links(ROOT / "README.md")}
    assert "docs/getting-started.md" in targets
    assert "docs/security.md" in targets


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines, more than {README_MAX_LINES}: move the detail to a page in docs/"
    )


def test_readme_starts_with_the_two_commands() -> None:
    """Install-and-start, then the one test command (CI's .ci/run runs it), before anything else."""
    head = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:6]
    assert head[2] == "```bash"
    assert head[3].startswith('pip install ".[lab]" && jupyter lab ')
    assert head[4].startswith("./scripts/test-all.sh ")


def test_github_slugs() -> None:
    assert github_slug("Libraries we rely on, and why") == "libraries-we-rely-on-and-why"
    assert github_slug("Project rules (AGENTS.md)") == "project-rules-agentsmd"
    assert github_slug("Fix this cell — `notebook-agent fix`") == "fix-this-cell--notebook-agent-fix"
    assert github_slug("The `max_chats` setting, _in short_") == "the-max_chats-setting-in-short"
