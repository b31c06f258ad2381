"""Action steps report remedy ids they found themselves (`ActionIO.remedy`) into the stage record."""

from __future__ import annotations

from runner_fixtures import run, stage
from wizard.stages.base import Step
from wizard.state import StageStatus


def test_action_reported_remedies_reach_the_record(tmp_path):
    def action(ctx, io):
        io.emit("2 checks, 1 problem")
        io.remedy("npu-device-busy")
        io.remedy("npu-device-busy")  # reported twice, stored once
        io.remedy("shm-too-small")
        return 1

    rec, _ = run(tmp_path, stage(Step(title="checks", action=action)))
    assert rec.status is StageStatus.FAILED
    assert rec.remedies == ["npu-device-busy", "shm-too-small"]


def test_preflight_stage_records_the_remedies_of_failed_checks(tmp_path):
    from wizard.simhost import build_sim_host
    from wizard.hosts.local import LocalHost
    from wizard.locations import Locations
    from wizard.recipe import load_recipe
    from wizard.runner import run_stage
    from wizard.stages.base import StageContext
    from wizard.stages.registry import get_stage
    from wizard.state import StateStore
    import threading

    root = build_sim_host(tmp_path / "host", "npu-smi-busy")
    locs = Locations.under(tmp_path / "w")
    ctx = StageContext(recipe=load_recipe(locs), host=LocalHost(root), locations=locs, options={"offline": True})
    rec = run_stage(get_stage("preflight"), ctx, [], threading.Event(), StateStore(locs))
    assert rec.status is StageStatus.FAILED
    assert "npu-device-busy" in rec.remedies
