"""Provides the preflight run shared by the `preflight` stage and the TUI's preflight screen.

`run_preflight` runs the host checks for a recipe on a host (all at once, each result handed to
`on_result` as it arrives); `preflight_record` turns the results into the stage's `StageRecord`
(failed on any fail or error, the problems' remedy ids kept); `run_and_save_preflight` does both
and saves the record, for callers that run the checks outside the runner (the TUI's live view).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterable

from wizard.state import StageRecord, StageStatus, utcnow

if TYPE_CHECKING:  # pragma: no cover
    from checks.result import CheckResult

#: The stage id the preflight verdict is recorded under.
PREFLIGHT_ID = "preflight"


def run_preflight(world: Any, on_result: Callable[["CheckResult"], None] | None = None,
                  only: Iterable[str] | None = None, offline: bool = False) -> list["CheckResult"]:
    """Run the host checks (`checks.registry.run_checks`) for `world.recipe` on `world.host`.

    Args:
        world: anything with `.recipe` and `.host`: a `wizard.session.Session` or a `StageContext`.
        on_result: called with each `CheckResult` as it finishes, from the checks' worker threads.
        only: check ids to run (default: every check, in `checks.registry.CHECKS` order).
        offline: skip the network probes (the `network` check reports `skip`).
            Whether the host is a container view is detected on it (`detect_inside_container`).

    Returns:
        One result per selected check, in the registry's fixed order.

    Raises:
        ValueError: an unknown id in `only`.
    """
    from checks import registry
    from checks.context import detect_inside_container
    from wizard.session import check_context_for

    # Decided as `pi05-wizard check` decides it, so the TUI, the stage and the CLI agree (a host
    # with `/.dockerenv` and no Docker socket is a container view: `shm` applies there).
    ctx = check_context_for(world.recipe, world.host, offline=offline,
                            inside_container=detect_inside_container(world.host))
    return registry.run_checks(ctx, only=only, on_result=on_result)


def preflight_record(results: list["CheckResult"], started: datetime | None,
                     host_name: str | None = None) -> StageRecord:
    """The `preflight` stage's record for these results: failed on any fail or error, else succeeded.

    Args:
        results: the check results (as `run_preflight` returns them).
        started: when the checks started (UTC); `finished` is now.
        host_name: the host's display name (`local`, `local:/tmp/sim`).

    Returns:
        A `StageRecord` (not saved) whose `remedies` are the problems' remedy ids, in result order,
        and whose `reason` names the failed checks.
    """
    problems = [r for r in results if r.status.is_problem]
    remedies: list[str] = []
    for r in problems:
        remedies += [rid for rid in r.remedies if rid not in remedies]
    reason = None
    if problems:
        reason = f"{len(problems)} of {len(results)} checks failed: " + ", ".join(r.id for r in problems)
    return StageRecord(stage_id=PREFLIGHT_ID, status=StageStatus.FAILED if problems else StageStatus.SUCCEEDED,
                       started=started, finished=utcnow(), exit_code=1 if problems else 0, reason=reason,
                       remedies=remedies, host=host_name)


def run_and_save_preflight(session: Any, on_result: Callable[["CheckResult"], None] | None = None,
                           only: Iterable[str] | None = None,
                           offline: bool = False) -> tuple[list["CheckResult"], StageRecord]:
    """Run the checks on the session's host and save the `preflight` record in its state store.

    Args:
        session: a `wizard.session.Session` (or anything with `.recipe`, `.host`, `.store`).
        on_result, only, offline: as for `run_preflight`.

    Returns:
        (results, the saved record).

    Raises:
        ValueError: an unknown id in `only`.
        OSError: the record cannot be written.
    """
    started = utcnow()
    results = run_preflight(session, on_result=on_result, only=only, offline=offline)
    record = preflight_record(results, started, getattr(session.host, "name", None))
    session.store.save(record)
    return results, record
