"""Shared helpers for the TUI tests: small stages whose steps are local commands, and a session on a temp folder."""

from __future__ import annotations

import contextlib
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageRecord, StageStatus, StateStore

#: A frozen clock for snapshots: 2025-01-01 12:00 UTC, in seconds since the epoch.
FROZEN_NOW = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc).timestamp()


def frozen_clock() -> float:
    """Always `FROZEN_NOW`: no moving time in a snapshot."""
    return FROZEN_NOW


def py(code: str) -> list[str]:
    """An argv running `code` with this Python (a local command every test machine has)."""
    return [sys.executable, "-c", code]


def quick_stage(stage_id: str = "hello", title: str = "Say hello", lines: int = 5) -> Stage:
    """A stage of two local commands that print `lines` lines and succeed."""
    return Stage(
        id=stage_id, title=title, description="Prints a few lines with the local Python.", where=Where.HOST,
        steps=lambda ctx: [
            Step("Print lines", argv=py(f"for i in range({lines}): print('line', i)")),
            Step("Say done", argv=py("print('all done')")),
        ],
    )


def failing_stage(stage_id: str = "broken", marker: Path | None = None) -> Stage:
    """A stage whose second step exits 3 after printing an error; with `marker`, it succeeds once the file exists."""
    code = (
        "import os, sys\n"
        f"ok = {str(marker)!r} != 'None' and os.path.exists({str(marker)!r})\n"
        "print('preparing', flush=True)\n"
        "if ok:\n    print('fixed')\n"
        "else:\n    print('ERROR: something broke', file=sys.stderr)\n"
        "sys.exit(0 if ok else 3)\n"
    )
    return Stage(
        id=stage_id, title="Break on purpose", description="Fails in its second step.", where=Where.HOST,
        steps=lambda ctx: [
            Step("Prepare", argv=py("print('ready')")),
            Step("Do the thing", argv=py(code)),
        ],
    )


def slow_stage(stage_id: str = "slow", seconds: float = 30) -> Stage:
    """A stage whose one step prints a line, then sleeps (for cancel tests)."""
    return Stage(
        id=stage_id, title="Take a while", description="Sleeps so it can be cancelled.", where=Where.HOST,
        steps=lambda ctx: [Step("Sleep", argv=py(f"import time; print('sleeping', flush=True); time.sleep({seconds})"))],
    )


def flood_stage(stage_id: str = "flood", lines: int = 200_000, min_seconds: float = 0.0) -> Stage:
    """A stage printing `lines` lines as fast as it can, then more until `min_seconds` have passed."""
    code = (f"import sys, time\nw=sys.stdout.write\nend=time.time()+{min_seconds}\n"
            f"for i in range({lines}): w('flood line %d of output\\n' % i)\n"
            "while time.time() < end:\n    w('more flood\\n' * 1000)\n")
    return Stage(id=stage_id, title="Flood", description="Prints a lot.", where=Where.HOST,
                 steps=lambda ctx: [Step("Flood", argv=py(code), timeout_s=120)])


def simple_session(base: Path, root: Path | None = None) -> Any:
    """A session-shaped object on `base` (state and config under it) for stages that need no recipe."""
    locations = Locations.under(base)
    host = LocalHost(root)
    return SimpleNamespace(
        locations=locations, store=StateStore(locations), host=host, demo=False,
        context=lambda: StageContext(recipe=None, host=host, locations=locations),  # type: ignore[arg-type]
    )


def save_record(store: StateStore, stage_id: str, status: StageStatus, **extra: Any) -> StageRecord:
    """Write a record with fixed times (an hour before `FROZEN_NOW`, 95 s long)."""
    started = datetime.fromtimestamp(FROZEN_NOW - 3600, tz=timezone.utc)
    finished = datetime.fromtimestamp(FROZEN_NOW - 3505, tz=timezone.utc)
    rec = StageRecord(stage_id=stage_id, status=status, started=started,
                      finished=None if status is StageStatus.RUNNING else finished, **extra)
    store.save(rec)
    return rec


async def wait_for(pilot: Any, predicate: Any, timeout: float = 15.0, what: str = "condition") -> None:
    """Pause the pilot until `predicate()` is true; fail the test after `timeout` seconds."""
    import time as _time

    deadline = _time.monotonic() + timeout
    while not predicate():
        if _time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.05)


async def start_stage(pilot: Any, app: Any) -> Any:
    """Press Enter on the home screen and return the `StageScreen` that opens."""
    from screens.stage import StageScreen

    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")
    return app.screen


def screen_text(app: Any) -> str:
    """The text of every Static on the current screen (Rich renderables printed without colour)."""
    from rich.console import Console

    import io

    console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
    for widget in app.screen.query("Static"):
        content = widget.content
        if isinstance(content, str):
            console.print(content, markup=False)
        elif content is not None and not hasattr(content, "plain") or hasattr(content, "__rich_console__"):
            console.print(content)
    return console.export_text()


