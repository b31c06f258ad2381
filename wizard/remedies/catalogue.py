"""Provides the remedy catalogue model and its loader (`assets/remedies.toml`, pydantic-validated).

The catalogue is data: each `Remedy` names a known problem, the line patterns that recognize it,
the checks that point at it, the fix action (if one runs) and the stage to re-run. Loading
compiles every pattern once, plus one combined alternation used as a cheap prefilter, so the
runner can match every streamed line without noticeable cost.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from wizard.remedies.hints import required_hints

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: The shipped catalogue.
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "assets" / "remedies.toml"

Severity = Literal["info", "warn", "error"]

#: Lines longer than this many characters are matched on their first part only, so a
#: pathological line (a binary blob, a megabyte of JSON) cannot stall the matcher.
MAX_LINE_CHARS = 8192

_NL = re.compile(rb"\n")

#: Severity order, for "the worst of" comparisons.
SEVERITY_RANK: dict[str, int] = {"info": 0, "warn": 1, "error": 2}

#: Check ids a remedy may reference (the preflight checks of `checks.registry`).
CHECK_IDS = frozenset({
    "arch", "devices", "driver", "firmware", "npu-smi", "msnpureport", "hccn-conf", "shm", "cann-toolkit",
    "cann-kernels", "nnal", "compat", "docker", "disk", "memory", "python", "visible-devices", "network",
})

#: Stage ids a remedy may ask to re-run ("" = nothing to re-run).
STAGE_IDS = frozenset({
    "preflight", "container", "cann", "system-packages", "torch", "model-code", "dependencies", "dataset",
    "weights", "train", "image",
})

#: Fix actions implemented in `wizard.remedies.fixes` (an action id equals its remedy id).
FIX_ACTIONS = frozenset({
    "hub-push-local-path", "numpy-conflict", "cann-env-not-sourced", "nnal-missing", "patch-already-applied",
    "shm-too-small", "world-size-mismatch",
})


class CatalogueError(Exception):
    """The catalogue file is missing, not TOML, or fails validation (message names file and field)."""


class PatternSpec(BaseModel):
    """A line pattern with an optional numeric condition on two named groups.

    Attributes:
        regex: Python `re` syntax, searched in one line (no newline).
        ratio: names of two groups (numerator, denominator) holding integers, e.g. ("used", "total").
        at_least: the pattern matches only when numerator / denominator >= this value.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    regex: str
    ratio: tuple[str, str] | None = None
    at_least: float = 0.0
    hints: list[str] | None = None
    """Substrings (any case) one of which every match contains; derived from the regex when omitted."""


