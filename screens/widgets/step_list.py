"""Provides `StepList`: a stage's steps with the current one highlighted and the time each took."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from screens.widgets.status import format_duration

#: mark and style per step state.
_STEP_LOOK = {
    "waiting": ("·", "dim"),
    "running": ("▶", "bold reverse"),
    "ok": ("✓", "green"),
    "failed": ("✗", "bold red"),
    "skipped": ("–", "dim"),
    "cancelled": ("■", "yellow"),
}


@dataclass
class StepRow:
    """What the list knows about one step.

    Attributes:
        title: the step's title.
        state: waiting, running, ok, failed, skipped or cancelled.
        started: clock time the step started (seconds), or None.
        finished: clock time it ended (seconds), or None while running.
        note: a short reason shown after a failed step (exit code, timeout).
    """

    title: str
    state: str = "waiting"
    started: float | None = None
    finished: float | None = None
    note: str = ""


class StepList(Static):
    """The ordered steps of one run. Refreshes itself twice a second while a step runs (elapsed time)."""

    DEFAULT_CSS = """
    StepList { height: auto; max-height: 12; padding: 0 1; border: round $panel; }
    """

    def __init__(self, clock: Callable[[], float], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._clock = clock
        self.rows: list[StepRow] = []

    def on_mount(self) -> None:
        self.border_title = "Steps"
        self.set_interval(0.5, self._tick)

    def set_steps(self, titles: list[str]) -> None:
        """Start over with these step titles, all waiting."""
        self.rows = [StepRow(t) for t in titles]
        self.redraw()

    def mark(self, index: int, state: str, note: str = "") -> None:
        """Move step `index` to `state` (running sets its start time; any other ends it)."""
        if not 0 <= index < len(self.rows):
            return
        row = self.rows[index]
        now = self._clock()
        if state == "running":
            row.started, row.finished = now, None
        elif row.started is not None and row.finished is None:
            row.finished = now
        row.state, row.note = state, note
        self.redraw()

    @property
    def current(self) -> int | None:
        """Index of the running step, or None."""
        for i, row in enumerate(self.rows):
            if row.state == "running":
                return i
        return None

    def _tick(self) -> None:
        if self.current is not None:
            self.redraw()

    def redraw(self) -> None:
        """Re-render the table from `rows`."""
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=1)
        table.add_column(justify="right", width=7)
        now = self._clock()
        for i, row in enumerate(self.rows, start=1):
            mark, style = _STEP_LOOK.get(row.state, ("?", ""))
            elapsed = None
            if row.started is not None:
                elapsed = (row.finished if row.finished is not None else now) - row.started
            title = Text(f"{i}. {row.title}", style=style if row.state == "running" else "")
            if row.note:
                title.append(f"  {row.note}", style="red")
            table.add_row(Text(mark, style=style), title, Text(format_duration(elapsed), style="dim"))
        self.update(table)
