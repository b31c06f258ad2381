"""Provides `CheckRow`: one preflight check in a list, a spinner until its result arrives, then ✓ ! ✗ – ?."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import ListItem, Static

from screens.widgets.status import CHECK_STYLE

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class CheckRow(ListItem):
    """A row of the preflight list.

    Attributes:
        check_id: the check's stable id (the row's DOM id is `check-<id>`).
        title: the check's human title.
        result: the `CheckResult`, or None while the check is running.
    """

    DEFAULT_CSS = """
    CheckRow { height: 1; padding: 0 1; }
    CheckRow > Static { height: 1; }
    """

    result: reactive[Any] = reactive(None, layout=False)
    frame: reactive[int] = reactive(0)

    def __init__(self, check_id: str, title: str, **kwargs: Any) -> None:
        super().__init__(Static(), id=f"check-{check_id}", **kwargs)
        self.check_id = check_id
        self.title = title

    def on_mount(self) -> None:
        self._paint()

    def watch_result(self) -> None:
        self._paint()

    def watch_frame(self) -> None:
        if self.result is None:
            self._paint()

    @property
    def mark(self) -> str:
        """The mark now shown: a spinner frame while running, else the status mark."""
        if self.result is None:
            return _SPINNER[self.frame % len(_SPINNER)]
        return self.result.status.mark

    def _paint(self) -> None:
        if not self.is_mounted:
            return
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(width=1)
        grid.add_column(width=24, no_wrap=True, overflow="ellipsis")
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        if self.result is None:
            grid.add_row(Text(self.mark, style="cyan"), Text(self.title), Text("checking…", style="dim"))
        else:
            style = CHECK_STYLE.get(self.result.status.value, "")
            grid.add_row(Text(self.mark, style=style), Text(self.title), Text(self.result.summary, style="dim"))
        self.query_one(Static).update(grid)
