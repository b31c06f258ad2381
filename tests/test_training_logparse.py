"""Training log parser and metrics sink, on the real lines of case 27 and the field report."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.events import Line
from wizard.training.logparse import TrainEvent, TrainRecord, parse_counter, parse_line
from wizard.training.metrics import TrainingMetrics

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASE_27 = SHARED / "cases" / "27-lerobot-pi05-train-log-lines.txt"


def raw_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("--- RAW TEXT BEGIN ---", 1)[1].split("--- RAW TEXT END ---", 1)[0]


def records(line: str) -> list[TrainRecord]:
    return [r for r in parse_line(line) if isinstance(r, TrainRecord)]


@pytest.mark.skipif(not CASE_27.exists(), reason="shared/cases not beside the checkout")
def test_case27_pasted_line_holds_four_records():
    pasted = next(l for l in raw_text(CASE_27).splitlines() if l.startswith("`INFO"))
    recs = records(pasted.strip("`"))
    assert [r.step.value for r in recs] == [10, 20, 30, 40]
    assert [r.smpl.text for r in recs] == ["320", "640", "960", "1K"]
    assert recs[3].smpl.exact is False and recs[3].smpl.value == 1000
    assert recs[0].loss == pytest.approx(0.468) and recs[0].updt_s == pytest.approx(4.906)
    assert recs[0].data_s == pytest.approx(4.874) and recs[1].lr == pytest.approx(4.1e-07)
    assert recs[2].epch == pytest.approx(0.01) and recs[3].ep.value == 1


@pytest.mark.skipif(not CASE_27.exists(), reason="shared/cases not beside the checkout")
def test_case27_split_lines_match_pasted_records():
    lines = [l for l in raw_text(CASE_27).splitlines() if l.startswith("INFO ")]
    assert len(lines) == 4
    assert [records(l)[0].grdn for l in lines] == [3.522, 3.936, 3.973, 3.805]


def test_report_retyped_form_with_udpt_alias():
    # Seed report, section 8: key=value and the misspelt udpt_s.
    (rec,) = records("step=40 smpl=1K ep=3 loss=1.949 grdn=0.987 lr=7.9e-07 udpt_s=1.18 data_s=0.42")
    assert rec.step.value == 40 and rec.step.exact
    assert rec.updt_s == pytest.approx(1.18) and rec.smpl.value == 1000


def test_recipe_line_with_newer_tokens_kept_as_extra():
    line = ("INFO 2025-10-21 12:00:00 ot_train.py:347 step:20 smpl:2K ep:7 epch:0.08 loss:2.021 "
            "grdn:1.234 lr:2.9e-07 updt_s:1.230 data_s:0.450 smp/s:103.2 mem_gb:41.5")
    (rec,) = records(line)
    assert rec.extra == {"smp/s": 103.2, "mem_gb": 41.5}
    assert "py" not in rec.extra  # `ot_train.py:347` is not a metric


@pytest.mark.parametrize("text,value,exact", [("320", 320, True), ("1K", 1000, False), ("2K", 2000, False),
                                              ("3M", 3_000_000, False), ("1B", 10**9, False)])
def test_counter_suffixes(text, value, exact):
    c = parse_counter(text)
    assert (c.value, c.exact) == (value, exact)


def test_counter_rejects_garbage():
    with pytest.raises(ValueError):
        parse_counter("12X")


def test_events():
    assert parse_line("INFO cfg.steps=30000 (30K)") == [TrainEvent("total_steps", 30000)]
    assert parse_line("Effective batch size: 8 x 16 = 128") == [TrainEvent("effective_batch", 128, (8, 16))]
    assert parse_line("INFO Checkpoint policy after step 5000") == [TrainEvent("checkpoint", 5000)]
    assert parse_line("INFO End of training") == [TrainEvent("end", 0)]
    assert parse_line("INFO dataset.num_frames=24000 (24K)") == [TrainEvent("num_frames", 24000)]


def test_nan_loss_is_flagged():
    (rec,) = records("step:60 smpl:2K ep:5 loss:nan grdn:inf lr:1e-6 updt_s:1.2 data_s:0.4")
    assert math.isnan(rec.loss) and not rec.finite


def test_metrics_sink_samples_per_second_and_health():
    sink = TrainingMetrics(history=3)
    sink.line(Line("cfg.steps=30000 (30K)"))
    sink.line(Line("Effective batch size: 8 x 16 = 128"))
    for i in range(1, 6):
        sink.line(Line(f"step:{i * 20} smpl:{i * 2560} ep:1 epch:0.1 loss:{2.0 - i / 10:.3f} grdn:1.0 "
                       f"lr:1e-6 updt_s:0.800 data_s:0.025"))
    snap = sink.snapshot()
    assert snap.records == 5 and len(snap.recent) == 3  # bounded history
    assert snap.samples_per_s == pytest.approx(128 / 0.825)
    assert snap.world_size == 16 and snap.fraction == pytest.approx(100 / 30000)
    assert snap.first_loss == pytest.approx(1.9) and snap.loss == pytest.approx(1.5)
    assert snap.problems == ()
    sink.line(Line("step:120 smpl:3K ep:1 epch:0.1 loss:nan grdn:1.0 lr:1e-6 updt_s:0.8 data_s:0.7"))
    problems = sink.snapshot().problems
    assert any("not finite" in p for p in problems) and any("data loader" in p for p in problems)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_parse_line_never_raises_on_random_text(text):
    for item in parse_line(text):
        assert isinstance(item, (TrainRecord, TrainEvent))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_parse_line_never_raises_on_binary(data):
    parse_line(data.decode("utf-8", errors="replace"))


def test_huge_and_truncated_lines():
    base = "step:20 smpl:2K ep:7 epch:0.08 loss:2.021 grdn:1.234 lr:2.9e-07 updt_s:1.230 data_s:0.450"
    for cut in range(len(base)):
        parse_line(base[:cut])
    assert len(records(" ".join([base] * 2000))) == 2000
    assert parse_line("") == [] and parse_line("x" * 1_000_000) == []
