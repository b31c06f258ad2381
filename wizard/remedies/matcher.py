"""Provides the remedy matcher: catalogue patterns over output lines, as a function and as a runner sink.

`match_text(text)` explains a pasted log (used by `pi05-wizard explain`); `RemedyMatcher` is a
`Sink` the runner feeds every streamed line, collecting one `Match` per remedy id (first line
number kept, severity the worst seen). numpy conflict lines are classified into the recipe's
harmless set (info), numpy-2 breakage (error) and anything else (warn, "not known to be harmless").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from typing import Iterable, Literal, Sequence

from packaging.specifiers import InvalidSpecifier, Specifier
from packaging.version import InvalidVersion, Version

from wizard.events import Line
from wizard.remedies.catalogue import MAX_LINE_CHARS, SEVERITY_RANK, Catalogue, load_catalogue
from wizard.sinks import LineMatcher


NumpyClass = Literal["benign", "blocking", "unknown"]

_NUMPY_BLOCKING = re.compile(
    r"error code is 500001\b|compiled using NumPy 1\.x cannot be run|numpy\.core\.\w+ failed to import"
    r"|_ARRAY_API not found|numpy\.dtype size changed|Successfully installed\b.*\bnumpy-2\."
    r"|you have numpy 2\.|CANN\b.*support\s*num\w*\s*>=?\s*2",
    re.IGNORECASE,
)
# "opencv-python-headless 4.12.0.88 requires numpy<2.3.0,>=2; ..., but you have numpy 1.26.0 ..."
# "opencv-python 4.12.0.88 has requirement numpy>=2, but you have numpy 1.26.0."  (older `pip check`)
# "te 0.4.0 requires ml-dtypes, which is not installed."
# "opencv-python-headless requires numpy>=2, but numpy 1.26.0 (降级后可正常运行)"  (the field report)
_PIP_REQ = re.compile(
    r"^\s*(?P<req>[A-Za-z0-9][A-Za-z0-9_.-]*)(?:\s+[\w.+!-]*\d[\w.+!-]*)?\s+(?:requires|has requirement)\s+(?P<wants>.+)$",
    re.IGNORECASE,
)
_HAVE_NUMPY = re.compile(r"(?:you have|but)\s+numpy[ =-]+(?P<ver>\d+)\.", re.IGNORECASE)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# The requirement at the start of pip's "wants" text: a name, then the specifier clauses
# ("numpy<2.3.0,>=2; python_version ...", "ml-dtypes, which is not installed", "numpy>=2, but numpy 1.26.0").
_WANTS = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)\s*(?P<spec>(?:[<>=!~]=?\s*[\w.*+!-]+\s*,?\s*)*)")


def _asks_numpy2(spec: str) -> bool:
    """True when a specifier text has a `>=` lower bound at numpy 2 or above (`<2.3.0,>=2`)."""
    for clause in (c.strip() for c in spec.split(",")):
        try:
            sp = Specifier(clause)
        except InvalidSpecifier:
            continue
        try:
            if sp.operator == ">=" and Version(sp.version).major >= 2:
                return True
        except InvalidVersion:
            continue
    return False


def default_benign() -> tuple:
    """The shipped recipe's `[[dependencies.benign]]` list (empty when the recipe cannot be loaded)."""
    try:
        from wizard.recipe import default_recipe

        return tuple(default_recipe().dependencies.benign)
    except Exception:  # noqa: BLE001 - a broken shipped recipe: classify without the harmless list
        return ()


