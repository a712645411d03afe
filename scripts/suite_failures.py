"""The failing tests of one suite's log, each with the first lines of its error.

scripts/test-all.sh pipes a failed suite's log through this for the summary it prints last: CI shows only the
end of the output, so the summary must say what failed and how (the assertion, expected and received), not just
which test. Reads the log on standard input; prints at most ``MAX_LINES`` lines.

- Playwright (list reporter): each numbered failure's header (``1) [project]``, the file and the title) and the
  lines of its error up to the code frame.
- Jest: each failure block's message up to the code frame; its lines of failed tests only when it printed no
  block.
- pytest: the ``FAILED``/``ERROR`` lines of the short summary (``-r``), which carry the message.

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
# Where an error's message ends: a code frame (`  105 |`, `> 107 |`), a stack line, or a header.
MESSAGE_END = re.compile(
    "|".join([r"^\s*(>\s*)?\d+ \|", r"^\s+at ", PLAYWRIGHT.pattern, r"^\s+\u25cf ", r"^\s*(Retry|attachment) #?\d"])
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


def summarise(log: str) -> list[str]:
    lines = [ANSI.sub("", line.rstrip("\n")) for line in log.splitlines()]
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
            out.extend(_message(lines, i))
        elif PYTEST.search(line) and header not in seen:
            seen.add(header)
            out.append(header)
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
