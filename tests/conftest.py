"""Suite-wide pytest hooks (kept minimal; shared fixtures live in `tests/<area>_fixtures.py`).

In CI (environment variable `CI` set, as `.ci/run` does) a test marked `@pytest.mark.docker` that
is skipped, e.g. because no Docker engine was reachable, is reported as a failure instead: CI always
starts an engine, so such a skip means the real-engine tests silently did not run.

At the end of the session, `_no_tmpfs_left_behind` fails the run if a tmpfs mounted during it (a
simulated host's `dev/shm` or 2 TiB disks) is still mounted under the pytest basetemp, a demo folder
(`pi05-wizard-demo-*`) or a simulated host in the temp folder, and unmounts it so the machine stays clean.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

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


def _tmpfs_mounts() -> list[str]:
    """Mount points of every tmpfs in this mount namespace, from `/proc/self/mounts` (fstab-style lines,
    spaces and tabs in paths written as octal escapes like `\\040`)."""
    try:
        text = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "tmpfs":
            out.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
    return out


def _ours(point: str, basetemp: Path) -> bool:
    """A mount a test, a demo or a simulated host of this project made (not the system's own tmpfs)."""
    path = Path(point)
    if basetemp == path or basetemp in path.parents:
        return True
    tmp = Path(tempfile.gettempdir())
    if path.parent != tmp and tmp in path.parents:
        top = path.relative_to(tmp).parts[0]
        if top.startswith("pi05-wizard-demo-"):
            return True
        return any((p / ".sim").is_dir() for p in path.parents if tmp in p.parents)  # a sim host's tmpfs
    return False


@pytest.fixture(scope="session", autouse=True)
def _no_tmpfs_left_behind(tmp_path_factory):
    """Fail the session when a tmpfs mounted during it is still mounted at its end; unmount it either way."""
    before = set(_tmpfs_mounts())
    yield
    basetemp = tmp_path_factory.getbasetemp().resolve()
    left = [p for p in _tmpfs_mounts() if p not in before and _ours(p, basetemp)]
    for point in sorted(set(left), key=len, reverse=True):  # nested mounts first
        for argv in (["umount", point], ["umount", "-l", point]):
            if subprocess.run(argv, capture_output=True, timeout=10).returncode == 0:
                break
    assert not left, ("tmpfs mounts left behind by this test session (now unmounted): " + ", ".join(left) +
                      "; build_sim_host(... 'tiny-shm' or disks=True) needs teardown_sim_host in a finally "
                      "or a fixture")
