"""Provides `TrainingMetrics`: a runner sink that follows a training job's progress and health.

Bounded by design (STYLE.md, live metrics): it keeps the last `history` records in a deque and a
handful of running figures, whatever the length of the run.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass

from wizard.events import Line, Sink
from wizard.training.logparse import TrainEvent, TrainRecord, parse_line

#: After this many records, data_s above this share of updt_s flags a data-loading bottleneck.
DATA_BOUND_RATIO = 0.5
WARMUP_RECORDS = 2


@dataclass(frozen=True)
class MetricsSnapshot:
    """What the training screen and `status` show, copied out under the sink's lock.

    Attributes:
        step: last step seen (approximate when lerobot rounded it); None before the first record.
        total_steps: from `cfg.steps=...`, None until seen.
        loss, grdn, lr: from the last record.
        first_loss: loss of the first record (to show whether it falls).
        samples_per_s: global batch / (updt_s + data_s) of the last record; None until the batch size is known.
        global_batch: from `Effective batch size: B x N = G`.
        world_size: N from that same line.
        records: number of metrics records seen.
        recent: the last records (oldest first), at most the sink's history.
        checkpoints: steps at which a checkpoint was written.
        ended: `End of training` seen.
        problems: plain sentences (non-finite loss, data-loading bound).
    """

    step: float | None
    total_steps: int | None
    loss: float | None
    grdn: float | None
    lr: float | None
    first_loss: float | None
    samples_per_s: float | None
    global_batch: int | None
    world_size: int | None
    records: int
    recent: tuple[TrainRecord, ...]
    checkpoints: tuple[int, ...]
    ended: bool
    problems: tuple[str, ...]

    @property
    def fraction(self) -> float | None:
        """Progress in [0, 1], or None when the total is unknown."""
        if self.step is None or not self.total_steps:
            return None
        return max(0.0, min(1.0, self.step / self.total_steps))


class TrainingMetrics(Sink):
    """Sink that parses every line for lerobot metrics; thread-safe `snapshot()` for readers.

    Args:
        history: how many records to keep for charts (older ones are dropped).
    """

    def __init__(self, history: int = 500) -> None:
        self._lock = threading.Lock()
        self._recent: deque[TrainRecord] = deque(maxlen=history)
        self._records = 0
        self._first_loss: float | None = None
        self._total_steps: int | None = None
        self._global_batch: int | None = None
        self._world_size: int | None = None
        self._checkpoints: deque[int] = deque(maxlen=100)
        self._ended = False
        self._problems: dict[str, str] = {}

    def line(self, line: Line) -> None:
        """Parse one line (cheap reject first: most lines carry no metrics).

        The wizard's own lines (stream "wizard": the `$ command` echo, verdicts) are not the
        program's output and are skipped, as the remedy matcher does.
        """
        if line.stream == "wizard":
            return
        text = line.text
        if not any(k in text for k in ("step", "cfg.", "dataset.", "Effective", "End of")):
            return
        for item in parse_line(text):
            with self._lock:
                if isinstance(item, TrainRecord):
                    self._add_record(item)
                else:
                    self._add_event(item)

    def _add_record(self, rec: TrainRecord) -> None:
        self._records += 1
        self._recent.append(rec)
        if self._first_loss is None and rec.loss is not None:
            self._first_loss = rec.loss
        if not rec.finite:
            self._problems["nonfinite"] = (
                f"Loss or gradient norm is not finite at step {rec.step.text}: training has diverged; "
                "lower the learning rate or check the dataset statistics.")
        if (self._records > WARMUP_RECORDS and rec.updt_s and rec.data_s is not None
                and rec.data_s > DATA_BOUND_RATIO * rec.updt_s):
            self._problems["data-bound"] = (
                f"Waiting for data takes {rec.data_s:.2f} s per step against {rec.updt_s:.2f} s of compute: "
                "the data loader is the bottleneck (raise num_workers or /dev/shm).")
        else:
            self._problems.pop("data-bound", None)

    def _add_event(self, ev: TrainEvent) -> None:
        if ev.kind == "total_steps":
            self._total_steps = ev.value
        elif ev.kind == "effective_batch":
            self._global_batch = ev.value
            self._world_size = ev.detail[1] if len(ev.detail) == 2 else None
        elif ev.kind == "checkpoint":
            self._checkpoints.append(ev.value)
        elif ev.kind == "end":
            self._ended = True

    def snapshot(self) -> MetricsSnapshot:
        """A consistent copy of the current figures."""
        with self._lock:
            last = self._recent[-1] if self._recent else None
            sps = None
            if last is not None and self._global_batch and last.updt_s is not None:
                per_step = last.updt_s + (last.data_s or 0.0)
                if per_step > 0 and math.isfinite(per_step):
                    sps = self._global_batch / per_step
            if last is not None and sps is None and "smp/s" in last.extra:
                sps = last.extra["smp/s"]
            return MetricsSnapshot(
                step=last.step.value if last else None, total_steps=self._total_steps,
                loss=last.loss if last else None, grdn=last.grdn if last else None,
                lr=last.lr if last else None, first_loss=self._first_loss, samples_per_s=sps,
                global_batch=self._global_batch, world_size=self._world_size, records=self._records,
                recent=tuple(self._recent), checkpoints=tuple(self._checkpoints), ended=self._ended,
                problems=tuple(self._problems.values()),
            )
