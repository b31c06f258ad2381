"""Provides `MetricsRecorder`: keeps a small training-progress file beside a stage's record.

The runner adds one for stages declared with `metrics=True` (the `train` stage). It feeds every
line to a `TrainingMetrics` sink (lerobot's `step:... loss:...` records, case 27) and writes
`<stages_dir>/<stage id>.metrics.json` atomically at most every `interval_s` seconds while the
stage runs and once when it ends, so `pi05-wizard status` in another terminal shows the progress
of a run that lasts hours. The file is bounded: scalars, the last checkpoints and problems only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from wizard.events import Line, Sink
from wizard.state import atomic_write_text
from wizard.training.metrics import MetricsSnapshot, TrainingMetrics

#: How many checkpoint steps and problem sentences the file keeps at most.
MAX_ITEMS = 10


def metrics_path(stages_dir: Path, stage_id: str) -> Path:
    """Where a stage's progress file lives: beside its record, `<stages_dir>/<id>.metrics.json`."""
    return Path(stages_dir) / f"{stage_id}.metrics.json"


def snapshot_dict(snap: MetricsSnapshot, updated: float | None = None) -> dict[str, Any]:
    """The persisted shape (ours): step, total_steps, fraction, loss, first_loss, grdn, lr,
    samples_per_s, global_batch, world_size, records, checkpoints (last 10), ended, problems (last 10),
    updated (Unix seconds)."""
    return {
        "step": snap.step, "total_steps": snap.total_steps, "fraction": snap.fraction,
        "loss": snap.loss, "first_loss": snap.first_loss, "grdn": snap.grdn, "lr": snap.lr,
        "samples_per_s": snap.samples_per_s, "global_batch": snap.global_batch, "world_size": snap.world_size,
        "records": snap.records, "checkpoints": list(snap.checkpoints[-MAX_ITEMS:]), "ended": snap.ended,
        "problems": [str(p)[:300] for p in snap.problems[-MAX_ITEMS:]],
        "updated": time.time() if updated is None else updated,
    }


def read_metrics(stages_dir: Path, stage_id: str) -> dict[str, Any] | None:
    """The last progress file of a stage, or None when absent or unreadable (never raises)."""
    try:
        data = json.loads(metrics_path(stages_dir, stage_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def progress_text(data: dict[str, Any]) -> str:
    """One line for `status`: `step 40 / 30000 (0.1 %), loss 0.513, 6.6 samples/s`.

    Only the figures present are shown; "no metrics lines yet" when there are none.
    """
    parts = []
    step, total = data.get("step"), data.get("total_steps")
    if isinstance(step, (int, float)):
        s = f"step {step:g}" + (f" / {total}" if isinstance(total, int) and total > 0 else "")
        frac = data.get("fraction")
        if isinstance(frac, (int, float)):
            s += f" ({frac * 100:.1f} %)"
        parts.append(s)
    if isinstance(data.get("loss"), (int, float)):
        parts.append(f"loss {data['loss']:.4g}")
    if isinstance(data.get("samples_per_s"), (int, float)):
        parts.append(f"{data['samples_per_s']:.1f} samples/s")
    if data.get("ended"):
        parts.append("ended")
    return ", ".join(parts) if parts else "no metrics lines yet"


class MetricsRecorder(Sink):
    """A sink that parses training lines and persists a bounded snapshot (see the module doc).

    Args:
        path: the progress file.
        metrics: the parser to feed (a new `TrainingMetrics` when None; pass the UI's to share it).
        interval_s: least seconds between writes while running.
    """

    def __init__(self, path: Path, metrics: TrainingMetrics | None = None, interval_s: float = 5.0):
        self.path = Path(path)
        self.metrics = metrics if metrics is not None else TrainingMetrics()
        self._own = metrics is None
        self.interval_s = interval_s
        self._last_write = 0.0
        self._seen = 0

    def stage_started(self, stage_id: str, steps) -> None:
        """A new run: the previous run's file is replaced by an empty snapshot."""
        if self._own:
            self.metrics.stage_started(stage_id, steps)
        self._write()

    def line(self, line: Line) -> None:
        """Feed the parser; write the file when records arrived and `interval_s` has passed."""
        if self._own:
            self.metrics.line(line)
        snap_records = self.metrics.snapshot().records if time.monotonic() - self._last_write >= self.interval_s else None
        if snap_records is not None and snap_records != self._seen:
            self._write()

    def stage_finished(self, stage_id: str, status: str) -> None:
        """The final snapshot of this run."""
        self._write()

    def _write(self) -> None:
        snap = self.metrics.snapshot()
        self._seen = snap.records
        self._last_write = time.monotonic()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(snapshot_dict(snap), indent=1))
        except OSError:
            pass  # progress is a convenience: a full disk must not fail the training stage
