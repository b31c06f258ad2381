"""Provides pure parsers for the text formats a preflight reads (npu-smi, CANN version files, hccn.conf).

Every parser takes text and returns a pydantic model, or raises `UnrecognizedOutput` when the
text is not the format it knows. Checks turn that exception into a result; it never escapes as a
traceback.
"""

from __future__ import annotations


class UnrecognizedOutput(ValueError):
    """The text is not in a format the parser knows.

    Attributes:
        what: which format was expected, e.g. "npu-smi info".
        excerpt: the first non-blank line of the text (at most 120 characters), for the message.
    """

    def __init__(self, what: str, text: str = "", reason: str = "") -> None:
        self.what = what
        self.excerpt = first_line(text)
        self.reason = reason
        detail = f": {reason}" if reason else ""
        shown = f' (starts with "{self.excerpt}")' if self.excerpt else " (empty)"
        super().__init__(f"unrecognized {what} output{detail}{shown}")


def first_line(text: str, limit: int = 120) -> str:
    """The first non-blank line of `text`, stripped and cut to `limit` characters."""
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""


__all__ = ["UnrecognizedOutput", "first_line"]
