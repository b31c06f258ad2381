"""Provides the `train` stage: DrivingSDK's training script on the visible NPUs, in the container.

Report, "训练执行": `export ASCEND_RT_VISIBLE_DEVICES=...`, then from the lerobot clone
`bash test/train_performance.sh <dataset> <pi05_weights>` (or `train_full.sh`). The scripts ship with
`world_size=16` (an A3 box); on an 8-NPU A2 it must equal the number of visible NPUs, so the stage
sets it first.
"""

from __future__ import annotations

import posixpath

from checks.result import CheckResult
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.stages.common import container_of, guarded, read_or_none, sourced, verdict

#: lerobot's last line of a finished training run.
END_MARKER = "End of training"


def log_path(ctx: StageContext) -> str:
    """The training log inside the container for the recipe's mode."""
    return posixpath.join(ctx.recipe.lerobot_dir, ctx.recipe.train.current.log)


def _steps(ctx: StageContext) -> list[Step]:
    r = ctx.recipe
    mode = r.train.current
    return [
        Step(title=f"Set world_size={r.train.world_size} in {mode.script}",
             argv=["sed", "-i", "-E", f"s/^([[:space:]]*)world_size=[0-9]+/\\1world_size={r.train.world_size}/",
                   mode.script],
             cwd=r.lerobot_dir, timeout_s=30.0),
        Step(title=f"Train Pi-0.5 ({r.train.mode}: {mode.steps} steps on {r.train.world_size} NPUs)",
             argv=sourced([r.cann.toolkit_set_env, r.cann.nnal_set_env],
                          ["bash", mode.script, r.dataset.path, r.weights.pi05.path]),
             env={"ASCEND_RT_VISIBLE_DEVICES": r.train.visible_devices}, cwd=r.lerobot_dir, timeout_s=None),
    ]


def finished(ctx: StageContext) -> bool:
    """True when the mode's training log ends with lerobot's "End of training"."""
    text = read_or_none(container_of(ctx), log_path(ctx))
    return text is not None and END_MARKER in text[-65536:]


def _verify(ctx: StageContext) -> list[CheckResult]:
    def body() -> list[CheckResult]:
        ok = finished(ctx)
        return [verdict("train-finished", "Training finished", ok,
                        f"{log_path(ctx)} says {END_MARKER!r}" if ok else f"{log_path(ctx)} has no {END_MARKER!r}",
                        problem="training stopped before its last step (see the stage log)")]
    return guarded("train", "Training", body)


STAGE = Stage(
    id="train",
    title="Training",
    description=("Runs DrivingSDK's Pi-0.5 training script on the visible NPUs: the performance mode (1000 steps) "
                 "to measure samples per second, or the full mode (30000 steps) for accuracy. It can run for hours "
                 "and has no time limit."),
    where=Where.CONTAINER,
    steps=_steps,
    depends_on=("dataset", "weights", "dependencies"),
    done=finished,
    verify=_verify,
    verify_describe=f"the training log ends with {END_MARKER!r} (the last step was reached)",
    metrics=True,
)
