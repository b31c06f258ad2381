"""Provides persisted stage state: `StageStatus`, `StageRecord`, `StateStore`, and the `WizardLock`.

Layout under `Locations.state_dir` (all ours, written by this module only):

- `stages/<stage-id>.json`: the last run of that stage, one `StageRecord` as JSON, replaced
  atomically (temp file, fsync, `os.replace`) so a crash leaves either the old or the new record.
- `history.jsonl`: every record saved, one JSON object a line, append-only.
- `wizard.lock`: held (fcntl `flock`) by the one wizard that runs stages; holds its pid as text.

A record still saying `running` whose wizard pid is gone (killed with `kill -9`, power loss)
reads back as `interrupted`, so the stage can be re-run.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from wizard.locations import Locations


class StageStatus(str, Enum):
    """Where a stage stands."""

    PENDING = "pending"
    """Never run (no record yet)."""
    RUNNING = "running"
    """A wizard is running it now."""
    SUCCEEDED = "succeeded"
    """All steps ended with exit code 0 and every verify check passed."""
    FAILED = "failed"
    """A step failed, timed out, or a verify check failed or errored."""
    SKIPPED = "skipped"
    """Its `done()` probe said the work is already there; nothing ran."""
    CANCELLED = "cancelled"
    """The operator cancelled it (Ctrl-C, the UI's cancel)."""
    INTERRUPTED = "interrupted"
    """The wizard running it died (kill -9, crash, reboot) before it ended."""

    @property
    def is_final(self) -> bool:
        """True for every status except pending and running."""
        return self not in (StageStatus.PENDING, StageStatus.RUNNING)


class FailedStep(BaseModel):
    """Which step a failed or cancelled run stopped at."""

    model_config = ConfigDict(frozen=True)

    index: int
    """0-based position in the stage's step list."""
    title: str
    """The step's title, as it was when it ran."""


class StageRecord(BaseModel):
    """One run of one stage, as persisted in `stages/<id>.json` and `history.jsonl`."""

    stage_id: str
    """The stage id (`cann`, `torch`, ...)."""
    status: StageStatus
    """Where the run stands or how it ended."""
    started: datetime | None = None
    """When the run began (UTC, timezone-aware)."""
    finished: datetime | None = None
    """When it ended (UTC); None while running or when interrupted."""
    exit_code: int | None = None
    """Exit code of the last command step that ran; None when killed or none ran."""
    failed_step: FailedStep | None = None
    """The step the run stopped at (failed, timed out, cancelled); None otherwise."""
    reason: str | None = None
    """One line saying why it failed or was skipped ("timed out after 600 s", "verify: shm failed")."""
    log_path: str | None = None
    """The run's log file (see `LogFileSink`)."""
    remedies: list[str] = Field(default_factory=list)
    """Ids of remedy catalogue entries whose patterns matched the run's output, first match first."""
    pid: int | None = None
    """Process id of the wizard that ran it (used to tell a dead `running` from a live one)."""
    host: str | None = None
    """The host's display name (`local`, `local:/tmp/sim`, `container:pi`)."""

    @property
    def duration_s(self) -> float | None:
        """Seconds from start to finish, when both are known."""
        if self.started and self.finished:
            return (self.finished - self.started).total_seconds()
        return None


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (what records store)."""
    return datetime.now(timezone.utc)


def pid_alive(pid: int | None) -> bool:
    """True when a process with this pid exists (zombies count as dead)."""
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    try:  # a zombie has exited; only its parent has not reaped it yet
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so readers see the old or the new content, never a torn file.

    Writes a temp file in the same folder, fsyncs it, `os.replace`s it over `path`, then fsyncs
    the folder. Raises OSError when the folder cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


class StateStore:
    """Reads and writes stage records under `locations.stages_dir` (see the module docstring)."""

    def __init__(self, locations: Locations):
        self.locations = locations

    @property
    def history_path(self) -> Path:
        """The append-only history file, one JSON record a line."""
        return self.locations.state_dir / "history.jsonl"

    def path(self, stage_id: str) -> Path:
        """The file holding a stage's last run. Raises ValueError for an id that is not a plain name."""
        if not stage_id or "/" in stage_id or stage_id.startswith("."):
            raise ValueError(f"not a stage id: {stage_id!r}")
        return self.locations.stages_dir / f"{stage_id}.json"

    def save(self, record: StageRecord) -> None:
        """Replace the stage's last-run file atomically, and append the record to the history."""
        text = record.model_dump_json()
        atomic_write_text(self.path(record.stage_id), text + "\n")
        self.history_path.parent.mkdir(parents=True, exist_ok=True)
        # One write() of one line with O_APPEND: concurrent appenders never interleave mid-line.
        fd = os.open(self.history_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (text + "\n").encode("utf-8"))
        finally:
            os.close(fd)

    def last(self, stage_id: str) -> StageRecord | None:
        """The stage's last run, or None when it never ran or its file is unreadable.

        A `running` record whose wizard pid is dead comes back as `interrupted` (the file is
        left as it is; the next run replaces it).
        """
        try:
            raw = self.path(stage_id).read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
        return self._parse(raw)

    def all(self) -> dict[str, StageRecord]:
        """Every stage's last run, keyed by stage id (unreadable files are left out)."""
        out: dict[str, StageRecord] = {}
        try:
            names = sorted(os.listdir(self.locations.stages_dir))
        except OSError:
            return out
        for name in names:
            if name.endswith(".json") and not name.startswith("."):
                rec = self.last(name[: -len(".json")])
                if rec is not None:
                    out[rec.stage_id] = rec
        return out

    def history(self, stage_id: str | None = None) -> list[StageRecord]:
        """Every saved record in order (optionally one stage's); torn or foreign lines are skipped."""
        out: list[StageRecord] = []
        try:
            fh = open(self.history_path, encoding="utf-8", errors="replace")
        except OSError:
            return out
        with fh:
            for raw in fh:
                rec = self._parse(raw, resolve=False)
                if rec is not None and (stage_id is None or rec.stage_id == stage_id):
                    out.append(rec)
        return out

    @staticmethod
    def _parse(raw: str, resolve: bool = True) -> StageRecord | None:
        try:
            rec = StageRecord.model_validate_json(raw)
        except (ValidationError, ValueError):
            return None
        if resolve and rec.status is StageStatus.RUNNING and not pid_alive(rec.pid):
            rec = rec.model_copy(update={"status": StageStatus.INTERRUPTED,
                                         "reason": rec.reason or f"the wizard (pid {rec.pid}) died mid-run"})
        return rec


class LockHeld(Exception):
    """Another wizard holds the lock; `pid` names it (None when its pid file is unreadable)."""

    def __init__(self, pid: int | None, path: Path):
        self.pid = pid
        self.path = path
        who = f"pid {pid}" if pid else "another process"
        super().__init__(f"another pi05-wizard ({who}) is running stages on this host "
                         f"(lock {path}); wait for it or stop it first")


class WizardLock:
    """The one-wizard-per-host lock: an `flock` on `locations.lock_file` holding our pid.

    Use as a context manager around anything that runs stages. Read-only commands never take it.
    The kernel drops an flock when its holder dies, so a `kill -9`'d wizard never leaves a stale lock.

    Raises:
        LockHeld: from `acquire()` / `__enter__` when another live process holds it.
    """

    def __init__(self, locations: Locations):
        self.path = locations.lock_file
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock without waiting. Raises LockHeld naming the holder's pid."""
        if self._fh is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.close()
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise LockHeld(self._read_pid(), self.path) from None
            raise
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        """Drop the lock (the file stays; its pid is cleared)."""
        if self._fh is None:
            return
        try:
            self._fh.seek(0)
            self._fh.truncate()
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        finally:
            self._fh.close()
            self._fh = None

    def holder(self) -> int | None:
        """The pid holding the lock now, or None when nobody does (a read-only probe)."""
        if self._fh is not None:
            return os.getpid()
        try:
            fh = open(self.path, encoding="utf-8")
        except OSError:
            return None
        with fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return self._read_pid() or -1
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            return None

    def _read_pid(self) -> int | None:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def __enter__(self) -> "WizardLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
