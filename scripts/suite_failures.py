"""The failing tests of one suite's log, each with the first lines of its error.

scripts/test-all.sh pipes a failed suite's log through this for the summary it prints last: CI shows only the
end of the output, so the summary must say what failed and how (the assertion, expected and received), not just
which test. Reads the log on standard input; prints at most ``MAX_LINES`` lines.

- Playwright (list reporter): each numbered failure's header (``1) [project]``, the file and the title) and the
  lines of its error up to the code frame; then each retry's error, or that it was the same.
- Jest: each failure block's message up to the code frame; its lines of failed tests only when it printed no
  block.
- pytest: the ``FAILED``/``ERROR`` lines of the short summary, each with the ``E`` lines of its failure's
  section (the summary's own message is cut to the terminal's width).

With none of these (a linter, a script), the log's last lines.
"""

from __future__ import annotations

import re
import sys

#: Lines kept from one failure's error: the message, expected and received.
ERROR_LINES = 8
#: Lines printed in all, whatever the number of failures.
MAX_LINES = 80
#: Lines of the log's end when no failing test is named.
TAIL_LINES = 8

# The reporters' marks: \u203a between a test's file and title, \u25cf before a Jest failure, \u2715 a failed test.
PLAYWRIGHT = re.compile("^\\s+\\d+\\) \\S.* \u203a ")
JEST_MARK = re.compile("^\\s+\u2715 ")
JEST_BLOCK = re.compile("^\\s+\u25cf (?!Console\\b)")
PYTEST = re.compile(r"^(FAILED|ERROR) ")
# pytest's section of one failure (``____ test_name[param] ____``) and the lines of its error (``E   assert …``).
PYTEST_SECTION = re.compile(r"^_+ (\S+) _+$")
PYTEST_ERROR = re.compile(r"^E\s")
# A retry's part of a Playwright failure (``Retry #1 ───``), and the closing list that ends the last failure.
RETRY = re.compile(r"^\s*Retry #\d+")
PLAYWRIGHT_END = re.compile(r"^\s+\d+ (failed|flaky|passed|skipped|interrupted|did not run)\b")
# Where an error's message ends: a code frame (`  105 |`, `> 107 |`), a stack line, a header, Playwright's end.
MESSAGE_END = re.compile(
    "|".join(
        [
            r"^\s*(>\s*)?\d+ \|",
            r"^\s+at ",
            PLAYWRIGHT.pattern,
            r"^\s+\u25cf ",
            r"^\s*(Retry|attachment) #?\d",
            PLAYWRIGHT_END.pattern,
        ]
    )
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _message(lines: list[str], start: int) -> list[str]:
    """The non-empty lines after a failure's header, up to its code frame or stack."""
    out: list[str] = []
    for line in lines[start + 1 :]:
        if MESSAGE_END.search(line):
            break
        if line.strip():
            out.append("  " + line.strip())
        if len(out) == ERROR_LINES:
            break
    return out


def _retries(lines: list[str], start: int, first: list[str]) -> list[str]:
    """Each retry of the Playwright failure whose header is at ``start``: its error when it differs from the
    first try's (a retry that failed elsewhere is half of what happened), else that it was the same."""
    out: list[str] = []
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if PLAYWRIGHT.search(line) or PLAYWRIGHT_END.search(line):
            break
        if RETRY.search(line):
            label = line.strip().rstrip("─ ")
            message = _message(lines, i)
            out.append(f"  {label}: the same error" if message == first else f"  {label}:")
            if message != first:
                out.extend("  " + part for part in message)
    return out


def _pytest_errors(lines: list[str]) -> dict[str, list[str]]:
    """Each pytest failure section's ``E`` lines, by the section's name (the test's, as in its node id)."""
    errors: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        section = PYTEST_SECTION.match(line)
        if section:
            current = errors.setdefault(section.group(1), [])
        elif current is not None and PYTEST_ERROR.match(line) and len(current) < ERROR_LINES and line[1:].strip():
            current.append("  " + line[1:].strip())
    return errors


def _pytest_name(summary_line: str) -> str:
    """The section name of ``FAILED tests/a.py::TestX::test_y[1] - message``: ``TestX.test_y[1]``."""
    node = summary_line.split(" ", 1)[1].split(" - ", 1)[0]
    return node.split("::", 1)[-1].replace("::", ".")


def summarise(log: str) -> list[str]:
    lines = [ANSI.sub("", line.rstrip("\n")) for line in log.splitlines()]
    # (A summary line's own message is cut to the terminal's width: a long test id leaves none.)
    pytest_errors = _pytest_errors(lines)
    out: list[str] = []
    marks: list[str] = []
    seen: set[str] = set()
    for i, line in enumerate(lines):
        # (Playwright pads its headers with a rule of box-drawing dashes.)
        header = line.strip().rstrip("─ ")
        if PLAYWRIGHT.search(line) or JEST_BLOCK.search(line):
            # Playwright repeats a failure's header with its retries' output; Jest repeats none.
            if header in seen:
                continue
            seen.add(header)
            out.append(header)
            message = _message(lines, i)
            out.extend(message)
            if PLAYWRIGHT.search(line):
                out.extend(_retries(lines, i, message))
        elif PYTEST.search(line) and header not in seen:
            seen.add(header)
            out.append(header)
            out.extend(pytest_errors.get(_pytest_name(header), []))
        elif JEST_MARK.search(line) and header not in seen:
            seen.add(header)
            marks.append(header)
    # Jest's ✕ lines name what its ● blocks tell in full: listed only when there are no blocks (a cut-off log).
    if not any(JEST_BLOCK.search("  " + line) for line in out):
        out = marks + out
    if not out:
        out = [line.strip() for line in lines[-TAIL_LINES:]]
    if len(out) > MAX_LINES:
        out = [*out[:MAX_LINES], f"(… {len(out) - MAX_LINES} more lines: the suite's own output above)"]
    return out


def main() -> None:
    for line in summarise(sys.stdin.read()):
        print("  " + line)


if __name__ == "__main__":
    main()
