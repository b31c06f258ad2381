"""Each simulated host (`--root DIR`) gets its own state folder and lock unless `--state-dir` says otherwise."""

from __future__ import annotations

import argparse
import json

from tests.recipe_fixtures import isolated, run_cli  # noqa: F401
from wizard.locations import Locations, root_state_dir
from wizard.session import Session


def _args(root=None, state=None):
    return argparse.Namespace(root=str(root) if root else None, recipe=None,
                              state_dir=str(state) if state else None)


def _torch(out: str) -> str:
    return next(s["status"] for s in json.loads(out)["stages"] if s["id"] == "torch")


def test_root_gets_its_own_state_dir_under_the_platformdirs_state_dir(isolated):
    real = Locations.default()
    sim = Locations.from_args(_args(isolated / "sim a"))
    assert real.state_dir == isolated / "xdg-state" / "pi05-wizard"
    assert sim.state_dir.parent == real.state_dir / "roots"
    assert sim.state_dir.name.endswith("-sim a") and len(sim.state_dir.name) == 12 + 1 + len("sim a")
    assert sim.lock_file.parent == sim.state_dir != real.state_dir
    # Same basename, other folder: other state. Relative and absolute spellings agree.
    assert root_state_dir(isolated / "x" / "sim a") != sim.state_dir
    assert root_state_dir(str(isolated / "sim a") + "/") == sim.state_dir


def test_explicit_state_dir_wins_over_root(isolated):
    loc = Locations.from_args(_args(isolated / "sim", state=isolated / "mine"))
    assert loc.state_dir == isolated / "mine"
    assert Session.from_args(_args(isolated / "sim", state=isolated / "mine")).locations.state_dir == isolated / "mine"


def test_status_on_a_root_does_not_show_the_real_records(isolated, monkeypatch):
    from wizard.state import StageRecord, StageStatus, StateStore

    StateStore(Locations.default()).save(StageRecord(stage_id="torch", status=StageStatus.SUCCEEDED))
    (isolated / "sim").mkdir()
    code, out, _ = run_cli(["status", "--json"], monkeypatch)
    assert code == 0 and _torch(out) == "succeeded"
    code, out, _ = run_cli(["--root", str(isolated / "sim"), "status", "--json"], monkeypatch)
    data = json.loads(out)
    assert data["state_dir"] == str(root_state_dir(isolated / "sim"))
    assert _torch(out) == "pending"
