"""Provides what the runner hands out while a stage runs: `Line`s and the `Sink` that receives them.

Sinks are the one way output leaves the runner: the stage log file, the console, the UI, the
remedy matcher and the training-metrics parser are all sinks. The runner calls them from its
own thread; a UI sink must hop to the UI thread itself (`App.call_from_thread` / `post_message`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pragma: no cover
    from wizard.stages.base import Step

StreamName = Literal["stdout", "stderr", "wizard"]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of output, as it arrived.

    Attributes:
        text: the line without its trailing newline. A `\\r` progress update arrives as its own
            Line with `progress=True` (the text after the last `\\r`), so bars never garble a log.
        stream: "stdout", "stderr", or "wizard" for lines the wizard itself writes (headers, verdicts).
        time: `time.time()` when the line was read, in seconds since the epoch.
        step: index of the step that printed it (0-based), -1 for stage-level lines.
        progress: True for a carriage-return progress update (pip, wget, docker pull).
    """

    text: str
    stream: StreamName = "stdout"
    time: float = 0.0
    step: int = -1
    progress: bool = False


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """How one step ended.

    Attributes:
        exit_code: the process exit code (None when killed on timeout or cancel, or never started).
        duration_s: wall time in seconds.
        timed_out: killed because it outlived its timeout.
        cancelled: killed because the operator cancelled.
        skipped: not run (e.g. its own `done` probe said so).
        error: a one-line reason when the step could not start or an action step raised.
    """

    exit_code: int | None
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    skipped: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the step succeeded or was skipped."""
        return self.skipped or (self.exit_code == 0 and not self.timed_out and not self.cancelled)


class Sink:
    """Receives a stage run's events. Every method is a no-op here; override what you need.

    Methods are called from the runner's thread, in order, never concurrently for one sink.
    """

    def stage_started(self, stage_id: str, steps: "list[Step]") -> None:
        """The stage begins; `steps` is the ordered step list that will run."""

    def step_started(self, index: int, step: "Step") -> None:
        """Step `index` begins."""

    def line(self, line: Line) -> None:
        """One line of output arrived (hot path: keep it cheap)."""

    def step_finished(self, index: int, step: "Step", outcome: StepOutcome) -> None:
        """Step `index` ended."""

    def stage_finished(self, stage_id: str, status: str) -> None:
        """The stage ended with a `StageStatus` value ("succeeded", "failed", ...)."""

    def close(self) -> None:
        """Release files; called once, after `stage_finished`."""
