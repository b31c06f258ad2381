"""`pi05-wizard run`: copy-pasteable hints with the global options, --ignore-deps vs --force, and
a failed preflight on the simulated busy-NPU host showing up in `status`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from runner_stages import HERE
from wizard import hints
from wizard.readiness import blocking_dependencies
from wizard.stages.base import Stage, Step, Where
from wizard.state import StageRecord, StageStatus, utcnow

ROOT = str(Path(HERE).parent)


def _cli(tmp: Path, *args: str, cwd: str = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update({"PI05_WIZARD_EXTRA_STAGES": "runner_stages:stages", "PYTHONPATH": os.pathsep.join([ROOT, HERE]),
                "XDG_CONFIG_HOME": str(tmp / "xdg"), "COLUMNS": "80"})
    return subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def _hint(out: str, prefix: str) -> list[str]:
    line = next(ln for ln in out.splitlines() if ln.startswith(prefix))
    return shlex.split(line[len(prefix):])


def test_rerun_hint_keeps_global_options_with_spaces_and_quotes(tmp_path):
    state = tmp_path / "it's a \"state\" dir"
    res = _cli(tmp_path, "--state-dir", str(state), "run", "t-ok", "t-fail")
    assert res.returncode == 1, res.stdout + res.stderr
    argv = _hint(res.stdout, "re-run with: ")
    assert argv == ["pi05-wizard", "--state-dir", str(state), "run", "t-fail"]
    # the hint, pasted, runs against the same state folder (there t-ok has succeeded)
    again = _cli(tmp_path, *argv[1:])
    assert again.returncode == 1 and '✗ stage t-fail failed at step 1 "fail"' in again.stdout


def test_dependency_hint_and_ignore_deps(tmp_path):
    state = tmp_path / "state dir"
    res = _cli(tmp_path, "run", "t-fail", "--state-dir", str(state))
    assert res.returncode == 1
    assert _hint(res.stdout, "✗ t-fail needs t-ok first (not succeeded yet); run: ") == [
        "pi05-wizard", "--state-dir", str(state), "run", "t-ok"]
    forced = _cli(tmp_path, "run", "t-fail", "--force", "--state-dir", str(state))
    assert forced.returncode == 1 and "needs t-ok first" in forced.stdout  # --force is about done() only
    ignored = _cli(tmp_path, "run", "t-fail", "--ignore-deps", "--state-dir", str(state))
    assert "! running t-fail although t-ok has not succeeded (--ignore-deps)" in ignored.stdout
    assert '✗ stage t-fail failed at step 1 "fail": exit code 3' in ignored.stdout


def test_run_help_separates_force_and_ignore_deps(tmp_path):
    out = " ".join(_cli(tmp_path, "run", "--help").stdout.split())
    assert "--force re-run stages whose done() probe says their work is already there" in out
    assert "--ignore-deps run stages even when the stages they depend on have not succeeded" in out


def test_blocking_dependencies_rule():
    class Store:
        def __init__(self, recs):
            self.recs = recs

        def last(self, sid):
            return self.recs.get(sid)

    def rec(sid, status):
        return StageRecord(stage_id=sid, status=status, started=utcnow())

    stage = Stage(id="c", title="c", description="", where=Where.HOST, depends_on=("a", "b"),
                  steps=lambda ctx: [Step("x", argv=["true"])])
    store = Store({"a": rec("a", StageStatus.SUCCEEDED), "b": rec("b", StageStatus.FAILED)})
    assert blocking_dependencies(stage, store) == ["b"]
    assert blocking_dependencies(stage, store, satisfied=["b"]) == []
    assert blocking_dependencies(stage, Store({"a": rec("a", StageStatus.SKIPPED)})) == ["b"]
    assert blocking_dependencies(stage, Store({"a": rec("a", StageStatus.INTERRUPTED)})) == ["a", "b"]


def test_hints_command_quoting(tmp_path):
    class Args:
        root = str(tmp_path / "sim host")
        recipe = None
        state_dir = "rel'dir"

    line = hints.command("dataset", "stats", "/data/my set", args=Args())
    assert shlex.split(line) == ["pi05-wizard", "--root", str(tmp_path / "sim host"), "--state-dir",
                                 os.path.abspath("rel'dir"), "dataset", "stats", "/data/my set"]
    hints.forget()
    assert hints.command("run", "container") == "pi05-wizard run container"


@pytest.mark.timeout(120)
def test_failed_preflight_on_busy_npus_shows_in_status(tmp_path):
    from wizard.simhost import build_sim_host

    root = build_sim_host(tmp_path / "sim host", variant="npu-smi-busy")
    state = tmp_path / "state"
    res = _cli(tmp_path, "--root", str(root), "--state-dir", str(state), "run", "preflight", "--offline")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "known problem: npu-device-busy" in res.stdout
    assert _hint(res.stdout, "re-run with: ") == ["pi05-wizard", "--root", str(root), "--state-dir", str(state),
                                                  "run", "preflight"]
    assert "Download hosts" in res.stdout and "2/8 download hosts" not in res.stdout  # --offline reached the checks
    st = {s["id"]: s for s in json.loads(_cli(tmp_path, "--state-dir", str(state), "status", "--json").stdout)["stages"]}
    rec = st["preflight"]["record"]
    assert st["preflight"]["status"] == "failed" and rec["exit_code"] == 1
    assert "npu-device-busy" in rec["remedies"]
    table = _cli(tmp_path, "--state-dir", str(state), "status").stdout
    lines = table.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("preflight "))
    row = lines[at]
    assert row.split()[:2] == ["preflight", "failed"] and " 1  " in row
    # the known problems column: whole ids, wrapped between them (never "exec-format-err" / "or")
    assert row.rstrip().rstrip(",").endswith("npu-device-busy") and max(len(ln) for ln in lines) <= 80
    assert {w.rstrip(",") for ln in lines for w in ln.split()} >= set(rec["remedies"])


def test_plan_commands_carry_the_global_options(tmp_path):
    root = tmp_path / "sim 'host'"
    root.mkdir()
    out = _cli(tmp_path, "--root", str(root), "plan", "preflight").stdout
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("$ "))
    assert shlex.split(line.strip()[2:].split("   (")[0]) == ["pi05-wizard", "--root", str(root), "check"]
