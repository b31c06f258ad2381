"""Provides the doctor-shaped result of a check: `CheckResult`, its `Status`, and its `Message`s."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Status(str, Enum):
    """The verdict of one check, ordered here from best to worst for display."""

    OK = "ok"
    """Everything the check looked at is as the recipe wants it."""
    WARN = "warn"
    """Usable, but something deserves the operator's attention."""
    FAIL = "fail"
    """Something is wrong and blocks a stage."""
    SKIP = "skip"
    """The check does not apply here (the reason is in the summary)."""
    ERROR = "error"
    """The check itself broke (an exception, or output it could not read)."""

    @property
    def mark(self) -> str:
        """The one-character mark shown in tables: ✓ ! ✗ – or ?."""
        return {"ok": "✓", "warn": "!", "fail": "✗", "skip": "–", "error": "?"}[self.value]

    @property
    def is_problem(self) -> bool:
        """True for fail and error: the run's exit code is 1 when any result has one."""
        return self in (Status.FAIL, Status.ERROR)


class Level(str, Enum):
    """How much a single message matters."""

    INFO = "info"
    """A fact worth showing; never turns a result yellow."""
    WARN = "warn"
    """Deserves attention; a result carrying one is at best `warn`."""
    ERROR = "error"
    """A problem; a result carrying one is `fail` or `error`."""


class Message(BaseModel):
    """One line of explanation under a check result."""

    model_config = ConfigDict(frozen=True)

    level: Level
    """How much this line matters."""
    text: str
    """One plain sentence for the operator."""
    remedy: str | None = None
    """Id of the remedy catalogue entry that fixes it (e.g. `driver-not-mounted`), if any."""
    link: str | None = None
    """A URL with more background, if any."""


class CheckResult(BaseModel):
    """The answer of one check, shaped like `flutter doctor`'s validators.

    Invariant (enforced): status `ok` only when no message is at level warn or error.
    """

    id: str
    """Stable check id, e.g. `npu-smi`, `shm`."""
    title: str
    """Short human title, e.g. "npu-smi health"."""
    status: Status
    summary: str
    """One line: what was found (e.g. "8 x 910B3, all OK, 3.3 GB HBM used each")."""
    messages: list[Message] = Field(default_factory=list)
    duration_s: float = 0.0
    """Wall time the check took, in seconds."""
    details: dict[str, object] = Field(default_factory=dict)
    """Structured facts for `--json` and the TUI details pane (versions, chip tables, ...)."""

    @model_validator(mode="after")
    def _ok_means_no_problem(self) -> "CheckResult":
        if self.status is Status.OK and any(m.level is not Level.INFO for m in self.messages):
            raise ValueError(f"check {self.id!r}: status ok with a warn/error message")
        return self

    @property
    def remedies(self) -> list[str]:
        """Remedy ids named by this result's messages, in order, without repeats."""
        seen: list[str] = []
        for m in self.messages:
            if m.remedy and m.remedy not in seen:
                seen.append(m.remedy)
        return seen
