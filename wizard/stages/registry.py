"""Provides the ordered stage list: `STAGE_IDS`, `all_stages()`, `get_stage(id)`.

Each stage group module under `wizard/stages/` declares its stage(s) as module attributes; this
module only puts them in order. A stage module that another part of the project has not delivered
yet (the `dataset` stage) is replaced by a declaration that says so and fails when run.
"""

from __future__ import annotations

import importlib

from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where

#: Every stage id, in the order they run.
STAGE_IDS: tuple[str, ...] = (
    "preflight", "container", "cann", "system-packages", "torch", "model-code", "dependencies",
    "dataset", "weights", "train", "image",
)

#: Where each stage is declared: (module, attribute).
_WHERE: dict[str, tuple[str, str]] = {
    "preflight": ("wizard.stages.preflight", "STAGE"),
    "container": ("wizard.stages.container", "STAGE"),
    "cann": ("wizard.stages.cann", "STAGE"),
    "system-packages": ("wizard.stages.packages", "SYSTEM_PACKAGES"),
    "torch": ("wizard.stages.packages", "TORCH"),
    "model-code": ("wizard.stages.model_code", "MODEL_CODE"),
    "dependencies": ("wizard.stages.model_code", "DEPENDENCIES"),
    "dataset": ("wizard.stages.dataset", "STAGE"),
    "weights": ("wizard.stages.weights", "STAGE"),
    "train": ("wizard.stages.train", "STAGE"),
    "image": ("wizard.stages.image", "STAGE"),
}


class UnknownStage(KeyError):
    """A stage id that is not one of `STAGE_IDS`."""

    def __str__(self) -> str:
        return f"unknown stage {self.args[0]!r}; stages: {', '.join(STAGE_IDS)}"


def _undelivered(stage_id: str, module: str, reason: str) -> Stage:
    def act(ctx: StageContext, io: ActionIO) -> int:
        io.emit(f"the {stage_id} stage is not available: {module} could not be loaded ({reason})", stream="stderr")
        return 1

    return Stage(id=stage_id, title=stage_id.replace("-", " ").capitalize(),
                 description=f"This stage's declaration ({module}) is not installed, so it cannot run.",
                 where=Where.CONTAINER,
                 steps=lambda ctx: [Step(title=f"{stage_id} (not available)", action=act,
                                         describe=f"(not available: {module} missing)")])


def get_stage(stage_id: str) -> Stage:
    """The declared stage with this id.

    Raises:
        UnknownStage: the id is not one of STAGE_IDS.
    """
    if stage_id not in _WHERE:
        raise UnknownStage(stage_id)
    module_name, attr = _WHERE[stage_id]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return _undelivered(stage_id, module_name, "module not found")
    stage = getattr(module, attr, None)
    if not isinstance(stage, Stage):
        return _undelivered(stage_id, module_name, f"it has no {attr} stage")
    if stage.id != stage_id:
        raise RuntimeError(f"{module_name}.{attr} declares stage {stage.id!r}, expected {stage_id!r}")
    return stage


def all_stages() -> list[Stage]:
    """Every stage, in run order."""
    return [get_stage(i) for i in STAGE_IDS]