def classify_numpy_line(text: str, catalogue: Catalogue | None = None, benign: Sequence | None = None) -> NumpyClass:
    """Classify one numpy-conflict line.

    Args:
        text: one output line.
        catalogue: unused for the classification itself; kept for callers that pass it.
        benign: the recipe's harmless list (`recipe.dependencies.benign`: package / requirement
            pairs); defaults to the shipped recipe's list.

    Returns:
        "blocking" for numpy-2 breakage (CANN error 500001, NumPy 1.x/2.x ABI errors, numpy 2 installed or
        in use); "benign" for a pair on the recipe's harmless list, where a numpy requirement counts
        only when it asks for numpy >= 2 while numpy 1.x is installed (CANN needs numpy < 2, so the
        opposite is never harmless); "unknown" otherwise.
        Formats: pip's resolver and `pip check` lines (case 12), the field report's retyped lines.
    """
    from wizard.recipe import find_benign

    if _NUMPY_BLOCKING.search(text):
        return "blocking"
    m = _PIP_REQ.match(text)
    if not m:
        return "unknown"
    wants = m.group("wants")
    w = _WANTS.match(wants)
    if w is None:
        return "unknown"
    entry = find_benign(m.group("req"), w.group("name"), default_benign() if benign is None else benign)
    if entry is None:
        return "unknown"
    if _norm(w.group("name")) == "numpy":
        have = _HAVE_NUMPY.search(wants)
        if not _asks_numpy2(w.group("spec")) or (have is not None and int(have.group("ver")) >= 2):
            return "unknown"
    return "benign"


_CLASS_SEVERITY: dict[str, str] = {"benign": "info", "unknown": "warn", "blocking": "error"}


@dataclass(frozen=True)
class Match:
    """One remedy recognized in output.

    Attributes:
        id: the remedy id.
        severity: "info", "warn" or "error" (for numpy-conflict: from the line's classification, worst seen).
        line_no: 1-based number of the first matching line (0 for a match from a check result).
        line: that line's text (at most `MAX_LINE_CHARS`).
        title: the remedy's title.
        count: how many lines matched this id.
        numpy_lines: for numpy-conflict, each matching line with its class, in order.
    """

    id: str
    severity: str
    line_no: int
    line: str
    title: str
    count: int = 1
    numpy_lines: tuple[tuple[str, NumpyClass], ...] = field(default=())

    def to_dict(self) -> dict:
        """A JSON-ready dict (`explain --json`, state records)."""
        d = {"id": self.id, "severity": self.severity, "line_no": self.line_no, "line": self.line,
             "title": self.title, "count": self.count}
        if self.numpy_lines:
            d["numpy_lines"] = [{"line": t, "class": c} for t, c in self.numpy_lines]
        return d


class _Collector:
    """Matches batches of lines; keeps one Match per id (first line, worst severity, count)."""

    #: Lines per scan batch for long inputs (bounds the joined text held at once).
    BATCH = 65536

    def __init__(self, catalogue: Catalogue, benign: Sequence | None = None):
        self.cat = catalogue
        self.benign = default_benign() if benign is None else tuple(benign)
        self.by_id: dict[str, Match] = {}
        self.order: list[str] = []

    def feed_batch(self, texts: Sequence[str], first_line_no: int) -> list[str]:
        """Match `texts` (numbered from `first_line_no`); returns the ids hit, in order of hits."""
        hit_ids: list[str] = []
        for li, ris in self.cat.scan(texts):
            text = texts[li][:MAX_LINE_CHARS]
            for ri in ris:
                remedy = self.cat.remedy[ri]
                self._record(remedy.id, remedy.severity, remedy.title, text, first_line_no + li)
                hit_ids.append(remedy.id)
        return hit_ids

    def _record(self, rid: str, severity: str, title: str, text: str, line_no: int) -> None:
        numpy_lines: tuple[tuple[str, NumpyClass], ...] = ()
        if rid == "numpy-conflict":
            cls = classify_numpy_line(text, self.cat, self.benign)
            severity = _CLASS_SEVERITY[cls]
            numpy_lines = ((text, cls),)
        old = self.by_id.get(rid)
        if old is None:
            self.by_id[rid] = Match(rid, severity, line_no, text, title, numpy_lines=numpy_lines)
            self.order.append(rid)
            return
        worst = severity if SEVERITY_RANK[severity] > SEVERITY_RANK[old.severity] else old.severity
        if len(old.numpy_lines) >= 200:  # bounded: a pathological log must not grow it forever
            numpy_lines = ()
        self.by_id[rid] = replace(old, severity=worst, count=old.count + 1,
                                  numpy_lines=old.numpy_lines + numpy_lines)

    def matches(self) -> list[Match]:
        return [self.by_id[i] for i in self.order]