class Remedy(BaseModel):
    """One known problem.

    Attributes:
        id: stable id (interface: checks, state records, `pi05-wizard fix ID`).
        title: one line.
        severity: "info" (harmless noise), "warn" or "error".
        explain: two plain sentences: what it means, why it happens.
        patterns: line patterns (strings or `PatternSpec`s).
        checks: preflight check ids whose messages name this remedy.
        fix: fix action id (== the remedy id) or "" when only instructions exist.
        instructions: what to do by hand; always present.
        rerun: stage id to re-run after the fix, or "".
        case_sensitive: patterns are case-insensitive unless this is true.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    title: str = Field(min_length=3)
    severity: Severity
    explain: list[str] = Field(min_length=2, max_length=2)
    patterns: list[str | PatternSpec] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)
    fix: str = ""
    instructions: str = Field(min_length=3)
    rerun: str = ""
    case_sensitive: bool = False

    _compiled: list[tuple[re.Pattern[str], PatternSpec | None]] = PrivateAttr(default_factory=list)

    @field_validator("checks")
    @classmethod
    def _known_checks(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - CHECK_IDS)
        if unknown:
            raise ValueError(f"unknown check id(s) {unknown}; known: {sorted(CHECK_IDS)}")
        return value

    @field_validator("rerun")
    @classmethod
    def _known_stage(cls, value: str) -> str:
        if value and value not in STAGE_IDS:
            raise ValueError(f"unknown stage id {value!r}; known: {sorted(STAGE_IDS)}")
        return value

    @model_validator(mode="after")
    def _compile(self) -> "Remedy":
        if self.fix and self.fix not in FIX_ACTIONS:
            raise ValueError(f"fix {self.fix!r} is not an implemented action ({sorted(FIX_ACTIONS)})")
        flags = 0 if self.case_sensitive else re.IGNORECASE
        compiled = []
        for pat in self.patterns:
            spec = pat if isinstance(pat, PatternSpec) else None
            text = pat.regex if spec else pat
            try:
                rx = re.compile(text, flags)
            except re.error as exc:
                raise ValueError(f"pattern {text!r} does not compile: {exc}") from None
            if spec and spec.ratio:
                missing = [g for g in spec.ratio if g not in rx.groupindex]
                if missing:
                    raise ValueError(f"pattern {text!r} lacks named group(s) {missing} used by ratio")
            compiled.append((rx, spec))
        self._compiled = compiled
        return self

    @property
    def explanation(self) -> str:
        """The two sentences as one paragraph."""
        return " ".join(self.explain)

    def search(self, line: str) -> bool:
        """True when any pattern matches `line` (numeric conditions included)."""
        return any(_pattern_matches(rx, spec, line) for rx, spec in self._compiled)


def _pattern_matches(rx: re.Pattern[str], spec: PatternSpec | None, line: str) -> bool:
    m = rx.search(line)
    if m is None:
        return False
    if spec is None or spec.ratio is None:
        return True
    try:
        num, den = float(m.group(spec.ratio[0])), float(m.group(spec.ratio[1]))
    except (TypeError, ValueError):
        return False
    return den > 0 and num / den >= spec.at_least


class Catalogue(BaseModel):
    """The whole catalogue, in file order, with a combined prefilter.

    Attributes:
        version: format version of the file (1).
        remedy: the entries (TOML `[[remedy]]`).
    """

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    remedy: list[Remedy]

    _by_id: dict[str, Remedy] = PrivateAttr(default_factory=dict)
    _prefilter: re.Pattern[str] | None = PrivateAttr(default=None)
    _hint_map: dict[bytes, list[int]] = PrivateAttr(default_factory=dict)
    _always: list[int] = PrivateAttr(default_factory=list)
    _flat: list[tuple[int, re.Pattern[str], PatternSpec | None]] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _index(self) -> "Catalogue":
        by_id: dict[str, Remedy] = {}
        for r in self.remedy:
            if r.id in by_id:
                raise ValueError(f"duplicate remedy id {r.id!r}")
            by_id[r.id] = r
        self._by_id = by_id
        # One alternation of every pattern: a line that misses it misses them all. Case-sensitive
        # entries are rare; the prefilter is case-insensitive (a superset), so it never loses one.
        alts = [(p.regex if isinstance(p, PatternSpec) else p) for r in self.remedy for p in r.patterns]
        self._prefilter = re.compile("|".join(f"(?:{a})" for a in alts), re.IGNORECASE) if alts else None
        # The scan index: every pattern with the substrings (lower-cased UTF-8 bytes) one of which
        # any match must contain. `scan()` finds those with bytes.find over a whole batch.
        for ri, r in enumerate(self.remedy):
            for (rx, spec), raw in zip(r._compiled, r.patterns):
                pi = len(self._flat)
                self._flat.append((ri, rx, spec))
                hints = spec.hints if spec is not None and spec.hints else None
                if hints is None:
                    hints = required_hints(rx.pattern, ignore_case=True)
                if not hints:
                    self._always.append(pi)
                    continue
                for h in hints:
                    self._hint_map.setdefault(h.lower().encode("utf-8"), []).append(pi)
        # A hint that contains a shorter hint is redundant: every line holding it holds the
        # shorter one too, so fold its patterns into the shorter hint (fewer passes over a batch).
        kept: dict[bytes, list[int]] = {}
        for h in sorted(self._hint_map, key=len):
            home = next((k for k in kept if k in h), None)
            if home is None:
                kept[h] = list(self._hint_map[h])
            else:
                kept[home].extend(p for p in self._hint_map[h] if p not in kept[home])
        self._hint_map = kept
        return self

    @property
    def ids(self) -> list[str]:
        """Remedy ids in file order."""
        return [r.id for r in self.remedy]

    def get(self, remedy_id: str) -> Remedy | None:
        """The entry with this id, or None."""
        return self._by_id.get(remedy_id)

    def __getitem__(self, remedy_id: str) -> Remedy:
        return self._by_id[remedy_id]

    def __contains__(self, remedy_id: object) -> bool:
        return remedy_id in self._by_id

    def candidates(self, line: str) -> bool:
        """Slow but simple test: True when the combined alternation of all patterns finds something."""
        return self._prefilter is not None and self._prefilter.search(line) is not None

    def scan(self, lines: Sequence[str]) -> list[tuple[int, list[int]]]:
        """Which remedies match which lines of a batch.

        Joins the batch, lower-cases it as UTF-8 bytes and looks for each hint with `bytes.find`
        (C speed); only lines holding a hint get their patterns' regexes run. Lines longer than
        `MAX_LINE_CHARS` are matched on their first part.

        Returns:
            (line index in `lines`, indices into `self.remedy` that matched it), in line order.
        """
        if not lines:
            return []
        if max(map(len, lines)) > MAX_LINE_CHARS:
            lines = [ln[:MAX_LINE_CHARS] for ln in lines]
        low = "\n".join(lines).encode("utf-8", "replace").lower()
        starts: list[int] | None = None
        cand: dict[int, set[int]] = {}
        flat = self._flat
        for hint, pis in self._hint_map.items():
            pos = low.find(hint)
            if pos < 0:
                continue
            if starts is None:
                starts = [0]
                starts.extend(m.end() for m in _NL.finditer(low))
            while pos >= 0:
                li = bisect_right(starts, pos) - 1
                cand.setdefault(li, set()).update(pis)
                nxt = starts[li + 1] if li + 1 < len(starts) else len(low)
                pos = low.find(hint, nxt)
        always = self._always
        if always:
            for li in range(len(lines)):
                cand.setdefault(li, set()).update(always)
        out: list[tuple[int, list[int]]] = []
        for li in sorted(cand):
            text = lines[li]
            hit: set[int] = set()
            for pi in cand[li]:
                ri, rx, spec = flat[pi]
                if ri not in hit and _pattern_matches(rx, spec, text):
                    hit.add(ri)
            if hit:
                out.append((li, sorted(hit)))
        return out

    def for_check(self, check_id: str) -> list[Remedy]:
        """Entries that reference a preflight check id."""
        return [r for r in self.remedy if check_id in r.checks]


def parse_catalogue(text: str, source: str = "<string>") -> Catalogue:
    """Parse and validate catalogue TOML text.

    Raises:
        CatalogueError: not TOML, or a field fails validation (unknown severity, bad regex, duplicate id, ...);
            the message names `source` and the field.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{source}: not valid TOML: {exc}") from None
    try:
        return Catalogue.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}" for e in exc.errors()
        )
        raise CatalogueError(f"{source}: {problems}") from None


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Load the catalogue (default: the shipped `assets/remedies.toml`, cached).

    Raises:
        CatalogueError: the file is missing, unreadable or invalid.
    """
    if path is None:
        return _load_default()
    return _load_path(Path(path))


def catalogue_or_none() -> Catalogue | None:
    """The shipped catalogue, or None when it cannot be loaded (for views that can do without it:
    the TUI then shows a check's own messages and offers no one-key fix)."""
    try:
        return load_catalogue()
    except Exception:  # noqa: BLE001 - CatalogueError, or an import/packaging problem
        return None


def _load_path(path: Path) -> Catalogue:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"{path}: cannot read the remedy catalogue: {exc}") from None
    return parse_catalogue(text, str(path))


@lru_cache(maxsize=1)
def _load_default() -> Catalogue:
    return _load_path(DEFAULT_PATH)
