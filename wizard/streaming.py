"""Provides the byte-level half of streaming: `LineSplitter` and `read_pipes`.

`read_pipes` reads a child's stdout and stderr file descriptors concurrently (one `selectors`
loop, 64 KiB `os.read` chunks, no per-line syscalls) and `LineSplitter` turns each stream's
chunks into lines: a partial last line is kept until its newline (or the stream ends), and a
carriage-return progress update (pip, wget, docker pull) becomes its own progress line, so a
bar never garbles a log. The runner (`wizard.runner`) hands the lines to sinks.
"""

from __future__ import annotations

import os
import selectors
from typing import Iterator

#: Bytes read per `os.read`: a Linux pipe holds 64 KiB by default.
CHUNK = 1 << 16
#: Reads of one ready fd in a row while it keeps returning full chunks, before selecting again
#: (saves a `select` per chunk when a child floods; the bound keeps the other stream served).
GREEDY_READS = 16
#: A "line" longer than this many bytes without a newline is cut and delivered in pieces, so a
#: child printing one endless line (a binary blob, a bar without `\r`) cannot grow our memory.
MAX_LINE = 1 << 20


class TextBatch(list):
    """The lines of one chunk (a `list[str]`), carrying their joined text as `blob`.

    `blob == "\\n".join(self)`, kept from the decode so sinks that search a whole batch at once
    (`wizard.sinks.LineMatcher`) need not join the lines again. It is a plain list for
    everyone else; sinks must treat `blob` as optional (`getattr(texts, "blob", None)`), since
    lines the runner writes itself, and batches holding `\\r` progress text, come as plain lists.
    The runner hands the same object to every sink, so sinks must not modify it.
    """

    __slots__ = ("blob",)

    def __init__(self, blob: str):
        super().__init__(blob.split("\n"))
        self.blob = blob


#: One batch of lines from one chunk: the texts, and whether they are progress updates.
Batch = tuple[list[str], bool]


class LineSplitter:
    """Splits one stream's byte chunks into text lines.

    `feed(chunk)` returns the batches completed by that chunk, in order, each a
    `(texts, progress)` pair: `progress=False` for lines ended by `\\n`, `progress=True` for
    the updates a `\\r` ended (the text after each `\\r`, empty ones dropped). `\\r\\n` is a plain
    newline. Text is decoded as UTF-8 with errors replaced, after splitting, so a multi-byte
    character cut between two chunks is never mangled. `flush()` returns what is left when the
    stream ends (a partial last line, delivered as a normal line).
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, chunk: bytes) -> list[Batch]:
        """Add bytes; return the batches they complete (possibly none)."""
        data = self._pending + chunk if self._pending else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            self._pending = data
            out: list[Batch] = []
            if b"\r" in data:
                self._pending = self._take_progress(data, out)
            if len(self._pending) > MAX_LINE:
                out.append(([_decode(self._pending)], False))
                self._pending = b""
            return out
        complete, rest = data[:cut], data[cut + 1:]
        out = []
        if b"\r" in complete:
            self._split_with_cr(complete, out)
        else:
            out.append((TextBatch(_decode(complete)), False))
        self._pending = rest
        if rest and b"\r" in rest:
            self._pending = self._take_progress(rest, out)
        if len(self._pending) > MAX_LINE:
            out.append(([_decode(self._pending)], False))
            self._pending = b""
        return out

    def flush(self) -> list[Batch]:
        """The stream ended: return the partial last line, if any, as a normal line."""
        rest, self._pending = self._pending, b""
        if not rest:
            return []
        if rest.endswith(b"\r"):  # a bar that ended the stream with a bare \r
            rest = rest.rstrip(b"\r")
            if not rest:
                return []
        if b"\r" in rest:
            out: list[Batch] = []
            self._split_with_cr(rest, out)
            return out
        return [([_decode(rest)], False)]

    @staticmethod
    def _split_with_cr(complete: bytes, out: list[Batch]) -> None:
        """Split newline-terminated text that holds `\\r`s into normal and progress batches."""
        normal: list[str] = []
        for raw in complete.split(b"\n"):
            if raw.endswith(b"\r"):  # CRLF line ending
                raw = raw[:-1]
            if b"\r" not in raw:
                normal.append(_decode(raw))
                continue
            *updates, final = raw.split(b"\r")
            texts = [_decode(u) for u in updates if u]
            if texts:
                if normal:
                    out.append((normal, False))
                    normal = []
                out.append((texts, True))
            normal.append(_decode(final))
        if normal:
            out.append((normal, False))

    @staticmethod
    def _take_progress(rest: bytes, out: list[Batch]) -> bytes:
        """Deliver the `\\r`-ended updates of an unfinished line now; keep the text after the last `\\r`."""
        if rest.endswith(b"\r"):
            # Hold the last update back with its \r: the next byte may be the \n of a CRLF.
            head, _, tail = rest[:-1].rpartition(b"\r")
            tail += b"\r"
        else:
            head, _, tail = rest.rpartition(b"\r")
        texts = [_decode(u) for u in head.split(b"\r") if u]
        if texts:
            out.append((texts, True))
        return tail


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def read_pipes(fds: dict[int, str], tick_s: float = 0.1) -> Iterator[tuple[str, bytes] | None]:
    """Read file descriptors concurrently until all reach end of file.

    The fds are switched to non-blocking: a stream that filled a whole `CHUNK` is read again
    at once (up to `GREEDY_READS` times) without another `select`.

    Args:
        fds: open, readable fds (pipes) mapped to their stream names ("stdout", "stderr").
            They are closed here once they reach EOF or when the generator is closed.
        tick_s: seconds to wait for data before yielding None, so the caller can check its
            cancel flag and deadline while a child is silent.

    Yields:
        `(stream_name, chunk)` for each read of up to `CHUNK` bytes, or None on an idle tick.
    """
    sel = selectors.DefaultSelector()
    open_fds = dict(fds)
    for fd, name in open_fds.items():
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, name)
    try:
        while open_fds:
            events = sel.select(tick_s)
            if not events:
                yield None
                continue
            for key, _ in events:
                fd = key.fd
                for _ in range(GREEDY_READS):
                    try:
                        chunk = os.read(fd, CHUNK)
                    except BlockingIOError:
                        break
                    except OSError:
                        chunk = b""
                    if not chunk:
                        sel.unregister(fd)
                        os.close(fd)
                        del open_fds[fd]
                        break
                    yield key.data, chunk
                    if len(chunk) < CHUNK:  # drained: back to select
                        break
    finally:
        for fd in open_fds:
            try:
                sel.unregister(fd)
            except (KeyError, ValueError):
                pass
            os.close(fd)
        sel.close()
