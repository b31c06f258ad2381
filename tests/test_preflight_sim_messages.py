"""What a fresh user saw on the simulated hosts: every check's message leads somewhere true.

The `tiny-shm` container view names `cann-env-not-sourced` only because its toolkit is installed
(set_env.sh present), and that fix then works there; hccn.conf covers every simulated NPU; the
simulated npu-smi answers no `info -l` (no check reads it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from checks.context import CheckContext, Requirements
from checks.registry import run_checks
from checks.result import Status
from tests.preflight_fixtures import make_sim  # noqa: F401  (fixture)
from wizard.hosts.local import LocalHost

REPO = Path(__file__).resolve().parents[1]


def _results(root: Path, only: list[str]) -> dict:
    host = LocalHost(root=root)
    ctx = CheckContext.for_host(host, Requirements(), offline=True)
    return {r.id: r for r in run_checks(ctx, only=only, timeout_s=20)}


def test_tiny_shm_names_the_env_fix_and_the_fix_finds_the_toolkit(make_sim, tmp_path, monkeypatch):
    for k in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        monkeypatch.delenv(k, raising=False)
    root = make_sim("tiny-shm")
    r = _results(root, ["cann-toolkit"])["cann-toolkit"]
    assert r.status is Status.WARN and r.remedies == ["cann-env-not-sourced"]
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH")}
    proc = subprocess.run([sys.executable, "-m", "wizard", "--root", str(root), "--state-dir", str(tmp_path / "st"),
                           "fix", "cann-env-not-sourced", "--yes"], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env=env)
    out = proc.stdout + proc.stderr
    assert "not installed" not in out, out
    assert proc.returncode == 0, out


def test_healthy_sim_hccn_lists_every_npu_and_npu_smi_has_no_list_mode(make_sim):
    root = make_sim("healthy")
    r = _results(root, ["hccn-conf", "visible-devices"])
    assert r["hccn-conf"].status is Status.OK and sorted(r["hccn-conf"].details["addresses"]) == list("01234567")
    assert r["visible-devices"].summary == "not set: all 8 NPUs visible"
    listing = LocalHost(root=root).run(["npu-smi", "info", "-l"], timeout=10)
    assert listing.returncode == 2 and "unsupported arguments" in listing.stderr


def test_python_summary_in_a_fresh_container_has_no_stray_comma(make_sim):
    """Regression: nothing installed in the container gave "Python 3.10.12," (an empty package list joined)."""
    root = make_sim("tiny-shm")
    r = _results(root, ["python"])["python"]
    assert r.summary == "Python 3.10.12", r.summary
    assert r.details["packages"] and not any(r.details["packages"].values())


def test_python_summary_lists_the_installed_packages(make_sim):
    from checks.python_packages import PACKAGES

    root = make_sim("tiny-shm")
    installed = {n: None for n in PACKAGES} | {"torch": "2.1.0", "numpy": "1.26.4"}
    script = root / "usr/bin/python3"  # a stand-in for the container's python3 with two packages installed
    script.write_text("#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"Python 3.10.12\"; exit 0; fi\n"
                      f"echo '{json.dumps(installed)}'\n")
    r = _results(root, ["python"])["python"]
    assert r.summary == "Python 3.10.12, torch 2.1.0, numpy 1.26.4", r.summary
