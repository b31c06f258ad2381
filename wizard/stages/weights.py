"""Provides the `weights` stage: Pi-0.5 base and PaliGemma weights in place, the tokenizer path rewritten.

Report, "权重准备": `lerobot/pi05_base` from the Hub; `google/paligemma-3b-pt-224` (gated, also on
ModelScope) placed by hand at `/root/paligemma-3b-pt-224`, then
`bash test/paligemma_weights_mod.sh /root/paligemma-3b-pt-224` from the lerobot clone; pi05 loads the
tokenizer in `src/lerobot/processor/tokenizer_processor.py`.
"""

from __future__ import annotations

import posixpath

from checks.result import CheckResult
from wizard.recipe import WeightSource
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where
from wizard.stages.common import ProbeUnavailable, container_of, guarded, read_or_none, verdict

#: Files that show a weight folder is complete enough to load (Hugging Face layout).
WEIGHT_MARKERS = {"pi05": ("config.json",), "paligemma": ("config.json",)}
#: A tokenizer file pi05 needs from the PaliGemma folder (one of them).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model")


def missing_files(ctx: StageContext, name: str) -> list[str]:
    """Files of weight set `name` ("pi05" or "paligemma") missing in the container; [] when in place.

    Raises:
        ProbeUnavailable: the container cannot be reached.
    """
    src: WeightSource = getattr(ctx.recipe.weights, name)
    host = container_of(ctx)
    names = set(host.listdir(src.path))
    missing = [f for f in WEIGHT_MARKERS[name] if f not in names]
    if not any(n.endswith(".safetensors") for n in names):
        missing.append("*.safetensors")
    if name == "paligemma" and not names.intersection(TOKENIZER_FILES):
        missing.append(" or ".join(TOKENIZER_FILES))
    return missing


def _check_action(name: str):
    def act(ctx: StageContext, io: ActionIO) -> int:
        src: WeightSource = getattr(ctx.recipe.weights, name)
        try:
            missing = missing_files(ctx, name)
        except ProbeUnavailable as exc:
            io.emit(str(exc), stream="stderr")
            return 1
        if not missing:
            io.emit(f"{src.repo_id}: in place at {src.path}")
            return 0
        io.emit(f"{src.repo_id} is not complete at {src.path} (inside the container): missing {', '.join(missing)}",
                stream="stderr")
        io.emit("download it by hand from " + " or ".join(src.urls) + f" and place it at {src.path}", stream="stderr")
        return 1
    return act


def tokenizer_points_home(ctx: StageContext) -> bool:
    """True when lerobot's tokenizer_processor.py names the local PaliGemma folder."""
    w = ctx.recipe.weights
    text = read_or_none(container_of(ctx), posixpath.join(ctx.recipe.lerobot_dir, w.tokenizer.processor_file))
    return text is not None and w.paligemma.path in text


def _steps(ctx: StageContext) -> list[Step]:
    w = ctx.recipe.weights
    return [
        Step(title=f"Check the Pi-0.5 weights at {w.pi05.path}", action=_check_action("pi05"), timeout_s=60.0,
             describe=f"check {w.pi05.path} holds {w.pi05.repo_id} (config.json, *.safetensors)"),
        Step(title=f"Check the PaliGemma weights at {w.paligemma.path}", action=_check_action("paligemma"),
             timeout_s=60.0,
             describe=f"check {w.paligemma.path} holds {w.paligemma.repo_id} (config.json, *.safetensors, tokenizer)"),
        Step(title="Point lerobot at the local PaliGemma", argv=["bash", w.tokenizer.mod_script, w.paligemma.path],
             cwd=ctx.recipe.lerobot_dir, timeout_s=120.0),
    ]


def _results(ctx: StageContext) -> list[CheckResult]:
    w = ctx.recipe.weights
    out = []
    for name in ("pi05", "paligemma"):
        src: WeightSource = getattr(w, name)
        missing = missing_files(ctx, name)
        out.append(verdict(f"weights-{name}", f"{src.repo_id} weights", not missing,
                           f"in place at {src.path}" if not missing else f"missing {', '.join(missing)} at {src.path}",
                           remedy="paligemma-offline" if name == "paligemma" else None))
    ok = tokenizer_points_home(ctx)
    out.append(verdict("tokenizer-path", "Tokenizer path", ok,
                       f"{w.tokenizer.processor_file} names {w.paligemma.path}" if ok
                       else f"{w.tokenizer.processor_file} does not name {w.paligemma.path}",
                       remedy="paligemma-offline"))
    return out


STAGE = Stage(
    id="weights",
    title="Weights",
    description=("Makes sure the Pi-0.5 base weights and the PaliGemma encoder are in place inside the container "
                 "(PaliGemma is gated and cannot download itself offline), then rewrites lerobot's tokenizer path "
                 "to the local PaliGemma copy with DrivingSDK's script."),
    where=Where.CONTAINER,
    steps=_steps,
    depends_on=("model-code",),
    done=lambda ctx: all(r.status.value == "ok" for r in _results(ctx)),
    verify_describe=("pi05_base and PaliGemma files are in place, and the tokenizer config names the local "
                     "PaliGemma folder"),
    verify=lambda ctx: guarded("weights", "Weights", lambda: _results(ctx)),
)
