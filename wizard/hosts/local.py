"""Provides `LocalHost`: this machine, or a folder standing for `/` (`--root DIR`)."""

from __future__ import annotations

import os
import shutil
import signal
import stat as stat_mod
import subprocess
import time
from typing import Mapping, Sequence

from checks.host import CommandResult, DiskUsage, PathInfo, rel_under

#: Folders searched under the root, in order, before the real PATH (where npu-smi, msnpureport,
#: uname and friends live on an Ascend host).
ROOT_BIN_DIRS = (
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/usr/local/Ascend/driver/tools",
)

#: Cap on captured output per stream of `run`, in bytes; the rest is dropped, not buffered.
OUTPUT_CAP = 4 << 20

_KINDS = (
    (stat_mod.S_ISREG, "file"),
    (stat_mod.S_ISDIR, "dir"),
    (stat_mod.S_ISCHR, "char"),
    (stat_mod.S_ISBLK, "block"),
    (stat_mod.S_ISFIFO, "fifo"),
    (stat_mod.S_ISSOCK, "socket"),
)


def kind_of(mode: int) -> str:
    """Name the file type of a `st_mode`: file, dir, char, block, fifo, socket or other."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "other"


class LocalHost:
    """This machine, optionally seen through a root folder.

    With `root=None` every path is the real one. With `root="/tmp/sim"`, the host path
    `/dev/davinci0` is read at `/tmp/sim/dev/davinci0`, and a command `npu-smi` is resolved
    first in `/tmp/sim/usr/local/sbin`, `/tmp/sim/usr/local/bin`, ... (see `ROOT_BIN_DIRS`), then
    on the real PATH. Commands always run as argv lists in their own process group.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None):
        self.root = os.path.abspath(os.fspath(root)) if root else None
        self._env = dict(os.environ if env is None else env)
        self.name = f"local:{self.root}" if self.root else "local"

    # -- paths -----------------------------------------------------------------
    def real_path(self, path: str) -> str:
        """The path on this machine's filesystem for a host path."""
        return rel_under(self.root, path) if self.root else path

    def read_text(self, path: str, max_bytes: int = 1 << 20) -> str:
        """Read at most `max_bytes` of a file as UTF-8 (errors replaced). Raises OSError."""
        with open(self.real_path(path), "rb") as fh:
            return fh.read(max_bytes).decode("utf-8", errors="replace")

    def stat(self, path: str) -> PathInfo | None:
        """Describe a path (following symlinks), or None when missing or unreadable."""
        try:
            st = os.stat(self.real_path(path))
        except (OSError, ValueError):
            return None
        return PathInfo(path=path, kind=kind_of(st.st_mode), size=st.st_size, mode=st.st_mode,
                        extra={"rdev": st.st_rdev})

    def listdir(self, path: str) -> list[str]:
        """Sorted names in a folder; [] when missing or not a folder."""
        try:
            return sorted(os.listdir(self.real_path(path)))
        except (OSError, ValueError):
            return []

    def disk_usage(self, path: str) -> DiskUsage | None:
        """statvfs of the filesystem holding `path`, in bytes; None when the path is missing."""
        try:
            st = os.statvfs(self.real_path(path))
        except (OSError, ValueError):
            return None
        total = st.f_blocks * st.f_frsize
        free = st.f_bavail * st.f_frsize
        return DiskUsage(total=total, used=total - st.f_bfree * st.f_frsize, free=free)

    def environ(self) -> Mapping[str, str]:
        """The environment commands run with (a copy of os.environ unless given)."""
        return self._env

    # -- commands --------------------------------------------------------------
    def which(self, name: str) -> str | None:
        """Resolve an executable as a host path: under the root first, then this machine.

        A bare name is looked for in `ROOT/<dir>` for each of `ROOT_BIN_DIRS`, then on the real
        PATH. A name with a slash (`/usr/bin/python3`, `sys.executable`) is the host path itself
        when `ROOT/<name>` is executable, else when the real `<name>` is (the simulated host's
        tools win, this machine's interpreter still runs). Without a root both are the real path.
        Use `resolve()` for the real path to execute.

        Returns:
            The host path found, or None when nothing executable answers to `name`.
        """
        if "/" in name:
            return name if self._resolve_path(name) is not None else None
        if self.root:
            for d in ROOT_BIN_DIRS:
                if _executable(rel_under(self.root, f"{d}/{name}")):
                    return f"{d}/{name}"
        return shutil.which(name, path=self._env.get("PATH", os.defpath))

    def resolve(self, name: str) -> str | None:
        """The real path to execute for argv[0], following the same search as `which`.

        With a root, `/bin/bash` gives `ROOT/bin/bash` when that is executable, else `/bin/bash`.
        """
        if "/" in name:
            return self._resolve_path(name)
        found = self.which(name)
        if found is None:
            return None
        if self.root:
            under = rel_under(self.root, found)
            if _executable(under):
                return under
        return found

    def _resolve_path(self, name: str) -> str | None:
        """The real executable for a name with a slash: `ROOT/name` first, then `name` itself."""
        if self.root and _executable(self.real_path(name)):
            return self.real_path(name)
        return name if _executable(name) else None

    def run(
        self,
        argv: Sequence[str],
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> CommandResult:
        """Run argv to completion or until `timeout` seconds; kill the whole group on timeout."""
        if not argv:
            raise ValueError("empty argv")
        args = tuple(argv)
        start = time.monotonic()
        exe = self.resolve(args[0])
        if exe is None:
            return CommandResult(argv=args, returncode=None, not_found=True,
                                 stderr=f"{args[0]}: command not found")
        full_env = dict(self._env)
        if env:
            full_env.update(env)
        try:
            proc = subprocess.Popen(
                [exe, *args[1:]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=full_env,
                cwd=self.real_path(cwd) if cwd else None, start_new_session=True,
            )
        except OSError as exc:
            return CommandResult(argv=args, returncode=None, not_found=True, stderr=str(exc),
                                 duration_s=time.monotonic() - start)
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            out, err = proc.communicate()
            timed_out = True
        return CommandResult(
            argv=args,
            returncode=None if timed_out else proc.returncode,
            stdout=out[:OUTPUT_CAP].decode("utf-8", errors="replace"),
            stderr=err[:OUTPUT_CAP].decode("utf-8", errors="replace"),
            duration_s=time.monotonic() - start,
            timed_out=timed_out,
        )


def _executable(path: str) -> bool:
    """True for an existing regular file this process may execute."""
    return os.path.isfile(path) and os.access(path, os.X_OK)


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to the process group led by `pid`; ignore a group that is already gone."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
