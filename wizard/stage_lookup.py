"""Provides stage lookup for the commands that run and report stages: the registry plus a dev/test hook.

`PI05_WIZARD_EXTRA_STAGES=module:function` (a test/dev hook, not for operators) names a callable
returning a list of extra `Stage`s, appended after the registry's; `run`, `status` and `logs`
then accept their ids. The end-to-end tests use it to run a stage whose step just sleeps, without
touching the recipe. Several hooks may be given, separated by commas.
"""

from __future__ import annotations

import importlib
import os

from wizard.stages.base import Stage

ENV_EXTRA = "PI05_WIZARD_EXTRA_STAGES"


class StageLookupError(Exception):
    """An unknown stage id, or a broken `PI05_WIZARD_EXTRA_STAGES` hook (a usage error, exit 2)."""


def extra_stages() -> list[Stage]:
    """The stages named by `PI05_WIZARD_EXTRA_STAGES`, or [] when it is unset.

    Raises:
        StageLookupError: the hook cannot be imported, is not `module:function`, or returns non-Stages.
    """
    spec = os.environ.get(ENV_EXTRA, "").strip()
    out: list[Stage] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        module_name, sep, func_name = part.partition(":")
        if not sep or not module_name or not func_name:
            raise StageLookupError(f"{ENV_EXTRA}={part!r}: expected module:function")
        try:
            func = getattr(importlib.import_module(module_name), func_name)
            stages = list(func())
        except Exception as exc:  # noqa: BLE001 - any failure of the hook is the same usage error
            raise StageLookupError(f"{ENV_EXTRA}={part!r} failed: {type(exc).__name__}: {exc}") from exc
        if not all(isinstance(s, Stage) for s in stages):
            raise StageLookupError(f"{ENV_EXTRA}={part!r} returned something that is not a Stage")
        out.extend(stages)
    return out


def stage_ids() -> list[str]:
    """Every known stage id in run order: the registry's, then the hook's."""
    from wizard.stages.registry import STAGE_IDS

    ids = list(STAGE_IDS)
    ids += [s.id for s in extra_stages() if s.id not in ids]
    return ids


def find_stage(stage_id: str) -> Stage:
    """The stage with this id (registry first, then the hook).

    Raises:
        StageLookupError: no such stage.
    """
    from wizard.stages.registry import STAGE_IDS, get_stage

    if stage_id in STAGE_IDS:
        return get_stage(stage_id)
    for s in extra_stages():
        if s.id == stage_id:
            return s
    raise StageLookupError(f"unknown stage {stage_id!r}; stages: {', '.join(stage_ids())}")