def match_lines(lines: Iterable[str], catalogue: Catalogue | None = None,
                benign: Sequence | None = None) -> list[Match]:
    """Match lines (numbered from 1) against the catalogue; one Match per id, in order of first appearance.

    `benign` is the recipe's harmless `pip check` list (`recipe.dependencies.benign`; default: the
    shipped recipe's), used to classify numpy-conflict lines.
    """
    col = _Collector(catalogue or load_catalogue(), benign)
    batch: list[str] = []
    n = 1
    for text in lines:
        batch.append(text)
        if len(batch) >= _Collector.BATCH:
            col.feed_batch(batch, n)
            n += len(batch)
            batch = []
    if batch:
        col.feed_batch(batch, n)
    return col.matches()


def match_text(text: str, catalogue: Catalogue | None = None, benign: Sequence | None = None) -> list[Match]:
    """Match a whole log or pasted error text; lines split on `\\n` (a trailing `\\r` is dropped).

    A line holding `\\r` progress updates is matched as a whole. Empty or binary-ish text gives
    whatever its printable lines match (usually nothing), never an exception.
    """
    return match_lines((ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")), catalogue, benign)


def worst_severity(matches: Iterable[Match]) -> str | None:
    """The worst severity among matches, or None when there are none."""
    worst = None
    for m in matches:
        if worst is None or SEVERITY_RANK[m.severity] > SEVERITY_RANK[worst]:
            worst = m.severity
    return worst


class RemedyMatcher(LineMatcher):
    """A runner sink that matches every streamed line against the catalogue.

    Subclasses `wizard.sinks.LineMatcher` (so the runner stores its `ids` in the stage's
    state record) but does its own matching: `line_batch` scans a whole chunk with the
    catalogue's substring index. Lines are numbered from 1 per stage run (reset on
    `stage_started`), counting stdout and stderr lines; the wizard's own lines and `\\r` progress
    updates are not matched (like the base). `.matches` may be read from another thread.

    `matches` holds one `Match` per remedy id (not the base's per-line `LineMatch`es): the list
    is replaced, never mutated, so a reader always sees a consistent snapshot.
    """

    def __init__(self, catalogue: Catalogue | None = None, on_remedy=None, benign: Sequence | None = None):
        """Args:
            catalogue: defaults to the shipped catalogue.
            on_remedy: optional callable(Match) called (from the runner thread) when an id first matches.
            benign: the recipe's harmless `pip check` list (`recipe.dependencies.benign`); defaults
                to the shipped recipe's.
        """
        super().__init__()  # no patterns: the catalogue's substring index does the matching
        self._cat = catalogue or load_catalogue()
        self._benign = default_benign() if benign is None else tuple(benign)
        self._col = _Collector(self._cat, self._benign)
        self._lock = threading.Lock()
        self._n = 1
        self._on_remedy = on_remedy
        self._matches: list[Match] = []

    def stage_started(self, stage_id, steps) -> None:  # noqa: D401 - Sink API
        """Start a fresh collection for a new stage run."""
        with self._lock:
            self._col = _Collector(self._cat, self._benign)
            self._n = 1
            self._matches = []

    def line(self, line: Line) -> None:
        """Match one streamed line."""
        self.line_batch([line.text], line.stream, line.time, line.step, line.progress)

    def line_batch(self, texts: list[str], stream: str, time: float, step: int, progress: bool) -> None:
        """Match a batch of lines that arrived together (the hot path)."""
        if progress or stream == "wizard" or not texts:
            return
        with self._lock:
            before = len(self._col.order)
            self._col.feed_batch(texts, self._n)
            self._n += len(texts)
            new_ids = self._col.order[before:]
            self._matches = self._col.matches()
            new = [self._col.by_id[i] for i in new_ids]
        if self._on_remedy:
            for m in new:
                self._on_remedy(m)

    def feed_text(self, text: str) -> list[str]:
        """Feed raw text (one or more lines, e.g. a check message); returns the ids it matched."""
        lines = text.split("\n")
        with self._lock:
            ids = self._col.feed_batch(lines, self._n)
            self._n += len(lines)
            self._matches = self._col.matches()
        return ids

    @property
    def matches(self) -> list[Match]:  # type: ignore[override]
        """One `Match` per remedy id, in order of first appearance (a consistent snapshot)."""
        return self._matches

    @property
    def ids(self) -> list[str]:
        """Matched remedy ids, in order of first appearance (what the runner stores in the state record)."""
        with self._lock:
            return list(self._col.order)
