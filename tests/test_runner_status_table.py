"""`pi05-wizard status` as a table: fits 80 columns, no cut stage ids, one line per stage."""

from __future__ import annotations

import io
import json

from rich.console import Console

from wizard.cli.status_cmd import build_table, collect
from wizard.locations import Locations
from wizard.state import FailedStep, StageRecord, StageStatus, StateStore, utcnow

LONG = "Install the system packages the CANN toolkit and lerobot need (gcc, cmake, ffmpeg, libsndfile, git-lfs)"


def _render(data, width=80) -> list[str]:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, highlight=False).print(build_table(data, width))
    return buf.getvalue().splitlines()


def test_table_fits_80_columns_with_long_title(tmp_path):
    locs = Locations.under(tmp_path)
    store = StateStore(locs)
    store.save(StageRecord(stage_id="system-packages", status=StageStatus.FAILED, started=utcnow(),
                           finished=utcnow(), exit_code=100, failed_step=FailedStep(index=1, title=LONG),
                           remedies=["apt-lock-held", "npu-device-busy"]))
    data = collect(locs)
    lines = _render(data)
    assert max(len(ln) for ln in lines) <= 80
    at = next(i for i, ln in enumerate(lines) if ln.startswith("system-packages "))
    row = lines[at]
    assert row.split()[:2] == ["system-packages", "failed"] and " 100  " in row
    assert "2. Install" in row and "…" in row  # the title: one line, shortened
    assert "apt-lock-held" in row and lines[at + 1].strip() == "npu-device-busy"  # ids wrap whole
    assert lines[at + 2].startswith("torch ")
    for sid in ("dependencies", "model-code", "preflight", "image"):
        assert any(ln.startswith(sid + " ") for ln in lines), sid
    assert not any("…" in ln.split()[0] for ln in lines if ln.strip())
    # the full title is in the JSON form
    rec = next(s for s in json.loads(json.dumps(data))["stages"] if s["id"] == "system-packages")["record"]
    assert rec["failed_step"]["title"] == LONG


def test_wider_terminal_shows_the_whole_title(tmp_path):
    locs = Locations.under(tmp_path)
    StateStore(locs).save(StageRecord(stage_id="torch", status=StageStatus.FAILED, started=utcnow(),
                                      finished=utcnow(), exit_code=1, failed_step=FailedStep(index=0, title=LONG)))
    lines = _render(collect(locs), width=200)
    assert any(LONG in ln for ln in lines)


def test_markup_in_a_reason_is_printed_as_text(tmp_path):
    locs = Locations.under(tmp_path)
    StateStore(locs).save(StageRecord(stage_id="cann", status=StageStatus.FAILED, started=utcnow(),
                                      finished=utcnow(), reason="[bold]x[/] y"))
    assert any("[bold]x[/] y" in ln for ln in _render(collect(locs), width=120))


def test_remedy_ids_wrap_only_between_ids_at_80_columns(tmp_path):
    """Long catalogued ids (as a fresh user saw: "exec-format-err / or") are never split across lines."""
    from wizard.cli.status_cmd import wrap_ids

    locs = Locations.under(tmp_path)
    # Ids that fit beside "stopped at" (100 columns): wrapped in their column, between ids.
    ids = ["exec-format-error", "shm-too-small", "apt-lock-held", "torch-npu-cann-mismatch"]
    StateStore(locs).save(StageRecord(stage_id="torch", status=StageStatus.FAILED, started=utcnow(),
                                      finished=utcnow(), exit_code=1, failed_step=FailedStep(index=1, title=LONG),
                                      remedies=ids))
    lines = _render(collect(locs), width=100)
    assert max(len(ln) for ln in lines) <= 100 and "known problems" in lines[1]
    at = next(i for i, ln in enumerate(lines) if ln.startswith("torch "))
    col = lines[at].index("exec-format-error")
    cells = [ln[col:].strip() for ln in lines[at:] if ln[col:].strip() and not ln[:col].strip()
             or ln is lines[at]]
    assert [w.rstrip(",") for c in cells for w in c.split()] == ids, cells
    # One id too long to sit beside "stopped at" at 80 columns: all ids listed under the table, whole.
    long_ids = ["exec-format-error", "visible-devices-out-of-range", "torch-npu-cann-mismatch", "shm-too-small"]
    StateStore(locs).save(StageRecord(stage_id="system-packages", status=StageStatus.FAILED, started=utcnow(),
                                      finished=utcnow(), exit_code=100, failed_step=FailedStep(index=1, title=LONG),
                                      remedies=long_ids))
    lines = _render(collect(locs))
    assert max(len(ln) for ln in lines) <= 80
    assert lines[1].split()[:3] == ["stage", "status", "finished"] and "known problems" not in lines[1]
    assert all(len(ln.split()) == 2 for ln in lines if ln.startswith(("cann ", "image ")))
    tail = " ".join(ln for ln in lines[lines.index(next(ln for ln in lines if ln.startswith("image "))) + 1:])
    assert "system-packages known problems: " + ", ".join(long_ids) in " ".join(tail.split())
    assert "torch known problems: " + ", ".join(ids) in " ".join(tail.split())
    words = {w.rstrip(",") for ln in lines for w in ln.split()}
    assert set(long_ids) <= words  # every id whole on one line
    # The wrapper itself.
    assert wrap_ids(long_ids, 30) == ("exec-format-error,\nvisible-devices-out-of-range,\n"
                                      "torch-npu-cann-mismatch,\nshm-too-small")
    assert wrap_ids(["a", "b", "c"], 5) == "a, b,\nc" and wrap_ids([], 10) == ""
    assert wrap_ids(["much-longer-than-width"], 5) == "much-longer-than-width"
