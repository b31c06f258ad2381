"""The `dataset` stage and the conversion pre-checks, on copies of the lerobot-written samples."""

from __future__ import annotations

import json
import shutil
import threading

import pytest

from checks.result import Status
from dataset_fixtures import TINY_V21, TINY_V30, copy_dataset, golden
from runner_fixtures import Collect
from wizard.dataset.convert import ALREADY_DONE, BLOCKED, CONVERT, converter_argv, precheck_conversion, \
    verify_converted
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.runner import run_stage
from wizard.stages.base import ActionIO, StageContext, Where
from wizard.stages.common import ProbeUnavailable
from wizard.stages.dataset import STAGE, PathNotMapped, host_dataset_path, local_dataset_path
from wizard.stages.registry import get_stage
from wizard.state import StageStatus, StateStore


def make_ctx(tmp_path, src=None, name="koch_test"):
    """A context whose host is rooted at tmp/root, data folder /srv/data (-> /data in the container)."""
    locs = Locations.under(tmp_path / "state")
    recipe = load_recipe(locs)
    recipe.container.data.host_path = "/srv/data"
    recipe.container.data.container_path = "/data"
    recipe.dataset.path = f"/data/{name}"
    data = tmp_path / "root/srv/data"
    data.mkdir(parents=True)
    if src is not None:
        copy_dataset(src, data, name)
    ctx = StageContext(recipe=recipe, host=LocalHost(tmp_path / "root"), locations=locs)
    return ctx, data / name


def io_collect():
    lines = []
    return ActionIO(emit=lambda text, stream="stdout", progress=False: lines.append((stream, text)),
                    cancelled=lambda: False), lines


def test_registry_finds_the_stage():
    assert get_stage("dataset") is STAGE and STAGE.id == "dataset"


def test_path_mapping(tmp_path):
    ctx, path = make_ctx(tmp_path, None)
    assert host_dataset_path(ctx) == "/srv/data/koch_test"
    assert local_dataset_path(ctx) == path
    ctx.recipe.dataset.path = "/elsewhere/x"
    with pytest.raises(PathNotMapped):
        host_dataset_path(ctx)
    with pytest.raises(ProbeUnavailable, match="^The recipe's \\[dataset\\] path /elsewhere/x is outside the data mount /data "):
        STAGE.done(ctx)
    assert STAGE.verify(ctx)[0].status is Status.FAIL


def test_steps_run_the_converter_without_hub(tmp_path):
    ctx, _ = make_ctx(tmp_path, TINY_V21)
    steps = STAGE.steps(ctx)
    convert = next(s for s in steps if s.argv is not None)
    assert convert.argv == [ctx.recipe.python.executable, "-m", "lerobot.datasets.v30.convert_dataset_v21_to_v30",
                            "--repo-id=/data/koch_test", "--push-to-hub=false"]
    assert convert.env["HF_HUB_OFFLINE"] == "1" and convert.where is Where.CONTAINER
    assert all(s.where is Where.HOST for s in steps if s.action is not None)
    assert converter_argv("python3", "/data/my set") == ["python3", "-m",
                                                         "lerobot.datasets.v30.convert_dataset_v21_to_v30",
                                                         "--repo-id=/data/my set", "--push-to-hub=false"]
    # v2.1: the pre-check and the converter run; stats are not there yet
    assert convert.skip_if(ctx) is False and steps[-1].skip_if(ctx) is False


def test_precheck_verdicts(tmp_path):
    v21 = copy_dataset(TINY_V21, tmp_path, "a")
    assert precheck_conversion(v21).details["verdict"] == CONVERT
    v30 = copy_dataset(TINY_V30, tmp_path, "b")
    assert precheck_conversion(v30).details["verdict"] == ALREADY_DONE
    (tmp_path / "a_v30").mkdir()
    res = precheck_conversion(v21)
    assert res.status is Status.WARN and res.details["verdict"] == CONVERT
    (tmp_path / "a_old").mkdir()
    res = precheck_conversion(v21)
    assert res.status is Status.FAIL and res.details["verdict"] == BLOCKED
    assert "restore" in res.messages[0].text and "a_old" in res.messages[0].text
    assert precheck_conversion(tmp_path / "missing").details["verdict"] == BLOCKED
    assert verify_converted(v21).status is Status.FAIL and verify_converted(v30).status is Status.OK


def test_old_copy_stops_the_stage_before_the_converter(tmp_path):
    ctx, path = make_ctx(tmp_path, TINY_V21)
    shutil.copytree(TINY_V21, path.parent / "koch_test_old")
    sink = Collect()
    rec = run_stage(STAGE, ctx, [sink], threading.Event(), StateStore(ctx.locations))
    assert rec.status is StageStatus.FAILED
    assert rec.failed_step.title == "Check the converter can run safely"
    assert any("would delete" in t for t in sink.texts("stderr"))
    assert json.loads((path / "meta/info.json").read_text())["codebase_version"] == "v2.1"


def test_stage_on_v30_without_quantiles_computes_them_and_is_done(tmp_path):
    ctx, path = make_ctx(tmp_path, TINY_V30)
    assert STAGE.done(ctx) is False
    sink = Collect()
    rec = run_stage(STAGE, ctx, [sink], threading.Event(), StateStore(ctx.locations))
    assert rec.status is StageStatus.SUCCEEDED, sink.texts("stderr")
    stats = json.loads((path / "meta/stats.json").read_text())
    assert stats["action"]["q01"] == pytest.approx(golden()["action"]["q01"], rel=1e-6)
    assert "observation.images.laptop" in stats
    assert STAGE.done(ctx) is True
    assert all(r.status is Status.OK for r in STAGE.verify(ctx))
    rec2 = run_stage(STAGE, ctx, [Collect()], threading.Event(), StateStore(ctx.locations))
    assert rec2.status is StageStatus.SKIPPED


def test_stats_step_reports_nan_and_leaves_stats_alone(tmp_path):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    ctx, path = make_ctx(tmp_path, TINY_V30)
    data = path / "data/chunk-000/file-000.parquet"
    table = pq.read_table(data)
    action = table.column("action").to_pylist()
    action[10][2] = float("nan")
    table = table.set_column(table.schema.get_field_index("action"), "action",
                             pa.array(action, type=pa.list_(pa.float32())))
    pq.write_table(table, data)
    before = (path / "meta/stats.json").read_text()
    stats_step = STAGE.steps(ctx)[-1]
    io, lines = io_collect()
    assert stats_step.action(ctx, io) == 1
    assert any("action: 1 NaN" in t and "episode(s) 0" in t for s, t in lines if s == "stderr")
    assert (path / "meta/stats.json").read_text() == before
    assert np.isnan(action[10][2])


def test_inspect_step_blocks_on_missing_files_not_on_v21(tmp_path):
    ctx, path = make_ctx(tmp_path, TINY_V21)
    inspect_step = STAGE.steps(ctx)[0]
    io, lines = io_collect()
    assert inspect_step.action(ctx, io) == 0
    (path / "data/chunk-000/episode_000003.parquet").unlink()
    io, lines = io_collect()
    assert inspect_step.action(ctx, io) == 1
    assert any("episode_000003.parquet" in t for _, t in lines)
