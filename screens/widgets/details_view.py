"""Provides `details_view`: a check's `details` dict as readable "key  value" rows, not a Python repr.

A check's `details` (`checks.result.CheckResult.details`) hold what it found, as JSON-like values:
strings, numbers, lists of ids, nested dicts (hccn.conf addresses, the compatibility row) and lists
of dicts (npu-smi's chips). Keys end in their unit where they have one (`total_bytes`, `hbm_used_mb`,
`power_w`, `temp_c`, `aicore_pct`); the unit moves to the value ("3338 MB", "1.50 TiB") so nothing
is lost in the short label. Everything is bounded: depth, items per list and characters per value.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

#: Key suffix -> unit written after the number (bytes get a binary size as well).
UNITS: dict[str, str] = {
    "bytes": "bytes", "kb": "kB", "mb": "MB", "gb": "GB", "kib": "KiB", "mib": "MiB", "gib": "GiB",
    "w": "W", "c": "°C", "pct": "%", "percent": "%", "s": "s", "ms": "ms", "mhz": "MHz",
}
MAX_DEPTH = 3
"""Nesting shown as rows; deeper values are written on one line, itself nested at most this deep."""
MAX_ITEMS = 40
"""List items and dict keys shown per level; the rest are counted."""
MAX_CHARS = 400
"""Characters of one value shown."""


IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
"""A snake_case key a check chose (`hbm_used_mb`): the only kind of key that is prettified."""


def split_unit(key: str) -> tuple[str, str | None]:
    """("hbm used", "MB") for "hbm_used_mb"; (key, None) when the key names no unit.

    Only snake_case identifiers are prettified; any other key (a host name such as
    `ascend-repo.obs.cn-east-2.myhuaweicloud.com`, a path, a device name) is data and is shown as it is.
    """
    key = str(key)
    if not IDENTIFIER.fullmatch(key):
        return key, None
    words = key.split("_")
    if len(words) > 1 and words[-1].lower() in UNITS:
        return " ".join(words[:-1]), UNITS[words[-1].lower()]
    return " ".join(w for w in words if w) or str(key), None


def binary_size(n: float) -> str:
    """1649267441664 -> "1.50 TiB" (powers of 1024)."""
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(size) < 1024 or unit == "PiB":
            return f"{int(size)} bytes" if unit == "bytes" else f"{size:.2f} {unit}"
        size /= 1024
    return f"{n} bytes"  # pragma: no cover - the loop always returns


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def scalar_text(value: Any, unit: str | None = None) -> str:
    """One value on one line: numbers with their unit, yes/no, "—" for None, bytes as their repr."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and unit == "bytes":
        return f"{binary_size(value)} ({value:,} bytes)" if abs(value) >= 1024 else f"{value} bytes"
    if isinstance(value, (int, float)) and unit:
        return f"{value} {unit}" if unit != "%" else f"{value} %"
    if isinstance(value, str):
        return _clip(" ".join(value.split()) if "\n" in value else value)
    if isinstance(value, (list, tuple)) and not value:
        return "none"
    if isinstance(value, Mapping) and not value:
        return "none"
    return _clip(repr(value))


def _inline(value: Any, unit: str | None = None, depth: int = 0) -> str:
    """A whole value on one line: lists joined with ", ", dicts as "k v, k v" (empty parts left out)."""
    if isinstance(value, Mapping) and value and depth < MAX_DEPTH:
        parts = []
        for key, val in list(value.items())[:MAX_ITEMS]:
            if val is None or (isinstance(val, (list, tuple, Mapping)) and not val):
                continue
            label, u = split_unit(key)
            parts.append(f"{label} {_inline(val, u, depth + 1)}")
        extra = len(value) - MAX_ITEMS
        return _clip(", ".join(parts) + (f", … {extra} more" if extra > 0 else ""))
    if isinstance(value, (list, tuple)) and value and depth < MAX_DEPTH:
        shown = ", ".join(_inline(v, unit, depth + 1) for v in value[:MAX_ITEMS])
        extra = len(value) - MAX_ITEMS
        return _clip(shown + (f", … {extra} more" if extra > 0 else ""))
    return scalar_text(value, unit)


def _value(value: Any, unit: str | None, depth: int) -> RenderableType:
    if isinstance(value, Mapping) and value and depth < MAX_DEPTH:
        return details_view(value, depth + 1)
    if isinstance(value, (list, tuple)) and value and depth < MAX_DEPTH \
            and any(isinstance(v, Mapping) for v in value):
        items = [Text(f"• {_inline(v, unit)}") for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(Text(f"… {len(value) - MAX_ITEMS} more", style="dim"))
        return Group(*items)
    return Text(_inline(value, unit))  # deeper than the rows go: the rest on one line


def details_view(details: Mapping[Any, Any], depth: int = 0) -> Table:
    """`details` as a two-column grid: the key (its unit moved to the value), then the value.

    Args:
        details: a check result's `details` (any mapping; keys are shown with `str`).
        depth: nesting level (callers leave it 0).

    Returns:
        A Rich grid; nested dicts are nested grids, lists of dicts one "•" line per item, other
        lists one comma-separated line. Never raises on odd values: they are shown by `repr`.
    """
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", overflow="fold", max_width=48)  # a long key (a host name) folds, never cut
    grid.add_column(overflow="fold")
    items = list(details.items())
    for key, val in items[:MAX_ITEMS]:
        label, unit = split_unit(str(key))
        grid.add_row(label, _value(val, unit, depth))
    if len(items) > MAX_ITEMS:
        grid.add_row("…", Text(f"{len(items) - MAX_ITEMS} more", style="dim"))
    return grid
