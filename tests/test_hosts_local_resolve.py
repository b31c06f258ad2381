"""`LocalHost.which/resolve` with a root: commands resolve under the root first, then on this machine."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageStatus, StateStore


def _tool(root: Path, rel: str, says: str, mode: int = 0o755) -> Path:
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {says}\n")
    path.chmod(mode)
    return path


@pytest.fixture
def root(tmp_path) -> Path:
    r = tmp_path / "sim root with 'quotes' and spaces"
    r.mkdir()
    return r


def test_absolute_path_under_the_root_wins(root):
    sim = _tool(root, "/usr/local/sbin/npu-smi", "simulated")
    host = LocalHost(root)
    assert host.which("/usr/local/sbin/npu-smi") == "/usr/local/sbin/npu-smi"
    assert host.resolve("/usr/local/sbin/npu-smi") == str(sim)
    res = host.run(["/usr/local/sbin/npu-smi"], timeout=10)
    assert res.returncode == 0 and res.stdout == "simulated\n"


def test_absolute_path_missing_under_the_root_is_the_real_one(root):
    host = LocalHost(root)
    assert host.which(sys.executable) == sys.executable and host.resolve(sys.executable) == sys.executable
    res = host.run([sys.executable, "-c", "print('real python')"], timeout=30)
    assert res.returncode == 0 and res.stdout == "real python\n" and not res.not_found
    assert host.resolve("/bin/sh") == "/bin/sh"
    assert host.run(["/bin/sh", "-c", "echo real sh"], timeout=10).stdout == "real sh\n"


def test_a_non_executable_file_under_the_root_does_not_shadow_the_real_command(root):
    _tool(root, "/bin/sh", "never", mode=0o644)
    host = LocalHost(root)
    assert host.resolve("/bin/sh") == "/bin/sh"
    assert host.run(["/bin/sh", "-c", "echo real"], timeout=10).stdout == "real\n"


def test_absolute_path_nowhere_is_not_found(root):
    host = LocalHost(root)
    missing = "/no/such/dir/tool-xyz"
    assert host.which(missing) is None and host.resolve(missing) is None
    res = host.run([missing], timeout=10)
    assert res.not_found and res.returncode is None and "command not found" in res.stderr


def test_bare_names_still_search_the_root_first(root):
    sim = _tool(root, "/usr/local/sbin/uname", "sim-uname")
    host = LocalHost(root)
    assert host.which("uname") == "/usr/local/sbin/uname" and host.resolve("uname") == str(sim)
    assert host.resolve("sh") == (LocalHost().resolve("sh"))  # not under the root: this machine's


def test_without_a_root_paths_are_real(tmp_path):
    real = _tool(tmp_path, "/tool", "plain")
    host = LocalHost()
    assert host.which(str(real)) == str(real) and host.resolve(str(real)) == str(real)
    os.chmod(real, 0o644)
    assert host.which(str(real)) is None


def test_runner_runs_sys_executable_on_a_rooted_host(root, tmp_path):
    """A stage step `[sys.executable, -c, ...]` on a `--root` host ran into "command not found" before."""
    locations = Locations.under(tmp_path / "state")
    ctx = StageContext(recipe=None, host=LocalHost(root), locations=locations)  # type: ignore[arg-type]
    stage = Stage(id="py", title="Python", description="", where=Where.HOST,
                  steps=lambda c: [Step("print", argv=[sys.executable, "-c", "print('ran')"])])
    rec = run_stage(stage, ctx, [], threading.Event(), StateStore(locations), grace_s=1.0)
    assert rec.status is StageStatus.SUCCEEDED, rec.reason
    assert "ran" in Path(rec.log_path).read_text()
