"""Provides the live stage output: `LineBuffer` (thread-safe, bounded) and `StageLog` (a bounded Log fed in batches).

The runner's thread appends to the buffer (cheap: one deque append per line); the UI drains it on
a timer every `StageLog.FLUSH_S` seconds and writes the whole batch at once. So a stage printing
tens of thousands of lines per second costs the UI one `write_lines` call per tick, never one
message per line, and both the buffer and the widget are bounded. The full output stays in the
stage's log file (written by the runner).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.cells import cell_len, chop_cells
from textual.widgets import Log

from wizard.events import Line


class LineBuffer:
    """A bounded, thread-safe hand-over of output lines from the runner thread to the UI.

    `deque.append` and `deque.popleft` are atomic in CPython, so one producer thread and the UI
    thread need no lock. When the UI falls behind by more than `maxlen` lines the oldest are
    dropped and counted (`dropped`).

    Attributes:
        tail: the last `tail_len` lines ever pushed (for the failure view's "last lines").
    """

    def __init__(self, maxlen: int = 5000, tail_len: int = 30) -> None:
        self._lines: deque[Line] = deque(maxlen=maxlen)
        self.tail: deque[Line] = deque(maxlen=tail_len)
        self._pushed = 0
        self._taken = 0

    def push(self, line: Line) -> None:
        """Called from the producer thread for every line."""
        self._lines.append(line)
        self.tail.append(line)
        self._pushed += 1

    def push_batch(self, texts: list[str], stream: str, time: float, step: int, progress: bool) -> None:
        """Called from the producer thread with one chunk's lines (the runner's batch path)."""
        lines = [Line(t, stream, time, step, progress) for t in texts]  # type: ignore[arg-type]
        self._lines.extend(lines)
        self.tail.extend(lines[-self.tail.maxlen:] if self.tail.maxlen else lines)
        self._pushed += len(lines)

    def clear(self) -> None:
        """Forget everything (a re-run starts a fresh view)."""
        while True:
            try:
                self._lines.popleft()
            except IndexError:
                break
        self.tail.clear()
        self._pushed = self._taken = 0

    def drain(self, limit: int = 4000) -> tuple[list[Line], int]:
        """Take up to `limit` lines (UI thread). Returns (lines, lines dropped since the last drain)."""
        out: list[Line] = []
        pop = self._lines.popleft
        try:
            for _ in range(limit):
                out.append(pop())
        except IndexError:
            pass
        self._taken += len(out)
        dropped = self._pushed - self._taken - len(self._lines)
        if dropped > 0:
            self._taken += dropped
        return out, max(dropped, 0)

    def __len__(self) -> int:
        return len(self._lines)


def render_line(line: Line) -> str:
    """How one line reads in the live log: wizard lines get `» `, stderr lines `! `."""
    if line.stream == "wizard":
        return f"» {line.text}"
    if line.stream == "stderr":
        return f"! {line.text}"
    return line.text


def wrap_lines(texts: list[str], width: int) -> list[str]:
    """`texts` with every line wider than `width` cells cut into rows of at most `width` cells.

    Textual's `Log` never wraps: a long line (often the error itself) would run off the right edge.
    Lines that fit are passed through untouched (the common, cheap case); `width` < 10 (not laid
    out yet) returns `texts` as they are.
    """
    if width < 10:
        return texts
    out: list[str] = []
    for text in texts:
        if len(text) <= width // 2 or cell_len(text) <= width:
            out.append(text)
        else:
            out.extend(chop_cells(text, width))
    return out


class StageLog(Log):
    """The live output of a stage: a Log bounded to `max_lines`, fed from a `LineBuffer` on a timer."""

    FLUSH_S = 0.08
    """Seconds between two batched writes (about 12 per second: fluid, and cheap)."""

    DEFAULT_CSS = """
    StageLog { height: 1fr; border: round $panel; }
    StageLog:focus { border: round $accent; }
    """

    def __init__(self, buffer: LineBuffer, max_lines: int = 2000, **kwargs: Any) -> None:
        super().__init__(max_lines=max_lines, highlight=False, auto_scroll=True, **kwargs)
        self.buffer = buffer

    def on_mount(self) -> None:
        self.set_interval(self.FLUSH_S, self.flush)

    def flush(self) -> int:
        """Move what the buffer holds into the widget in one write; returns how many lines moved."""
        lines, dropped = self.buffer.drain()
        if not lines and not dropped:
            return 0
        moved = len(lines)
        cap = self.max_lines or len(lines)
        if len(lines) > cap:  # only the newest `max_lines` could stay visible anyway
            dropped += len(lines) - cap
            lines = lines[-cap:]
        texts: list[str] = []
        if dropped:
            texts.append(f"… {dropped} lines not shown here (they are in the log file)")
        for i, line in enumerate(lines):
            # Collapse a run of progress updates to its last state: bars must not flood the view.
            if line.progress and i + 1 < len(lines) and lines[i + 1].progress:
                continue
            texts.append(render_line(line))
        texts = wrap_lines(texts, self.scrollable_content_region.width)  # long lines wrap at the current width
        pruned = self.max_lines is not None and self.line_count + len(texts) > self.max_lines
        self.write_lines(texts)
        if pruned:
            # Textual's Log keeps rendered lines cached by row number and, once it drops old lines,
            # can keep showing stale rows (seen in a real terminal: the view froze mid-flood while
            # the widget held the newest lines). Drop the whole cache after a prune.
            self.refresh_lines(0, self.line_count)
        return moved
