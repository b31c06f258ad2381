"""Provides `StageList`: the stage pipeline as a table with status, last run and duration."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.text import Text
from textual.widgets import DataTable

from screens.widgets.status import STATUS_LOOK, STATUS_STYLE, as_epoch, format_ago, format_duration, status_value


class StageList(DataTable):
    """One row per stage, in pipeline order; the row key is the stage id.

    Call `show(stages, records)` whenever the persisted state may have changed; the cursor stays
    on the same stage.
    """

    DEFAULT_CSS = """
    StageList { height: auto; max-height: 100%; }
    """

    def __init__(self, clock: Callable[[], float], **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self._clock = clock

    def on_mount(self) -> None:
        self.add_column(" ", key="mark", width=1)
        self.add_column("Stage", key="title")
        self.add_column("Status", key="status", width=11)
        self.add_column("Last run", key="last", width=10)
        self.add_column("Took", key="took", width=6)

    def show(self, stages: Sequence[Any], records: Mapping[str, Any]) -> None:
        """Fill (or refill) the table from stages and their last records (`StageRecord` or None)."""
        keep = self.selected_stage_id
        self.clear()
        now = self._clock()
        for number, stage in enumerate(stages, start=1):
            rec = records.get(stage.id)
            value = status_value(getattr(rec, "status", None))
            mark, word = STATUS_LOOK.get(value, ("?", value))
            style = STATUS_STYLE.get(value, "")
            started = as_epoch(getattr(rec, "started", None))
            finished = as_epoch(getattr(rec, "finished", None))
            took = finished - started if started is not None and finished is not None else None
            self.add_row(
                Text(mark, style=style),
                Text(f"{number:>2}. {stage.title}", overflow="ellipsis", no_wrap=True),
                Text(word, style=style),
                Text(format_ago(finished or started, now), style="dim"),
                Text(format_duration(took), style="dim"),
                key=stage.id,
            )
        if keep is not None:
            self.select_stage(keep)

    @property
    def selected_stage_id(self) -> str | None:
        """The stage id under the cursor, or None when the table is empty."""
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:  # the cursor may point past a just-cleared table
            return None

    def select_stage(self, stage_id: str) -> None:
        """Move the cursor to a stage's row (no-op for an unknown id)."""
        try:
            self.move_cursor(row=self.get_row_index(stage_id))
        except Exception:  # RowDoesNotExist: unknown id
            pass
