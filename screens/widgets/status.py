"""Provides how a stage status looks: its mark, its word and its CSS class (no colour needed to read it)."""

from __future__ import annotations

import time
from typing import Any

#: mark, label and CSS class per `StageStatus` value. The mark and the word carry the meaning,
#: so the list reads the same with NO_COLOR.
STATUS_LOOK: dict[str, tuple[str, str]] = {
    "pending": ("·", "pending"),
    "running": ("▶", "running"),
    "succeeded": ("✓", "succeeded"),
    "failed": ("✗", "failed"),
    "skipped": ("–", "skipped"),
    "cancelled": ("■", "cancelled"),
    "interrupted": ("!", "interrupted"),
}

#: Rich styles per status value (ignored under NO_COLOR, where Textual drops colour).
STATUS_STYLE: dict[str, str] = {
    "pending": "dim",
    "running": "bold cyan",
    "succeeded": "green",
    "failed": "bold red",
    "skipped": "dim",
    "cancelled": "yellow",
    "interrupted": "bold yellow",
}

#: Rich styles per check `Status` value.
CHECK_STYLE: dict[str, str] = {
    "ok": "green",
    "warn": "yellow",
    "fail": "bold red",
    "skip": "dim",
    "error": "bold magenta",
}


def status_value(status: Any) -> str:
    """The plain string of a status enum member or string ("failed"); "pending" for None."""
    if status is None:
        return "pending"
    return str(getattr(status, "value", status))


def as_epoch(value: Any) -> float | None:
    """Seconds since the epoch from a float, an int, a datetime or an ISO string; None if unknown."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    stamp = getattr(value, "timestamp", None)
    if callable(stamp):
        return float(stamp())
    if isinstance(value, str):
        from datetime import datetime

        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None


def format_duration(seconds: float | None) -> str:
    """`0.4s`, `12s`, `3m05s`, `2h14m`; empty for None."""
    if seconds is None or seconds < 0:
        return ""
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def format_ago(when: float | None, now: float | None = None) -> str:
    """How long ago an epoch time was, for a list column: `just now`, `5 min ago`, `3 h ago`, `2 d ago`."""
    if when is None:
        return ""
    delta = (time.time() if now is None else now) - when
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min ago"
    if delta < 86400:
        return f"{int(delta // 3600)} h ago"
    return f"{int(delta // 86400)} d ago"
