"""Provides the sinks the runner ships with: `LogFileSink`, `ConsoleSink`, and the `LineMatcher` base.

Besides the per-line `Sink.line(Line)`, a sink may define the batch method
`line_batch(texts, stream, time, step, progress)`: the runner then hands it a whole chunk's
lines at once as plain strings (all read at the same `time`), which is what lets a million
lines a second through without building a million `Line` objects. Sinks without it get `Line`s, and so does a subclass that overrides `line()` below the class
that defines `line_batch()` (see `uses_batches`).
"""

from __future__ import annotations

import os
import re
import time as time_mod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Pattern

from wizard.events import Line, Sink, StepOutcome

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from wizard.stages.base import Step

#: The stream tags written in log files (4 columns; `~` marks a progress update).
_TAGS = {("stdout", False): "out ", ("stderr", False): "err ", ("wizard", False): "wiz ",
         ("stdout", True): "out~", ("stderr", True): "err~", ("wizard", True): "wiz~"}


def format_time(t: float) -> str:
    """Local time as `YYYY-MM-DDTHH:MM:SS.mmm` (what log files show)."""
    return time_mod.strftime("%Y-%m-%dT%H:%M:%S", time_mod.localtime(t)) + f".{int(t * 1000) % 1000:03d}"


def uses_batches(sink: Sink) -> bool:
    """True when the runner should call `sink.line_batch(...)` instead of `sink.line(Line)`.

    That is when the sink has `line_batch` and its `line` is not overridden by a more derived
    class than the one defining `line_batch` (such a subclass expects every line through `line`).
    """
    cls = type(sink)
    if not callable(getattr(cls, "line_batch", None)):
        return False
    mro = cls.__mro__
    batch_owner = next(i for i, c in enumerate(mro) if "line_batch" in vars(c))
    line_owner = next((i for i, c in enumerate(mro) if "line" in vars(c)), len(mro))
    return batch_owner <= line_owner


def _write_all(fd: int, parts: list[bytes]) -> None:
    """Write `parts` in order with one `writev` (finishing a short write, which a signal can cause)."""
    done = os.writev(fd, parts)
    total = sum(map(len, parts))
    if done < total:
        rest = memoryview(b"".join(parts))[done:]
        while rest:
            rest = rest[os.write(fd, rest):]


