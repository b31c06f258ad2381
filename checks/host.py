"""Provides the `Host` interface every check and stage asks its questions through.

Checks never touch `/` directly: they call a Host. Implementations live in `wizard.hosts`
(`LocalHost`, optionally rooted at a folder that stands for `/`; `ContainerHost`, the `pi`
container through the Docker SDK). This module only states the contract, so `checks/` does
not depend on `wizard/`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence, runtime_checkable


@dataclass(frozen=True)
class CommandResult:
    """What one finished (or killed) command gave back.

    Attributes:
        argv: the argv as asked for (before resolving the executable under a root).
        returncode: the exit code; None when the command never started or was killed on timeout.
        stdout: decoded with errors="replace"; at most the host's output cap.
        stderr: likewise.
        duration_s: wall time in seconds.
        timed_out: True when the command was killed because it outlived its timeout.
        not_found: True when the executable could not be found (returncode is None then).
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    timed_out: bool = False
    not_found: bool = False

    @property
    def ok(self) -> bool:
        """True when the command ran to completion with exit code 0."""
        return self.returncode == 0 and not self.timed_out


@dataclass(frozen=True)
class DiskUsage:
    """Space of the filesystem holding a path (statvfs), in bytes."""

    total: int
    used: int
    free: int
    """Bytes available to an unprivileged user (f_bavail * f_frsize)."""


@dataclass(frozen=True)
class PathInfo:
    """What `Host.stat` tells about a path (following symlinks)."""

    path: str
    kind: str
    """One of "file", "dir", "char", "block", "fifo", "socket", "other"."""
    size: int = 0
    mode: int = 0
    extra: Mapping[str, object] = field(default_factory=dict)


@runtime_checkable
class Host(Protocol):
    """Where things are asked and run. All paths are absolute paths *on that host*.

    Implementations must never raise for ordinary absence: `stat` returns None for a missing
    path, `read_text` raises `FileNotFoundError` / `PermissionError` / `IsADirectoryError`
    (OSError subclasses) which checks turn into results.
    """

    name: str
    """Short label for displays, e.g. "local", "local:/tmp/sim", "container:pi"."""

    def read_text(self, path: str, max_bytes: int = 1 << 20) -> str:
        """Read at most `max_bytes` of a file, decoded as UTF-8 with errors="replace".

        Raises:
            OSError: FileNotFoundError, PermissionError, IsADirectoryError, ...
        """
        ...

    def stat(self, path: str) -> PathInfo | None:
        """Describe a path, or None when it does not exist."""
        ...

    def listdir(self, path: str) -> list[str]:
        """Names in a folder, sorted; an empty list when it is missing or not a folder."""
        ...

    def disk_usage(self, path: str) -> DiskUsage | None:
        """statvfs of the filesystem holding `path`, or None when the path does not exist."""
        ...

    def which(self, name: str) -> str | None:
        """Where an executable would be found on this host (its path as the host sees it), or None."""
        ...

    def run(
        self,
        argv: Sequence[str],
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        """Run an argv list (never a shell string) to completion or until `timeout` seconds.

        A command that outlives its timeout is killed (its whole process group) and the result
        says `timed_out=True`. A missing executable gives `not_found=True`. Never raises for
        those; raises only for programming errors (empty argv).
        """
        ...

    def environ(self) -> Mapping[str, str]:
        """The environment variables a command on this host would see."""
        ...


def rel_under(root: str, path: str) -> str:
    """Join an absolute host path under `root` (the folder standing for `/`).

    `rel_under("/tmp/sim", "/dev/davinci0") == "/tmp/sim/dev/davinci0"`. Paths are
    normalised so `..` can never climb above `root`.
    """
    norm = os.path.normpath("/" + path.lstrip("/"))
    return os.path.join(root, norm.lstrip("/"))
