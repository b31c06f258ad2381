"""The train stage's metrics: the runner parses lerobot lines and `status` shows the last run's progress.

The fake training step prints case 27's four records verbatim (lerobot #2194), preceded by the
`cfg.steps=...` and `Effective batch size: ...` lines lerobot prints at start (formats as in
`wizard.training.logparse`; the values 30000 and 32 x 1 are ours: case 27 says batch 32).
"""

from __future__ import annotations

import json
import sys
import threading

from runner_fixtures import Collect
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.stages.registry import get_stage
from wizard.state import StageStatus, StateStore
from wizard.training.metrics import TrainingMetrics
from wizard.training.snapshot import MAX_ITEMS, metrics_path, progress_text, read_metrics, snapshot_dict

CASE27 = [
    "INFO 2025-10-14 04:57:11 ot_train.py:299 step:10 smpl:320 ep:0 epch:0.00 loss:0.468 grdn:3.522 lr:1.6e-07 updt_s:4.906 data_s:4.874",
    "INFO 2025-10-14 04:57:59 ot_train.py:299 step:20 smpl:640 ep:0 epch:0.00 loss:0.467 grdn:3.936 lr:4.1e-07 updt_s:4.807 data_s:0.008",
    "INFO 2025-10-14 04:58:48 ot_train.py:299 step:30 smpl:960 ep:0 epch:0.01 loss:0.508 grdn:3.973 lr:6.6e-07 updt_s:4.815 data_s:0.009",
    "INFO 2025-10-14 04:59:36 ot_train.py:299 step:40 smpl:1K ep:1 epch:0.01 loss:0.513 grdn:3.805 lr:9.1e-07 updt_s:4.841 data_s:0.009",
]
PRELUDE = ["INFO cfg.steps=30000 (30K)", "Effective batch size: 32 x 1 = 32"]


def _fake_train(lines, metrics=True, sid="train") -> Stage:
    code = "import sys\nfor ln in sys.argv[1:]:\n    print(ln, flush=True)\n"
    return Stage(id=sid, title="Training", description="fake", where=Where.HOST, metrics=metrics,
                 steps=lambda ctx: [Step("train", argv=[sys.executable, "-c", code, *lines], timeout_s=60)])


def _run(tmp_path, stage, sinks=()):
    locs = Locations.under(tmp_path / "wiz")
    ctx = StageContext(recipe=None, host=LocalHost(), locations=locs)  # type: ignore[arg-type]
    rec = run_stage(stage, ctx, list(sinks), threading.Event(), StateStore(locs))
    return locs, rec


def test_train_stage_declares_metrics():
    assert get_stage("train").metrics is True
    assert get_stage("torch").metrics is False


def test_runner_persists_the_progress_of_a_fake_train_run(tmp_path):
    locs, rec = _run(tmp_path, _fake_train(PRELUDE + CASE27))
    assert rec.status is StageStatus.SUCCEEDED
    data = read_metrics(locs.stages_dir, "train")
    assert data["step"] == 40 and data["total_steps"] == 30000 and data["records"] == 4
    assert data["loss"] == 0.513 and data["first_loss"] == 0.468
    # 32 samples per (updt_s + data_s) = 32 / 4.850
    assert abs(data["samples_per_s"] - 32 / (4.841 + 0.009)) < 1e-6
    assert progress_text(data) == "step 40 / 30000 (0.1 %), loss 0.513, 6.6 samples/s"


def test_status_shows_the_last_train_run(tmp_path, capsys):
    from wizard.cli import status_cmd

    locs, _ = _run(tmp_path, _fake_train(PRELUDE + CASE27))
    data = status_cmd.collect(locs)
    (train,) = [s for s in data["stages"] if s["id"] == "train"]
    assert train["metrics"]["step"] == 40
    assert all("metrics" not in s for s in data["stages"] if s["id"] != "train")

    class Args:
        json = False
        state_dir = str(locs.state_dir)

    from wizard.locations import Locations as L

    orig = L.default
    try:
        L.default = classmethod(lambda cls, state_dir=None, config_dir=None, root=None: locs)  # type: ignore[method-assign]
        assert status_cmd.handle(Args()) == 0
    finally:
        L.default = orig  # type: ignore[method-assign]
    out = capsys.readouterr().out
    assert "train progress (last run): step 40 / 30000 (0.1 %), loss 0.513, 6.6 samples/s" in out


def test_a_new_run_replaces_the_old_progress(tmp_path):
    locs, _ = _run(tmp_path, _fake_train(PRELUDE + CASE27))
    locs, _ = _run(tmp_path, _fake_train(["no metrics here"]))
    data = read_metrics(locs.stages_dir, "train")
    assert data["records"] == 0 and data["step"] is None
    assert progress_text(data) == "no metrics lines yet"


def test_stages_without_metrics_keep_no_file(tmp_path):
    locs, _ = _run(tmp_path, _fake_train(CASE27, metrics=False, sid="weights"))
    assert not metrics_path(locs.stages_dir, "weights").exists()


def test_a_callers_training_sink_is_shared(tmp_path):
    ui = TrainingMetrics()
    locs, _ = _run(tmp_path, _fake_train(PRELUDE + CASE27), sinks=[ui])
    assert ui.snapshot().records == 4  # fed once by the runner, not twice
    assert read_metrics(locs.stages_dir, "train")["records"] == 4


def test_snapshot_is_bounded_and_bad_files_read_as_none(tmp_path):
    sink = TrainingMetrics()
    from wizard.events import Line

    for i in range(1, 60):
        sink.line(Line(f"Checkpoint policy after step {i * 100}"))
    d = snapshot_dict(sink.snapshot())
    assert len(d["checkpoints"]) <= MAX_ITEMS and d["checkpoints"][-1] == 5900
    stages = tmp_path / "stages"
    stages.mkdir()
    for name, content in (("train", b"{trunc"), ("a", b"\x00\xff"), ("b", b"[1, 2]")):
        metrics_path(stages, name).write_bytes(content)
        assert read_metrics(stages, name) is None
    assert read_metrics(stages, "absent") is None
    assert json.loads(json.dumps(d))["ended"] is False
