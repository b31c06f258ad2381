"""Suite-wide pytest hooks (kept minimal; shared fixtures live in `tests/<area>_fixtures.py`).

In CI (environment variable `CI` set, as `.ci/run` does) a test marked `@pytest.mark.docker` that
is skipped, e.g. because no Docker engine was reachable, is reported as a failure instead: CI always
starts an engine, so such a skip means the real-engine tests silently did not run.
"""

from __future__ import annotations

import os

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Turn the skip of a docker-marked test into a failure when `CI` is set."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and item.get_closest_marker("docker") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"docker test skipped in CI (CI={os.environ['CI']!r}), which must not happen: {reason}"


@pytest.fixture(autouse=True)
def _forget_remembered_hints():
    """`wizard.hints.remember` is per process: a CLI or TUI test run in-process must not leak its
    --root/--state-dir into the next test's printed commands."""
    yield
    from wizard import hints

    hints.forget()
