"""Provides `blocking_dependencies`: which earlier stages must still succeed before a stage may run.

The one rule, shared by `pi05-wizard run` and the TUI: a stage may run when every stage in its
`depends_on` has a last run that `succeeded` or was `skipped` as already done.
"""

from __future__ import annotations

from typing import Any, Iterable

from wizard.state import StageStatus

#: Statuses of a dependency's last run that let a dependent stage run.
SATISFIED = (StageStatus.SUCCEEDED, StageStatus.SKIPPED)


def is_satisfied(record: Any) -> bool:
    """True when a dependency's last `StageRecord` (or None: never ran) lets dependents run."""
    return record is not None and getattr(record, "status", None) in SATISFIED


def blocking_dependencies(stage: Any, store: Any, satisfied: Iterable[str] = ()) -> list[str]:
    """The ids in `stage.depends_on` that have not succeeded yet, in declaration order.

    Args:
        stage: a `wizard.stages.base.Stage` (anything with `depends_on`).
        store: a `wizard.state.StateStore` (anything with `last(stage_id) -> StageRecord | None`).
        satisfied: ids to count as done whatever their record says (stages this run already
            finished, so a multi-stage run does not re-read its own records).

    Returns:
        The blocking ids; empty when the stage may run.
    """
    done = set(satisfied)
    return [dep for dep in getattr(stage, "depends_on", ()) or ()
            if dep not in done and not is_satisfied(store.last(dep))]
