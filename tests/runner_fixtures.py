"""Helpers for the runner tests: a collecting sink, ad-hoc stages, and child-process argv builders."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from wizard.events import Line, Sink
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageRecord, StateStore


class Collect(Sink):
    """Keeps every event and line it is handed (per-line path)."""

    def __init__(self):
        self.lines: list[Line] = []
        self.events: list[tuple] = []

    def stage_started(self, stage_id, steps):
        self.events.append(("stage_started", stage_id, len(steps)))

    def step_started(self, index, step):
        self.events.append(("step_started", index))

    def line(self, line):
        self.lines.append(line)

    def step_finished(self, index, step, outcome):
        self.events.append(("step_finished", index, outcome))

    def stage_finished(self, stage_id, status):
        self.events.append(("stage_finished", stage_id, status))

    def close(self):
        self.events.append(("close",))

    def texts(self, stream: str, progress: bool = False) -> list[str]:
        return [ln.text for ln in self.lines if ln.stream == stream and ln.progress == progress]


def py(code: str, timeout_s: float | None = 60.0, title: str = "python child") -> Step:
    """A step running `python -c code`."""
    return Step(title, argv=[sys.executable, "-c", code], timeout_s=timeout_s)


def stage(*steps: Step, sid: str = "demo", done=None, verify=None) -> Stage:
    kw = {}
    if done is not None:
        kw["done"] = done
    if verify is not None:
        kw["verify"] = verify
    return Stage(id=sid, title=f"Stage {sid}", description="a test stage", where=Where.HOST,
                 steps=lambda ctx: list(steps), **kw)


def run(tmp: Path, st: Stage, sinks=(), cancel: threading.Event | None = None, force=False,
        grace_s: float = 5.0) -> tuple[StageRecord, StateStore]:
    loc = Locations.under(tmp)
    store = StateStore(loc)
    ctx = StageContext(recipe=None, host=LocalHost(), locations=loc)  # type: ignore[arg-type]
    rec = run_stage(st, ctx, list(sinks), cancel or threading.Event(), store, force=force, grace_s=grace_s)
    return rec, store


def pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return False
    return True
