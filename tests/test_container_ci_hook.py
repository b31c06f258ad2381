"""The conftest hook: with `CI` set, a skipped `@pytest.mark.docker` test fails the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SAMPLE = '''
import pytest

@pytest.mark.docker
def test_needs_engine():
    pytest.skip("no reachable Docker engine (simulated)")

def test_plain_skip():
    pytest.skip("not a docker test")
'''


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    docker: needs an engine\n")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_docker_skip_fails_in_ci(tmp_path):
    res = _run(tmp_path, "1")
    assert res.returncode == 1, res.stdout
    assert "docker test skipped in CI" in res.stdout
    assert "1 failed" in res.stdout and "1 skipped" in res.stdout


def test_docker_skip_is_a_skip_outside_ci(tmp_path):
    res = _run(tmp_path, None)
    assert res.returncode == 0, res.stdout
    assert "2 skipped" in res.stdout
