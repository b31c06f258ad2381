"""Provides the small helpers every check module shares: titles, result builders, readers."""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar

from checks.host import Host
from checks.parsers import UnrecognizedOutput
from checks.result import CheckResult, Level, Message, Status

T = TypeVar("T")

#: Check id -> short title, in the fixed display order.
TITLES: dict[str, str] = {
    "arch": "CPU architecture",
    "devices": "NPU device nodes",
    "driver": "NPU driver",
    "firmware": "NPU firmware",
    "npu-smi": "npu-smi health",
    "msnpureport": "msnpureport",
    "hccn-conf": "hccn.conf",
    "shm": "Shared memory (/dev/shm)",
    "cann-toolkit": "CANN toolkit",
    "cann-kernels": "CANN kernels (910b)",
    "nnal": "NNAL / ATB",
    "compat": "torch_npu / CANN / driver",
    "docker": "Docker",
    "disk": "Free disk space",
    "memory": "Memory",
    "python": "Python",
    "visible-devices": "ASCEND_RT_VISIBLE_DEVICES",
    "network": "Download hosts",
}


def info(text: str, remedy: str | None = None) -> Message:
    """An info-level message."""
    return Message(level=Level.INFO, text=text, remedy=remedy)


def warn(text: str, remedy: str | None = None) -> Message:
    """A warn-level message."""
    return Message(level=Level.WARN, text=text, remedy=remedy)


def error(text: str, remedy: str | None = None) -> Message:
    """An error-level message."""
    return Message(level=Level.ERROR, text=text, remedy=remedy)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ufffd]+")
_SPACES = re.compile(r"\s+")

#: Longest summary shown, characters (a summary is one table cell line).
SUMMARY_MAX = 160

#: Longest message sentence shown, characters.
MESSAGE_MAX = 800


def one_line(text: str, limit: int = SUMMARY_MAX) -> str:
    """`text` as one plain line: newlines and runs of white space become one space, control characters
    and replacement characters (from binary output) are dropped, and it is cut to `limit` characters with "…"."""
    flat = _SPACES.sub(" ", _CONTROL.sub(" ", str(text))).strip()
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


def quoted(value: str, limit: int = 40) -> str:
    """A value from the host for a sentence: one plain line in double quotes (never a Python repr)."""
    return f'"{one_line(value, limit)}"'


def result(check_id: str, status: Status, summary: str, messages: list[Message] | None = None,
           **details: Any) -> CheckResult:
    """Build a CheckResult for `check_id` with its title from `TITLES`; the summary and every message are
    made one plain line (`one_line`; messages up to `MESSAGE_MAX` characters)."""
    plain = [m.model_copy(update={"text": one_line(m.text, MESSAGE_MAX)}) for m in messages or []]
    return CheckResult(id=check_id, title=TITLES[check_id], status=status, summary=one_line(summary),
                       messages=plain, details=details)


def verdict(messages: list[Message]) -> Status:
    """The status implied by messages: fail with any error, warn with any warning, else ok."""
    if any(m.level is Level.ERROR for m in messages):
        return Status.FAIL
    if any(m.level is Level.WARN for m in messages):
        return Status.WARN
    return Status.OK


def read_parsed(host: Host, path: str, parser: Callable[[str], T], max_bytes: int = 256 << 10) -> tuple[T | None, str | None]:
    """Read `path` on `host` and parse it.

    Returns:
        (model, None) on success; (None, reason) when the file is missing ("missing"), unreadable
        ("unreadable: ...") or not in the expected format ("unrecognized ...").
    """
    try:
        text = host.read_text(path, max_bytes=max_bytes)
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    try:
        return parser(text), None
    except UnrecognizedOutput as exc:
        return None, str(exc)


def gib(n_bytes: float) -> str:
    """Bytes as GiB with one decimal below 10 ("2.5 GiB", "500 GiB"); below 1 GiB as MiB ("64 MiB")."""
    g = n_bytes / (1 << 30)
    if g < 1:
        return f"{n_bytes / (1 << 20):.0f} MiB"
    return f"{g:.1f} GiB" if g < 10 else f"{g:.0f} GiB"
