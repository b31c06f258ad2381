"""Provides `LogViewer`: the tail of a stage's log file in a bounded, scrollable view."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Log, Static

#: Bytes read from the end of a log file; older output stays in the file.
TAIL_BYTES = 512 * 1024


def read_tail(path: Path, max_bytes: int = TAIL_BYTES) -> tuple[list[str], bool]:
    """The last lines of a file (at most `max_bytes`), decoded with errors="replace".

    Returns:
        (lines, truncated): truncated is True when the file is longer than `max_bytes`.

    Raises:
        OSError: when the file cannot be read.
    """
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - max_bytes))
        data = fh.read()
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > max_bytes and lines:
        lines = lines[1:]  # the first line is probably cut in half
    return lines, size > max_bytes


class LogViewer(ModalScreen[None]):
    """Shows the last lines of a log file (Esc / q closes). A missing file is said plainly."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, path: Path | None) -> None:
        super().__init__()
        self.title_text, self.path = title, path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide tall") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Esc close"
            yield Static(id="log-note", classes="dim")
            yield Log(max_lines=20000, highlight=False, id="log-view")
        yield Footer()

    def on_mount(self) -> None:
        note = self.query_one("#log-note", Static)
        if self.path is None:
            note.update("This stage has not run yet: there is no log.")
            return
        try:
            lines, truncated = read_tail(Path(self.path))
        except OSError as exc:
            note.update(f"The log cannot be read: {exc.strerror or exc}")
            return
        note.update(f"{self.path}" + ("  (only the end is shown)" if truncated else ""))
        self.query_one("#log-view", Log).write_lines(lines)

    def action_close(self) -> None:
        self.dismiss(None)