def sim_session(base: Path, variant: str = "healthy") -> Any:
    """A real `wizard.session.Session` on a simulated host built under `base/host`, state under `base`.

    `tiny-shm` mounts a tmpfs at `base/host/dev/shm`: use `built_sim_session` (which unmounts it),
    or call `teardown_sim_host(base / "host")` in a `finally`.
    """
    from wizard.recipe import load_recipe
    from wizard.session import Session
    from wizard.simhost import build_sim_host

    root = build_sim_host(base / "host", variant)
    locations = Locations.under(base)
    return Session(locations=locations, recipe=load_recipe(locations), host=LocalHost(root), root=str(root))


@contextlib.contextmanager
def built_sim_session(base: Path, variant: str = "healthy") -> Iterator[Any]:
    """`sim_session(base, variant)` whose tmpfs mounts (tiny-shm) are undone when the block ends, however it ends."""
    from wizard.simhost import teardown_sim_host

    try:
        yield sim_session(base, variant)
    finally:
        teardown_sim_host(base / "host")


#: Case 27 (lerobot #2194), the four records verbatim, one per line as the case file splits them.
CASE27_RECORDS = [
    "INFO 2025-10-14 04:57:11 ot_train.py:299 step:10 smpl:320 ep:0 epch:0.00 loss:0.468 grdn:3.522 lr:1.6e-07 updt_s:4.906 data_s:4.874",
    "INFO 2025-10-14 04:57:59 ot_train.py:299 step:20 smpl:640 ep:0 epch:0.00 loss:0.467 grdn:3.936 lr:4.1e-07 updt_s:4.807 data_s:0.008",
    "INFO 2025-10-14 04:58:48 ot_train.py:299 step:30 smpl:960 ep:0 epch:0.01 loss:0.508 grdn:3.973 lr:6.6e-07 updt_s:4.815 data_s:0.009",
    "INFO 2025-10-14 04:59:36 ot_train.py:299 step:40 smpl:1K ep:1 epch:0.01 loss:0.513 grdn:3.805 lr:9.1e-07 updt_s:4.841 data_s:0.009",
]
#: What lerobot prints before the records (formats of `wizard.training.logparse`; 30000 and 8 x 16 are ours).
TRAIN_PRELUDE = ["INFO cfg.steps=30000 (30K)", "Effective batch size: 8 x 16 = 128"]


def train_stage(wait_for_file: Path | None = None, split_after: int = 2) -> Stage:
    """A `metrics=True` stage named "train" whose one `sh` step prints `TRAIN_PRELUDE` and case 27's records.

    With `wait_for_file`, it prints the prelude and the first `split_after` records, waits (at most
    20 s) until that file exists, then prints the rest: tests look at the panel mid-run.
    """
    def quoted(lines: list[str]) -> str:
        return " ".join("'" + ln + "'" for ln in lines)  # the lines hold no single quote

    first = TRAIN_PRELUDE + CASE27_RECORDS[:split_after]
    script = f"printf '%s\\n' {quoted(first)}; "
    if wait_for_file is not None:
        script += f"i=0; while [ ! -e \"$1\" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; "
    script += f"printf '%s\\n' {quoted(CASE27_RECORDS[split_after:])}"
    argv = ["sh", "-c", script, "sh", str(wait_for_file or "")]
    return Stage(id="train", title="Training", description="Prints lerobot training lines (case 27).",
                 where=Where.HOST, metrics=True, steps=lambda ctx: [Step("Train", argv=argv, timeout_s=60)])


def recipe_session(base: Path) -> Any:
    """`simple_session` with the shipped recipe loaded (for the reference throughput), still on the local host."""
    from wizard.recipe import load_recipe

    session = simple_session(base)
    session.recipe = load_recipe(session.locations)
    return session


def visible_lines(app: Any) -> list[str]:
    """The screen exactly as the terminal shows it, one string per row (what is scrolled away is absent)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def dependent_stage(stage_id: str, title: str, needs: tuple[str, ...]) -> Stage:
    """`quick_stage` that declares `depends_on=needs` (for the readiness gate)."""
    base = quick_stage(stage_id, title, lines=2)
    return Stage(id=base.id, title=base.title, description=base.description, where=base.where, steps=base.steps,
                 depends_on=needs)


def hub_failure_stage() -> Stage:
    """A stage failing like the field report's push_to_hub step (RECIPE.md, stage 8): the catalogue matches it."""
    line = ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
            "'namespace/repo_name': '/data/koch_test'")
    code = (f"import sys\nfor i in range(40): print('computing quantiles for episode', i)\n"
            f"print({line!r}, file=sys.stderr); sys.exit(1)")
    return Stage(id="dataset", title="Quantiles", description="Fails like the report.", where=Where.HOST,
                 steps=lambda ctx: [Step("Check the dataset", argv=py("print('ok')")),
                                    Step("Quantile stats", argv=py(code))])
