"""scripts/suite_failures.py: the summary that ends the test command says which tests failed and how.

CI shows only the end of the test command's output. A stop's CI once printed only the title of a failing
Playwright test; the assertion, expected and received were thousands of lines above. The logs below are
reporters' output as they print it (Playwright 1.x list, Jest 30, pytest -r).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "suite_failures.py"

PLAYWRIGHT_LOG = """
Running 2 tests using 1 worker

  \u2718  1 [local-wasm] \u203a local-model/qwen-completion.spec.ts:27:1 \u203a inline completion (2.1m)
  \u2713  2 [local-wasm] \u203a local-model/local-model.spec.ts:40:1 \u203a answers (30s)


  1) [local-wasm] \u203a local-model/qwen-completion.spec.ts:27:1 \u203a inline completion \u2500\u2500\u2500

    Error: expect(received).toContain(expected) // indexOf

    Expected substring: "numbers"
    Received string:    "x for x in range(10))"

      105 |   });
    > 106 |   expect(suggested).toContain('numbers');
          |                     ^
        at /repo/ui-tests/local-model/qwen-completion.spec.ts:106:21

    Error Context: test-results/qwen-completion/error-context.md

    Retry #1 \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500

    Error: expect(received).toContain(expected) // indexOf

    Expected substring: "numbers"
    Received string:    "x for x in range(10))"

      105 |   });

  1 failed
    [local-wasm] \u203a local-model/qwen-completion.spec.ts:27:1 \u203a inline completion \u2500\u2500\u2500\u2500\u2500
  1 passed (4.0m)
"""

JEST_LOG = """
FAIL src/__tests__/a.test.ts
  \u2715 adds (13 ms)
  \u2713 ok (1 ms)

  \u25cf adds

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 2

    > 1 | test('adds', () => { expect(1 + 1).toBe(3); });
        |                                    ^

      at Object.toBe (a.test.js:1:36)

FAIL src/__tests__/b.test.ts
  \u25cf loop \u203a stops at the step limit

    thrown: "Exceeded timeout of 5000 ms for a test."

      at Object.<anonymous> (b.test.ts:3:1)

Tests:       2 failed, 1 passed, 3 total
"""

PYTEST_LOG = """
tests/test_a.py ..F.
=================================== FAILURES ===================================
_ test_bound[evilweb] _

    def test_bound():
>       assert elapsed < 12, elapsed
E       AssertionError: 12.3
E       assert 12.3 < 12

tests/test_a.py:9: AssertionError
_____________________________ TestServer.test_up ______________________________

E   OSError: [Errno 98] Address already in use
=========================== short test summary info ============================
FAILED tests/test_a.py::test_bound[evilweb]
ERROR tests/test_b.py::TestServer::test_up - OSError: [Errno 98] Address already in use
FAILED tests/test_a.py::test_bound[evilweb]
2 failed, 1 error, 40 passed in 3.1s
"""


def summary(log: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], input=log, capture_output=True, text=True, check=True, encoding="utf-8"
    )
    return done.stdout.splitlines()


def test_playwright_failure_with_its_error_once():
    out = summary(PLAYWRIGHT_LOG)
    assert out[0] == "  1) [local-wasm] \u203a local-model/qwen-completion.spec.ts:27:1 \u203a inline completion"
    assert "    Error: expect(received).toContain(expected) // indexOf" in out
    assert '    Received string:    "x for x in range(10))"' in out
    # Up to the code frame; a retry that failed the same way is said in a line; the closing list adds nothing.
    assert not any("106 |" in line or "Error Context" in line for line in out)
    assert out[4:] == ["    Retry #1: the same error"]


# CI's run on 2026-12-06: the first try failed at the first cell, the retry somewhere else (its own error).
PLAYWRIGHT_RETRY_ELSEWHERE = """
  1) [local-wasm] \u203a local-model/qwen-completion.spec.ts:54:1 \u203a inline completion \u2500\u2500\u2500

    Error: expect(locator).toHaveText(expected) failed

    Expected: "[1]:"
    Received: "[ ]:"

      121 |   await expect(cells.nth(0).locator('.jp-InputPrompt'))

    Retry #1 \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500

    Error: No suggestion shown; the provider's last outcome: {"outcome":"busy"}.

      140 |     .catch(async error => {

  2) [local-wasm] \u203a local-model/qwen-task.spec.ts:58:3 \u203a real model \u2500\u2500\u2500

    Error: Timed out 60000ms waiting for expect(locator).toBeVisible()

  2 failed
    [local-wasm] \u203a local-model/qwen-completion.spec.ts:54:1 \u203a inline completion \u2500\u2500\u2500\u2500\u2500
"""


def test_playwright_retry_that_failed_elsewhere_shows_its_error():
    out = summary(PLAYWRIGHT_RETRY_ELSEWHERE)
    assert out == [
        "  1) [local-wasm] \u203a local-model/qwen-completion.spec.ts:54:1 \u203a inline completion",
        "    Error: expect(locator).toHaveText(expected) failed",
        '    Expected: "[1]:"',
        '    Received: "[ ]:"',
        "    Retry #1:",
        '      Error: No suggestion shown; the provider\'s last outcome: {"outcome":"busy"}.',
        "  2) [local-wasm] \u203a local-model/qwen-task.spec.ts:58:3 \u203a real model",
        "    Error: Timed out 60000ms waiting for expect(locator).toBeVisible()",
    ]


def test_jest_blocks_with_their_messages():
    out = summary(JEST_LOG)
    assert out == [
        "  \u25cf adds",
        "    expect(received).toBe(expected) // Object.is equality",
        "    Expected: 3",
        "    Received: 2",
        "  \u25cf loop \u203a stops at the step limit",
        '    thrown: "Exceeded timeout of 5000 ms for a test."',
    ]


def test_jest_marks_when_no_block_was_printed():
    out = summary("FAIL a.test.ts\n  \u2715 adds (13 ms)\n  \u2713 ok\n")
    assert out == ["  \u2715 adds (13 ms)"]


def test_pytest_summary_lines_once_with_their_errors():
    # The summary line of a long test id carries no message (pytest cuts it to the terminal's width): the error
    # comes from the failure's own section.
    out = summary(PYTEST_LOG)
    assert out == [
        "  FAILED tests/test_a.py::test_bound[evilweb]",
        "    AssertionError: 12.3",
        "    assert 12.3 < 12",
        "  ERROR tests/test_b.py::TestServer::test_up - OSError: [Errno 98] Address already in use",
        "    OSError: [Errno 98] Address already in use",
    ]


def test_no_named_test_gives_the_last_lines():
    log = "\n".join(f"line {n}" for n in range(20)) + "\n"
    assert summary(log) == [f"  line {n}" for n in range(12, 20)]


def test_many_failures_are_capped():
    log = "".join(f"FAILED tests/test_a.py::test_{n} - assert False\n" for n in range(200))
    out = summary(log)
    assert len(out) == 81
    assert out[-1].startswith("  (\u2026 120 more lines")


def test_colours_are_dropped():
    out = summary("\x1b[31mFAILED tests/test_a.py::test_x - assert 1 == 2\x1b[0m\n")
    assert out == ["  FAILED tests/test_a.py::test_x - assert 1 == 2"]
