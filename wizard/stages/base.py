"""Provides the shape of a stage: `Stage`, `Step`, `Where`, and the `StageContext` they run with.

A stage is data plus small functions: `steps(ctx)` builds the ordered steps from the recipe,
`done(ctx)` says whether re-running can be skipped, `verify(ctx)` returns CheckResults.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Callable, Mapping

from checks.result import CheckResult

if TYPE_CHECKING:  # pragma: no cover
    from checks.host import Host
    from wizard.locations import Locations
    from wizard.recipe import Recipe


class Where(str, Enum):
    """Where a stage's commands run."""

    HOST = "host"
    """On the host (LocalHost, honouring `--root`)."""
    CONTAINER = "container"
    """Inside the recipe's container (ContainerHost, Docker SDK exec)."""


@dataclass
class ActionIO:
    """What an action step gets to report with: `emit(text, stream="stdout")`, a cancel flag, and
    `remedy(id)` for known problems it found itself (e.g. the remedy ids of failed check results).

    Attributes:
        emit: call with one line of text (no newline) to stream it like command output;
            `progress=True` marks a progress-bar update.
        cancelled: returns True once the operator has cancelled; long actions poll it.
        remedy: call with a remedy catalogue id; the runner adds it to the stage's record
            (`StageRecord.remedies`) beside the ids its line matchers found.
    """

    emit: Callable[..., None]
    cancelled: Callable[[], bool]
    remedy: Callable[[str], None] = field(default=lambda remedy_id: None)


@dataclass
class Step:
    """One thing a stage does, in order.

    Exactly one of `argv` (a command) or `action` (Python code, e.g. a Docker SDK call or our own
    quantile statistics) is set.

    Attributes:
        title: short human title ("Install the CANN toolkit runfile").
        argv: the command as an argv list, never a shell string.
        env: extra environment variables for the command.
        cwd: working directory on the host where it runs.
        timeout_s: seconds before the step is killed; None = no limit (training).
        action: callable(ctx, io) -> exit code int; runs in the runner's thread.
        describe: what `plan` prints for an action step (the equivalent command, for reading).
        where: overrides the stage's `where` for this step when set.
        skip_if: optional probe(ctx) -> bool; True skips this one step (idempotent re-runs).
    """

    title: str
    argv: list[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    timeout_s: float | None = 600.0
    action: Callable[["StageContext", ActionIO], int] | None = None
    describe: str | None = None
    where: Where | None = None
    skip_if: Callable[["StageContext"], bool] | None = None

    def __post_init__(self) -> None:
        if (self.argv is None) == (self.action is None):
            raise ValueError(f"step {self.title!r}: set exactly one of argv or action")
        if self.argv is not None and not self.argv:
            raise ValueError(f"step {self.title!r}: empty argv")

    def command_text(self) -> str:
        """The step as one readable line: the shell-quoted argv, or `describe` for an action."""
        if self.argv is not None:
            prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
            cmd = shlex.join(self.argv)
            return f"{prefix} {cmd}" if prefix else cmd
        return self.describe or f"(built-in) {self.title}"


@dataclass
class StageContext:
    """Everything a stage's functions may use.

    Attributes:
        recipe: the effective recipe (defaults merged with the user's overrides).
        host: the host (LocalHost, maybe rooted at a simulated host folder).
        locations: config/state/log folders.
        container: a factory returning the ContainerHost for the recipe's container
            (created lazily: building it needs a reachable Docker engine).
        options: free-form per-run options (e.g. {"yes": True} when the operator confirmed).
    """

    recipe: "Recipe"
    host: "Host"
    locations: "Locations"
    container: Callable[[], "Host"] | None = None
    options: dict[str, object] = field(default_factory=dict)

    def host_for(self, where: Where) -> "Host":
        """The Host a step with this `where` runs on.

        Raises:
            wizard.hosts.container.ContainerUnavailable: no container factory is set (no engine), or
                the factory's own (the engine is unreachable).
        """
        if where is Where.HOST:
            return self.host
        if self.container is None:
            from wizard.hosts.container import ContainerUnavailable, engine_problem

            raise ContainerUnavailable(engine_problem("this run has no container host"), "engine")
        return self.container()


@dataclass
class Stage:
    """A declared stage.

    Attributes:
        id: stable id (`preflight`, `container`, `cann`, `system-packages`, `torch`,
            `model-code`, `dependencies`, `dataset`, `weights`, `train`, `image`).
        title: human title.
        description: two or three plain sentences: what it does and why.
        where: where its steps run by default.
        depends_on: stage ids that must have succeeded first.
        steps: builds the ordered steps from a context.
        done: probe; True means the stage's work is already there (skip unless forced).
        verify: checks run after the steps; any fail/error result fails the stage.
        verify_describe: one plain line saying what `verify` checks (shown by `plan` as
            "verify: ..."); empty for a stage without a verify.
        metrics: its output carries training metrics (lerobot log lines): the runner parses them
            and keeps a progress snapshot beside the stage record (`wizard.training.snapshot`).
    """

    id: str
    title: str
    description: str
    where: Where
    steps: Callable[[StageContext], list[Step]]
    depends_on: tuple[str, ...] = ()
    done: Callable[[StageContext], bool] = lambda ctx: False
    verify: Callable[[StageContext], list[CheckResult]] = lambda ctx: []
    verify_describe: str = ""
    metrics: bool = False
