"""Provides `LogViewer`: the tail of a stage's log file in a bounded, scrollable view."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Log, Static

from screens.widgets.stage_log import wrap_lines

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


SCROLL_WRAPPED = "w no wrap · ↑↓ PgUp PgDn scroll · Esc close"
SCROLL_UNWRAPPED = "w wrap · ↑↓ scroll · ←→ scroll sideways · Esc close"


class LogViewer(ModalScreen[None]):
    """Shows the last lines of a log file (Esc / q closes). A missing file is said plainly.

    Long lines wrap at the view's width (the error is often at the end of one); `w` turns wrapping
    off and on (off: ← → scroll sideways). The border's subtitle says which keys scroll.
    """

    BINDINGS = [Binding("escape,q", "close", "Close"), Binding("w", "toggle_wrap", "Wrap on/off")]

    def __init__(self, title: str, path: Path | None) -> None:
        super().__init__()
        self.title_text, self.path = title, path
        self.wrap = True
        self.lines: list[str] = []
        self._width = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide tall") as box:
            box.border_title = self.title_text
            box.border_subtitle = SCROLL_WRAPPED
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
        self.lines = lines
        self.call_after_refresh(self._show)

    def _show(self) -> None:
        """(Re)write the lines, wrapped at the view's current width when `wrap` is on."""
        view = self.query_one("#log-view", Log)
        self._width = view.scrollable_content_region.width
        view.clear()
        view.write_lines(wrap_lines(self.lines, self._width) if self.wrap else self.lines)
        self.query_one(Vertical).border_subtitle = SCROLL_WRAPPED if self.wrap else SCROLL_UNWRAPPED

    def on_resize(self) -> None:
        if self.wrap and self.lines:
            self.call_after_refresh(self._rewrap_if_resized)

    def _rewrap_if_resized(self) -> None:
        if self.query_one("#log-view", Log).scrollable_content_region.width != self._width:
            self._show()

    def action_toggle_wrap(self) -> None:
        """Wrap long lines, or show them whole with ← → to scroll sideways."""
        self.wrap = not self.wrap
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)