class LogFileSink(Sink):
    """Writes a run's lines to its log file: `<timestamp> <tag> <text>` per line.

    Tags: `out `, `err `, `wiz ` (the runner's own headers and verdicts); `out~`/`err~` for
    progress updates. Progress updates are rate-limited: at most one per stream every
    `progress_interval_s` seconds is written, and the last state of a burst is always written
    before the next normal line of that stream and at the end of the step, so a pip bar that
    redraws 10,000 times leaves a handful of lines, not megabytes.

    Each batch is formatted with one join (its timestamp and tag computed once) and written
    with one `os.writev` to the unbuffered file, so `logs --follow` sees lines as they come.
    Text is written as UTF-8 (a lone surrogate becomes `?`).

    Args:
        path: the log file (created with its folder; appended to if it exists).
        progress_interval_s: minimum seconds between two written progress lines of a stream.

    Raises:
        OSError: when the file cannot be opened.
    """

    def __init__(self, path: str | Path, progress_interval_s: float = 1.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab", buffering=0)
        self._interval = progress_interval_s
        self._last_progress_write: dict[str, float] = {}
        self._held: dict[str, tuple[str, float]] = {}  # stream -> (last unwritten update, time)
        self._stamp_t = -1.0
        self._stamp = ""

    def _prefix(self, t: float) -> str:
        if t != self._stamp_t:  # one strftime per batch, not per line
            self._stamp_t, self._stamp = t, format_time(t)
        return self._stamp

    def line(self, line: Line) -> None:
        """Write one line (see `line_batch`)."""
        self.line_batch([line.text], line.stream, line.time, line.step, line.progress)

    def line_batch(self, texts: list[str], stream: str, time: float, step: int, progress: bool) -> None:
        """Write a batch of lines that arrived together on one stream."""
        if self._fh is None or not texts:
            return
        if progress:
            last = self._last_progress_write.get(stream, 0.0)
            if time - last < self._interval:
                self._held[stream] = (texts[-1], time)
                return
            self._held.pop(stream, None)
            self._last_progress_write[stream] = time
            self._write([texts[-1]], stream, time, True)
            return
        held = self._held.pop(stream, None)
        if held is not None:
            self._write([held[0]], stream, held[1], True)
        self._write(texts, stream, time, False)

    def _write(self, texts: list[str], stream: str, time: float, progress: bool) -> None:
        head = f"{self._prefix(time)} {_TAGS.get((stream, progress), 'out ')} "
        body = ("\n" + head).join(texts).encode("utf-8", "replace")
        _write_all(self._fh.fileno(), [head.encode("ascii"), body, b"\n"])

    def _flush_held(self) -> None:
        for stream, (text, t) in list(self._held.items()):
            self._write([text], stream, t, True)
        self._held.clear()

    def step_finished(self, index: int, step: "Step", outcome: StepOutcome) -> None:
        """Write any progress state still held back."""
        if self._fh is not None:
            self._flush_held()

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if self._fh is not None:
            self._flush_held()
            self._fh.close()
            self._fh = None


class ConsoleSink(Sink):
    """Prints a run to a Rich console: bold step headers, dimmed stderr, coloured verdicts.

    Output is printed verbatim (no Rich markup or emoji codes are interpreted in command
    output). Progress updates are shown at most every `progress_interval_s` seconds.

    Args:
        console: the Rich console to print to (default: a new one on stdout).
        progress_interval_s: minimum seconds between two shown progress updates.
    """

    def __init__(self, console: "Console | None" = None, progress_interval_s: float = 0.5):
        from rich.console import Console

        self.console = console or Console(highlight=False, emoji=False)
        self._interval = progress_interval_s
        self._last_progress = 0.0

    def line(self, line: Line) -> None:
        """Print one line, styled by stream."""
        if line.progress:
            if line.time - self._last_progress < self._interval:
                return
            self._last_progress = line.time
        style = None
        if line.stream == "stderr":
            style = "dim"
        elif line.stream == "wizard":
            text = line.text
            if text.startswith("▶"):
                style = "bold cyan"
            elif text.startswith("$"):
                style = "cyan"
            elif text.startswith("✓"):
                style = "green"
            elif text.startswith(("✗", "?")):
                style = "bold red"
            elif text.startswith(("!", "–")):
                style = "yellow"
        self.console.print(line.text, style=style, markup=False, highlight=False, emoji=False,
                           soft_wrap=True)


@dataclass(frozen=True, slots=True)
class LineMatch:
    """One pattern hit: which pattern id, on which line."""

    id: str
    """The pattern's id (for the remedy catalogue: the remedy id)."""
    line: Line
    """The line it matched."""
    match: str
    """The matched text."""


def required_literals(rx: Pattern[str]) -> list[str] | None:
    """Substrings of which at least one appears in every match of `rx`, or None when unknown.

    `\\bKilled\\b` gives ["Killed"]; `out of memory|OOM` gives ["out of memory", "OOM"];
    `(\\d+)%` gives None. Lower-cased for an IGNORECASE pattern. Uses the standard library's
    regex parser (`re._parser`, `sre_parse` before 3.11); any surprise there gives None.
    """
    try:
        try:
            from re import _parser as sre  # type: ignore[attr-defined]
        except ImportError:  # pragma: no cover - Python 3.10
            import sre_parse as sre  # type: ignore[no-redef]
        parsed = sre.parse(rx.pattern, rx.flags & ~re.MULTILINE)
        items = list(parsed)
        if len(items) == 1 and str(items[0][0]) == "BRANCH":
            alts = [_longest_literal(list(alt)) for alt in items[0][1][1]]
            if not alts or any(a is None for a in alts):
                return None
            out = [a for a in alts if a]
        else:
            one = _longest_literal(items)
            out = [one] if one else []
    except Exception:  # noqa: BLE001 - an optimisation only
        return None
    if not out:
        return None
    return [h.lower() for h in out] if rx.flags & re.IGNORECASE else out


def _longest_literal(items: list) -> str | None:
    best = cur = ""
    for op, av in items:
        if str(op) == "LITERAL":
            cur += chr(av)
            continue
        best = max(best, cur, key=len)
        cur = ""
    best = max(best, cur, key=len)
    return best or None


#: Characters from most to least common in command output (a rough order; anything not listed,
#: such as quotes, brackets and rare capitals, counts as rarest). Only picks guard characters.
_COMMON_CHARS = " etaoinsrlhdcumpfgybwvkxqjz0123456789.=:/-_,ETAOINSRLHDCUMPFGYBWVKXQJZ"


def _guards(hint: str, icase: bool, n: int = 2) -> list[str]:
    """Up to `n` of the rarest characters of `hint`, each as the string of its accepted forms.

    A text holding `hint` holds every one of them (for an IGNORECASE hint, which is lower-cased,
    in either case), so a text missing one cannot hold `hint`. Non-ASCII characters are left
    out for IGNORECASE hints, and the caller uses those guards on ASCII text only: `"\u212a"`
    (the Kelvin sign) lower-cases to `k`.
    """
    chars = []
    for c in dict.fromkeys(hint):
        if icase and not c.isascii():
            continue
        chars.append(c)
    chars.sort(key=lambda c: -(_COMMON_CHARS.find(c) if c in _COMMON_CHARS else len(_COMMON_CHARS)))
    out = []
    for c in chars[:n]:
        out.append(c + c.upper() if icase and c.upper() != c else c)
    return out


class LineMatcher(Sink):
    """Base sink matching regular expressions against streamed lines.

    Each pattern is searched in every stdout/stderr line (not progress updates, not the
    wizard's own lines). A hit is recorded in `matches` (bounded by `max_matches`) and passed
    to `on_match`, which subclasses override (the remedy catalogue, the training-metrics
    parser). `ids` lists the ids that matched, first hit first: the runner stores them in the
    run's `StageRecord.remedies`. A subclass that overrides `line()` (and not `line_batch()`)
    is fed one `Line` at a time, wizard lines included.

    For speed, a batch is searched as one text (a `TextBatch`'s `blob`, or the lines joined),
    and a pattern is only ever run on the lines that can match it. For a pattern with required
    literals (`required_literals`), the batch is ruled out when the rarest characters of each
    literal are missing (single-character tests run at memchr speed), else the literals are
    found with `str.find` and the pattern runs on their lines alone. Other patterns are searched
    over the whole text compiled again with `re.MULTILINE` (so `^` and `$` keep their per-line
    meaning), each hit confirmed on its line. Patterns using `\\A` or `\\Z` are not supported.

    Args:
        patterns: pattern id -> regex (string or compiled), or (id, regex) pairs; an id may repeat.
        max_matches: how many `LineMatch`es to keep (ids are kept regardless).
    """

    def __init__(self, patterns: Mapping[str, str | Pattern[str]] | Iterable[tuple[str, str | Pattern[str]]] = (),
                 max_matches: int = 1000):
        self._line_matches: list[LineMatch] = []
        self._ids: dict[str, None] = {}
        self.max_matches = max_matches
        self._patterns: list[tuple[str, Pattern[str], Pattern[str]]] = []
        self._hints: list[tuple[list[str] | None, bool]] = []
        self._guards: list[list[list[str]]] = []
        items = patterns.items() if isinstance(patterns, Mapping) else patterns
        for pid, rx in items:
            self.add_pattern(pid, rx)

    def add_pattern(self, pid: str, rx: str | Pattern[str]) -> None:
        """Add one pattern. Raises re.error for an invalid regex string."""
        compiled = re.compile(rx) if isinstance(rx, str) else rx
        blob = re.compile(compiled.pattern, compiled.flags | re.MULTILINE)
        self._patterns.append((pid, compiled, blob))
        hints = required_literals(compiled)
        icase = bool(compiled.flags & re.IGNORECASE)
        self._hints.append((hints, icase))
        self._guards.append([_guards(h, icase) for h in hints or ()] if hints else [[]])

    @property
    def matches(self) -> list[LineMatch]:
        """The hits so far, in order (at most `max_matches`)."""
        return list(self._line_matches)

    @property
    def ids(self) -> list[str]:
        """Ids of the patterns that matched so far, in order of first match.

        The one way the runner asks a matcher what it found: it stores these in
        `StageRecord.remedies`. A subclass keeping its own bookkeeping overrides this property.
        """
        return list(self._ids)

    def on_match(self, match: LineMatch) -> None:
        """Called for every hit, in order. Override in subclasses; the base does nothing."""

    def line(self, line: Line) -> None:
        """Match one line."""
        if line.progress or line.stream == "wizard":
            return
        for pid, rx, _ in self._patterns:
            m = rx.search(line.text)
            if m is not None:
                self._hit(pid, line, m.group(0))

    def line_batch(self, texts: list[str], stream: str, time: float, step: int, progress: bool) -> None:
        """Match a batch: the batch's text is searched whole; only lines that can match are re-checked."""
        if progress or stream == "wizard" or not self._patterns or not texts:
            return
        blob = getattr(texts, "blob", None)  # a `wizard.streaming.TextBatch` carries it
        if blob is None:
            blob = texts[0] if len(texts) == 1 else "\n".join(texts)
        lower: str | None = None
        hits: list[tuple[int, int, str, str]] = []  # (line start offset, pattern index, matched, line)
        for k, ((pid, rx, brx), (hints, icase), guards) in enumerate(zip(self._patterns, self._hints, self._guards)):
            if hints is None:
                self._search_blob(blob, k, rx, brx, hits)
                continue
            # Python's `in` crawls through text for a short literal (3-6 chars: "OOM", "Killed")
            # at ~1 character per step, while a single-character test runs at memchr speed: a
            # literal whose rarest characters are absent is ruled out for almost nothing.
            if (not icase or blob.isascii()) and not any(
                    all(any(c in blob for c in alts) for alts in g) for g in guards):
                continue
            if not icase:
                self._search_hints(blob, hints, k, rx, hits)
                continue
            if lower is None:
                lower = blob.lower()
            if not any(h in lower for h in hints):
                continue
            if blob.isascii():  # lower() kept every offset: the hint positions are the blob's
                self._search_hints(blob, hints, k, rx, hits, lower)
            else:
                self._search_blob(blob, k, rx, brx, hits)
        if not hits:
            return
        hits.sort()
        for _, k, text, line in hits:
            self._hit(self._patterns[k][0], Line(line, stream, time, step, False), text)  # type: ignore[arg-type]

    @staticmethod
    def _search_hints(blob: str, hints: list[str], k: int, rx: Pattern[str],
                      hits: list[tuple[int, int, str, str]], hay: str | None = None) -> None:
        """Check `rx` on each line holding one of its literals (every match holds one)."""
        hay = blob if hay is None else hay
        starts: set[int] = set()
        for h in hints:
            pos = hay.find(h)
            while pos >= 0:
                start = hay.rfind("\n", 0, pos) + 1
                end = hay.find("\n", pos + len(h))
                starts.add(start)
                if end < 0:
                    break
                pos = hay.find(h, end + 1)
        for start in starts:
            end = blob.find("\n", start)
            line = blob[start:] if end < 0 else blob[start:end]
            one = rx.search(line)
            if one is not None:
                hits.append((start, k, one.group(0), line))

    @staticmethod
    def _search_blob(blob: str, k: int, rx: Pattern[str], brx: Pattern[str],
                     hits: list[tuple[int, int, str, str]]) -> None:
        """Search the whole text with the MULTILINE pattern; confirm each hit on its line alone."""
        pos = 0
        while True:
            m = brx.search(blob, pos)
            if m is None:
                return
            start = blob.rfind("\n", 0, m.start()) + 1
            end = blob.find("\n", m.start())
            line = blob[start:] if end < 0 else blob[start:end]
            one = rx.search(line)  # a blob hit may span lines
            if one is not None:
                hits.append((start, k, one.group(0), line))
            if end < 0:
                return
            pos = end + 1

    def _hit(self, pid: str, line: Line, text: str) -> None:
        self._ids.setdefault(pid, None)
        lm = LineMatch(pid, line, text)
        if len(self._line_matches) < self.max_matches:
            self._line_matches.append(lm)
        self.on_match(lm)
