"""Provides `required_hints`: substrings of which one must appear in any match of a regex.

The matcher's prefilter: a line that contains none of a pattern's hints cannot match it, and a
substring search is far cheaper than running the regex. Built on the standard library's regex
parser (`re._parser`, `sre_parse` on 3.10); anything it does not understand gives None
("no hint: always run the regex"), so the prefilter can only skip work, never a match.
"""

from __future__ import annotations

import re

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

#: Hints shorter than this many UTF-8 bytes are useless as a filter (they appear everywhere).
MIN_HINT = 3


def required_hints(pattern: str, ignore_case: bool = True) -> list[str] | None:
    """Substrings of which at least one occurs in every match of `pattern`, or None.

    `libatb\\.so` gives ["libatb.so"]; `(?:device|NPU)\\b.*busy` gives ["device", "npu"] or ["busy"]
    (the set whose shortest member is longest). Lower-cased when `ignore_case`.
    """
    try:
        parsed = _sre.parse(pattern, re.IGNORECASE if ignore_case else 0)
        hints = _seq(list(parsed))
    except Exception:  # noqa: BLE001 - an optimisation only
        return None
    if not hints or min(len(h.encode("utf-8")) for h in hints) < MIN_HINT:
        return None
    out = sorted({h.lower() if ignore_case else h for h in hints})
    return out


def _score(h: list[str] | None) -> int:
    return min(len(x.encode("utf-8")) for x in h) if h else 0


def _seq(items: list) -> list[str] | None:
    best: list[str] | None = None
    cur = ""

    def consider(cand: list[str] | None) -> None:
        nonlocal best
        if cand and _score(cand) > _score(best):
            best = cand

    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            cur += chr(av)
            continue
        consider([cur] if cur else None)
        cur = ""
        if name == "SUBPATTERN":
            consider(_seq(list(av[-1])))
        elif name == "BRANCH":
            alts = [_seq(list(a)) for a in av[1]]
            if alts and all(alts):
                consider(sorted({x for a in alts for x in a}))  # type: ignore[union-attr]
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            consider(_seq(list(av[2])))
    consider([cur] if cur else None)
    return best
