"""Remedies matched while a stage runs reach its `StageRecord.remedies` (runner, then `run` end to end)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from remedy_stages import ENV, HCCL_LINE, HERE, STAGE_ID, stages
from wizard.remedies import RemedyMatcher
from wizard.runner import run_stage
from wizard.session import Session
from wizard.sinks import LineMatcher
from wizard.state import StageStatus, StateStore

ROOT = str(Path(HERE).parent)


def test_runner_stores_the_remedy_matchers_ids(tmp_path):
    session = Session.from_args(argparse.Namespace(root=None, recipe=None, state_dir=str(tmp_path / "state")))
    matcher = RemedyMatcher()
    store = StateStore(session.locations)
    (stage,) = stages()
    rec = run_stage(stage, session.context(), [matcher], threading.Event(), store, grace_s=1.0)
    assert rec.status is StageStatus.FAILED and rec.exit_code == 1
    assert rec.remedies == ["cann-env-not-sourced"]
    assert store.last(STAGE_ID).remedies == ["cann-env-not-sourced"]


def test_ids_is_the_one_accessor():
    # One way to ask a LineMatcher what it found; the remedy matcher overrides it, nothing else.
    assert not hasattr(LineMatcher, "matched_ids") and not hasattr(RemedyMatcher, "matched_ids")
    sink = RemedyMatcher()
    sink.line_batch([HCCL_LINE], "stderr", 0.0, 0, False)
    assert sink.ids == ["cann-env-not-sourced"]


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(ENV)
    env.update({"PYTHONPATH": os.pathsep.join([ROOT, HERE]), "XDG_CONFIG_HOME": str(tmp / "xdg"), "COLUMNS": "200"})
    return subprocess.run([sys.executable, "-m", "wizard", "--state-dir", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_run_end_to_end_records_and_names_the_remedy(tmp_path):
    run = _cli(tmp_path, "run", STAGE_ID)
    assert run.returncode == 1, run.stderr
    out = " ".join(run.stdout.split())  # Rich wraps long lines at the terminal width
    assert "known problem: cann-env-not-sourced" in out
    assert f"fix: pi05-wizard --state-dir {tmp_path / 'state'} fix cann-env-not-sourced" in out
    status = _cli(tmp_path, "status", "--json")
    assert status.returncode == 0, status.stderr
    (entry,) = [s for s in json.loads(status.stdout)["stages"] if s["id"] == STAGE_ID]
    assert entry["record"]["status"] == "failed"
    assert entry["record"]["remedies"] == ["cann-env-not-sourced"]
