"""Reverting an env fix takes its set_env.sh files out of the record the runner reads (`stage_env_sources`)."""

from __future__ import annotations

import json
import sys
import threading

import pytest

from runner_fixtures import Collect
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.remedies.fixes import STAGE_ENV_RECORD, FixContext, apply_fix, revert_fix, stage_env_sources
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageStatus, StateStore

SHOW = "import os; print(os.environ.get('ASCEND_TOOLKIT_HOME'), os.environ.get('ATB_HOME_PATH'))"


@pytest.fixture
def world(tmp_path):
    """Our own small set_env.sh files (exporting what the real ones export) and a profile, under tmp."""
    tk = tmp_path / "Ascend dir/ascend-toolkit/set_env.sh"
    nnal = tmp_path / "Ascend dir/nnal/atb/set_env.sh"
    for path, line in ((tk, 'export ASCEND_TOOLKIT_HOME="/usr/local/Ascend/ascend-toolkit/latest"\n'),
                       (nnal, 'export ATB_HOME_PATH="/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1"\n')):
        path.parent.mkdir(parents=True)
        path.write_text(line)
    profile = tmp_path / "bashrc"
    profile.write_text("alias ll='ls -l'\n")
    ctx = FixContext(host=LocalHost(), locations=Locations.under(tmp_path / "wiz"), toolkit_set_env=str(tk),
                     nnal_set_env=str(nnal), profile=str(profile))
    return ctx, str(tk), str(nnal)


def _record_file(ctx: FixContext):
    return ctx.locations.state_dir / "remedies" / f"{STAGE_ENV_RECORD}.json"


def _container_step_env(ctx: FixContext) -> tuple[list[str], list[str]]:
    """Run a container stage (this machine's LocalHost standing in for the container): its output and wizard lines."""
    stage = Stage(id="torch", title="Torch", description="", where=Where.CONTAINER,
                  steps=lambda c: [Step("show env", argv=[sys.executable, "-c", SHOW])])
    sctx = StageContext(recipe=None, host=LocalHost(), locations=ctx.locations, container=LocalHost)  # type: ignore[arg-type]
    sink = Collect()
    rec = run_stage(stage, sctx, [sink], threading.Event(), StateStore(ctx.locations), grace_s=1.0)
    assert rec.status is StageStatus.SUCCEEDED, rec.reason
    return sink.texts("stdout"), sink.texts("wizard")


@pytest.mark.parametrize("rid", ["cann-env-not-sourced", "nnal-missing"])
def test_revert_removes_the_record_and_the_runner_stops_sourcing(world, rid):
    ctx, tk, _ = world
    assert apply_fix(rid, ctx).ok
    out, _ = _container_step_env(ctx)
    assert out[-1].startswith("/usr/local/Ascend/ascend-toolkit/latest")
    res = revert_fix(rid, ctx)
    assert res.ok and res.changed and "stages no longer source any set_env.sh" in res.details
    assert stage_env_sources(ctx.locations) == [] and not _record_file(ctx).exists()
    assert open(ctx.profile).read() == "alias ll='ls -l'\n"
    out, wizard_lines = _container_step_env(ctx)
    assert out[-1] == "None None" and not any("sourcing" in t for t in wizard_lines)
    again = revert_fix(rid, ctx)
    assert again.ok and not again.changed


def test_reverting_one_env_fix_keeps_what_the_other_still_needs(world):
    ctx, tk, nnal = world
    apply_fix("cann-env-not-sourced", ctx)
    apply_fix("nnal-missing", ctx)
    assert stage_env_sources(ctx.locations) == [tk, nnal]
    revert_fix("nnal-missing", ctx)
    assert stage_env_sources(ctx.locations) == [tk]
    out, _ = _container_step_env(ctx)
    assert out[-1] == "/usr/local/Ascend/ascend-toolkit/latest None"
    revert_fix("cann-env-not-sourced", ctx)
    assert stage_env_sources(ctx.locations) == [] and not _record_file(ctx).exists()


def test_a_record_from_before_the_by_map_is_read_as_its_fix(world):
    ctx, tk, nnal = world
    _record_file(ctx).parent.mkdir(parents=True)
    _record_file(ctx).write_text(json.dumps({"source": [tk, nnal], "time": "2025-01-01T00:00:00"}))
    assert revert_fix("cann-env-not-sourced", ctx).ok  # not its files: they stay
    assert stage_env_sources(ctx.locations) == [tk, nnal]
    revert_fix("nnal-missing", ctx)
    assert stage_env_sources(ctx.locations) == [] and not _record_file(ctx).exists()


@pytest.mark.parametrize("junk", [b"", b"{not json", b"\x00\xff\xfe" * 100, b'{"source": 5, "by": [1]}', b"[1, 2]",
                                  b'{"source": ["/a"], "by": {"nnal-missing": "not a list"}}'])
def test_a_broken_record_never_raises_and_is_cleared(world, junk):
    ctx, _, _ = world
    _record_file(ctx).parent.mkdir(parents=True)
    _record_file(ctx).write_bytes(junk)
    res = revert_fix("nnal-missing", ctx)
    assert res.ok and stage_env_sources(ctx.locations) == []
