"""A pytest plugin that prints one summary line per fault/abuse category.

Mark a test (or a module, with ``pytestmark``) with ``@pytest.mark.fault_category("proxy security")``;
a test that finds a leak (a key in a response, a request forwarded that should
have been refused) or loses a cell reports it through the ``findings`` fixture
*before* asserting, so a failing run still counts it. A test that tries many
cases on one server (starting a server per case would be slow) counts each one
with ``with findings.case(name):``. At the end of the run:

  [fault-summary] proxy security: 27 cases tried, 27 passed, cells lost 0 (must be 0), leaks found 0 (must be 0)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest


@dataclass
class Findings:
    """What one test found; the plugin adds it to its category."""

    leaks: int = 0
    cells_lost: int = 0
    notes: list[str] = field(default_factory=list)
    cases_tried: int = 0
    cases_passed: int = 0
    cases_failed: list[str] = field(default_factory=list)

    @contextmanager
    def case(self, name: str) -> Iterator[None]:
        """Count one case of this test: passed when its block raises nothing."""
        self.cases_tried += 1
        try:
            yield
        except BaseException:
            self.cases_failed.append(name)
            raise
        self.cases_passed += 1

    def leak_if(self, condition: bool, what: str) -> None:
        """Count a leak when ``condition`` holds (the test asserts afterwards)."""
        if condition:
            self.leaks += 1
            self.notes.append(what)


@dataclass
class Category:
    tried: int = 0
    passed: int = 0
    leaks: int = 0
    cells_lost: int = 0
    failed: list[str] = field(default_factory=list)


_CATEGORIES: dict[str, Category] = {}
_FINDINGS = pytest.StashKey[Findings]()


def _category(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("fault_category")
    return str(marker.args[0]) if marker and marker.args else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fault_category(name): count the test in the fault suite's summary line")


@pytest.fixture
def findings(request: pytest.FixtureRequest) -> Findings:
    """Leaks and lost cells found by this test."""
    found = Findings()
    request.node.stash[_FINDINGS] = found
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    name = _category(item)
    if name is None:
        return
    failed_setup = report.when == "setup" and report.failed
    if report.when != "call" and not failed_setup:
        return
    category = _CATEGORIES.setdefault(name, Category())
    found = item.stash.get(_FINDINGS, None)
    if found is not None and found.cases_tried:
        category.tried += found.cases_tried
        category.passed += found.cases_passed if report.passed else min(found.cases_passed, found.cases_tried - 1)
        category.failed.extend(f"{item.name}: {case}" for case in found.cases_failed)
        if report.failed and not found.cases_failed:
            category.failed.append(item.name)
    else:
        category.tried += 1
        if report.passed:
            category.passed += 1
        else:
            category.failed.append(item.name)
    if found is not None:
        category.leaks += found.leaks
        category.cells_lost += found.cells_lost


def summary_lines() -> list[str]:
    """One line per category, as printed at the end of the run."""
    lines = []
    for name, c in sorted(_CATEGORIES.items()):
        failed = f"; failed: {', '.join(c.failed)}" if c.failed else ""
        lines.append(
            f"[fault-summary] {name}: {c.tried} cases tried, {c.passed} passed, "
            f"cells lost {c.cells_lost} (must be 0), leaks found {c.leaks} (must be 0){failed}"
        )
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    lines = summary_lines()
    if lines:
        terminalreporter.section("fault summary")
        for line in lines:
            terminalreporter.write_line(line)
