"""Shared helpers for the TUI tests: small stages whose steps are local commands, and a session on a temp folder."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

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
    """A real `wizard.session.Session` on a simulated host built under `base/host`, state under `base`."""
    from wizard.recipe import load_recipe
    from wizard.session import Session
    from wizard.simhost import build_sim_host

    root = build_sim_host(base / "host", variant)
    locations = Locations.under(base)
    return Session(locations=locations, recipe=load_recipe(locations), host=LocalHost(root), root=str(root))
