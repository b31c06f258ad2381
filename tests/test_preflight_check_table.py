"""`pi05-wizard check --verbose` table at 80 and 120 columns: the seconds column is never clipped."""

from __future__ import annotations

import pytest
from rich.console import Console

from checks.context import CheckContext, Requirements
from checks.registry import run_checks
from checks.result import CheckResult, Level, Message, Status
from tests.preflight_fixtures import FakeHost
from wizard.cli.check_cmd import render


def _hard_results() -> list[CheckResult]:
    """Long unbreakable summaries, paths and details next to two-digit and three-digit durations."""
    return [
        CheckResult(id="visible-devices", title="t", status=Status.WARN, summary="x" * 150, duration_s=12.3456,
                    messages=[Message(level=Level.WARN, text="/usr/local/Ascend/" * 12, remedy="shm-too-small")],
                    details={"chips": ["910B3"] * 60}),
        CheckResult(id="network", title="t", status=Status.ERROR, summary="no answer within 10 s", duration_s=123.4),
        CheckResult(id="arch", title="t", status=Status.OK, summary="aarch64 (the target)", duration_s=0.004),
    ]


@pytest.mark.parametrize("width", [80, 120])
def test_verbose_durations_are_whole_and_lines_fit(width):
    results = _hard_results()
    results += run_checks(CheckContext(host=FakeHost(), requirements=Requirements(), offline=True),
                          only=["devices", "driver", "hccn-conf", "disk"], timeout_s=5)
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))
    render(results, True, 1.5, console)
    lines = console.export_text().splitlines()
    assert max(len(ln) for ln in lines) <= width
    rows = {ln.split()[1]: ln for ln in lines if ln[:1] in "✓!✗–?" and len(ln.split()) > 2}
    for r in results:
        assert rows[r.id].rstrip().endswith(f"{r.duration_s:.2f}"), rows[r.id]
    assert rows["network"].rstrip().endswith(" 123.40")


def test_plain_table_fits_80_columns_and_indents_wrapped_messages():
    console = Console(width=80, record=True, color_system=None, file=open("/dev/null", "w"))
    render(_hard_results(), False, 1.5, console)
    lines = console.export_text().splitlines()
    assert max(len(ln) for ln in lines) <= 80
    at = next(i for i, ln in enumerate(lines) if ln.startswith(" " * 22 + "!"))
    assert all(ln.startswith(" " * 22 + "/") for ln in lines[at + 1:at + 3])  # wrapped lines keep the indent
