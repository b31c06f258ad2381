"""Provides the `dataset` stage: inspect, convert v2.1 -> v3.0 if needed, quantile statistics if missing, verify.

Report, "数据集准备": `koch_test` in LeRobot v2.1 is converted with lerobot's converter, then quantile
statistics are added with lerobot's script (about 2.5 hours for 80 episodes, ending in an
HFValidationError from `push_to_hub`). Here the converter still runs inside the container (with
`--push-to-hub=false`), but the statistics are our own action on the host (`wizard.dataset.stats`),
reading the same folder through the host side of the data mount (`container.data.host_path` is
`container.data.container_path` inside), in seconds and without network.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from checks.result import CheckResult, Level, Message, Status
from wizard.dataset.convert import ALREADY_DONE, BLOCKED, CONVERTER_ENV, converter_argv, precheck_conversion, \
    verify_converted
from wizard.dataset.inspect import DatasetReport, inspect_dataset
from wizard.dataset.layout import PI05_QUANTILE_FEATURES, V21, DatasetError
from wizard.dataset.stats import StatsCancelled, compute_stats, write_stats
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where
from wizard.stages.common import described

#: Seconds the converter may take (it copies data and video files; 80 episodes take well under this).
CONVERT_TIMEOUT_S = 3600.0
#: Seconds our statistics may take (seconds in practice; the bound only catches a hung filesystem).
STATS_TIMEOUT_S = 1800.0


class PathNotMapped(Exception):
    """The recipe's dataset path is not under the container's data mount, so the host cannot see it."""


def not_mapped_text(path: str, container_path: str, host_path: str, on_host: bool = False) -> str:
    """The sentence for a dataset outside the data mount: what is outside, why it matters, the way out.

    Args:
        path: the recipe's `[dataset] path` (a container path), or with `on_host` a host folder
            (what `dataset inspect PATH` was given).
        container_path: the data mount inside the container (`/data`).
        host_path: the host folder mounted there.
        on_host: `path` is a host folder, not the recipe's container path.
    """
    name = posixpath.basename(posixpath.normpath(path)) or "dataset"
    fix = (f"move the dataset into {posixpath.join(host_path, name)} on the host and set "
           f"[dataset] path = \"{posixpath.join(container_path, name)}\" in the recipe.")
    if on_host:
        return (f"This folder {path} is outside {host_path}, the host folder the container mounts at "
                f"{container_path}, so the container cannot see it: {fix}")
    return (f"The recipe's [dataset] path {path} is outside the data mount {container_path} (the host's "
            f"{host_path}), so the container cannot see it and the wizard has no host folder to map it to: "
            f"{fix}")


def host_dataset_path(ctx: StageContext) -> str:
    """The dataset folder as the host sees it (a host path, before any `--root`).

    `dataset.path` `/data/koch_test` with `container.data` `host_path=/srv/me`, `container_path=/data`
    gives `/srv/me/koch_test`.

    Raises:
        PathNotMapped: `dataset.path` is not under `container.data.container_path`.
    """
    mount = ctx.recipe.container.data
    inside = posixpath.normpath(ctx.recipe.dataset.path)
    base = posixpath.normpath(mount.container_path)
    if inside == base:
        rest = ""
    elif inside.startswith(base.rstrip("/") + "/"):
        rest = inside[len(base.rstrip("/")) + 1:]
    else:
        raise PathNotMapped(not_mapped_text(ctx.recipe.dataset.path, mount.container_path, mount.host_path))
    return posixpath.join(mount.host_path, rest) if rest else mount.host_path


def local_dataset_path(ctx: StageContext) -> Path:
    """The dataset folder on this machine's filesystem (honours a rooted LocalHost's `--root`).

    Raises:
        PathNotMapped: see `host_dataset_path`.
    """
    host_path = host_dataset_path(ctx)
    real = getattr(ctx.host, "real_path", None)
    return Path(real(host_path) if callable(real) else host_path)


def _emit_results(io: ActionIO, results: list[CheckResult]) -> None:
    for r in results:
        stream = "stderr" if r.status.is_problem else "stdout"
        io.emit(f"{r.status.mark} {r.title}: {r.summary}", stream=stream)
        for m in r.messages:
            io.emit(f"    {m.text}", stream=stream)


def _own_work(report: DatasetReport, result: CheckResult) -> bool:
    if result.id in ("dataset-stats", "dataset-old-copy"):  # the pre-check step stops on `_old`
        return True
    return result.id == "dataset-format" and report.format == V21 and report.disk_format in (None, V21)


def _root_or_say(ctx: StageContext, io: ActionIO) -> Path | None:
    """The dataset folder as this process sees it, or None after saying why it has none (PathNotMapped)."""
    try:
        return local_dataset_path(ctx)
    except PathNotMapped as exc:
        io.emit(str(exc), stream="stderr")
        return None


def _inspect_action(ctx: StageContext, io: ActionIO) -> int:
    root = _root_or_say(ctx, io)
    if root is None:
        return 1
    if not root.exists():
        io.emit(f"No dataset at {host_dataset_path(ctx)} (the recipe's dataset path {ctx.recipe.dataset.path}): "
                "copy the dataset there, or set [dataset] path in the recipe to where it is.", stream="stderr")
        return 1
    report = inspect_dataset(root)
    if report.format is None:
        io.emit(f"No LeRobot dataset at {host_dataset_path(ctx)}: meta/info.json is missing or unreadable.",
                stream="stderr")
    else:
        io.emit(f"dataset {root}: {report.format}, {report.episodes} episodes, {report.frames} frames, "
                f"cameras: {', '.join(c.name for c in report.cameras) or 'none'}")
    _emit_results(io, report.results)
    # Converting v2.1 and adding statistics are this stage's own work; any other problem stops it here.
    blocking = [r for r in report.problems if not _own_work(report, r)]
    return 1 if blocking else 0


def _precheck_action(ctx: StageContext, io: ActionIO) -> int:
    root = _root_or_say(ctx, io)
    if root is None:
        return 1
    result = precheck_conversion(root)
    _emit_results(io, [result])
    return 1 if result.details.get("verdict") == BLOCKED else 0


@described("the dataset is already v3.0 (meta/info.json and the files on disk agree)")
def _already_v30(ctx: StageContext) -> bool:
    return precheck_conversion(local_dataset_path(ctx)).details.get("verdict") == ALREADY_DONE


def _verify_conversion_action(ctx: StageContext, io: ActionIO) -> int:
    result = verify_converted(local_dataset_path(ctx))
    _emit_results(io, [result])
    return 0 if result.status is Status.OK else 1


@described("meta/stats.json already has q01/q99 for observation.state and action")
def _has_quantiles(ctx: StageContext) -> bool:
    return inspect_dataset(local_dataset_path(ctx)).has_pi05_quantiles


def _stats_action(ctx: StageContext, io: ActionIO) -> int:
    root = _root_or_say(ctx, io)
    if root is None:
        return 1

    def progress(done: int, total: int) -> None:
        io.emit(f"episodes {done}/{total}", progress=True)

    try:
        run = compute_stats(root, progress=progress, cancelled=io.cancelled)
    except StatsCancelled as exc:
        io.emit(str(exc), stream="stderr")
        return 130
    except DatasetError as exc:
        io.emit(str(exc), stream="stderr")
        return 1
    for note in run.notes:
        io.emit(f"note: {note}")
    for name, why in run.skipped.items():
        io.emit(f"skipped {name}: {why}")
    if run.empty_episodes:
        io.emit(f"empty episodes left out: {', '.join(map(str, run.empty_episodes))}")
    if not run.ok:
        for p in run.problems():
            io.emit(p, stream="stderr")
        io.emit("meta/stats.json was not changed", stream="stderr")
        return 1
    try:
        out = write_stats(root, run.stats)
    except DatasetError as exc:
        io.emit(str(exc), stream="stderr")
        io.emit("if the converter (running as root in the container) owns the folder, run the wizard as that "
                "user or give yourself write access to meta/", stream="stderr")
        return 1
    io.emit(f"computed {len(run.stats)} features over {run.episodes} episodes, {run.frames} frames "
            f"in {run.duration_s:.2f} s; wrote {out.path}" + (f" (backup {out.backup.name})" if out.backup else ""))
    return 0


def _steps(ctx: StageContext) -> list[Step]:
    from wizard.hints import command

    d = ctx.recipe.dataset
    try:
        host_path = host_dataset_path(ctx)
        inspect_text = command("dataset", "inspect", host_path)
        stats_text = command("dataset", "stats", host_path)
        precheck_text = f"check {host_path} is v2.1 and no {posixpath.basename(host_path)}_old lies beside it"
        verify_text = f"check {host_path} is v3.0 on disk"
    except PathNotMapped as exc:  # every host-side step says why it cannot run, plainly
        inspect_text = precheck_text = verify_text = stats_text = f"cannot run: {exc}"
    return [
        Step(title="Inspect the dataset", action=_inspect_action, where=Where.HOST, timeout_s=300.0,
             describe=inspect_text),
        Step(title="Check the converter can run safely", action=_precheck_action, where=Where.HOST, timeout_s=60.0,
             describe=precheck_text, skip_if=_already_v30),
        Step(title="Convert v2.1 to v3.0 (lerobot's converter)",
             argv=converter_argv(ctx.recipe.python.executable, d.path, d.convert_module),
             env=dict(CONVERTER_ENV), cwd=ctx.recipe.container.data.container_path, timeout_s=CONVERT_TIMEOUT_S,
             where=Where.CONTAINER, skip_if=_already_v30),
        Step(title="Check the conversion", action=_verify_conversion_action, where=Where.HOST, timeout_s=60.0,
             describe=verify_text),
        Step(title="Compute quantile statistics", action=_stats_action, where=Where.HOST, timeout_s=STATS_TIMEOUT_S,
             describe=stats_text, skip_if=_has_quantiles),
    ]


def dataset_done(ctx: StageContext) -> bool:
    """True when the dataset is v3.0 on disk with every named file and q01/q99 for pi05's features.

    Raises:
        ProbeUnavailable: the dataset path is outside the data mount (`plan` shows the sentence).
    """
    from wizard.stages.common import ProbeUnavailable

    try:
        root = local_dataset_path(ctx)
    except PathNotMapped as exc:
        raise ProbeUnavailable(str(exc)) from None
    return inspect_dataset(root).training_ready


def _verify(ctx: StageContext) -> list[CheckResult]:
    try:
        root = local_dataset_path(ctx)
    except PathNotMapped as exc:
        return [CheckResult(id="dataset-info", title="Dataset metadata", status=Status.FAIL, summary=str(exc),
                            messages=[Message(level=Level.ERROR, text=str(exc))])]
    report = inspect_dataset(root)
    wanted = {"dataset-info", "dataset-format", "dataset-files", "dataset-stats"}
    return [r for r in report.results if r.id in wanted]


STAGE = Stage(
    id="dataset",
    title="Dataset",
    description=("Checks the LeRobot dataset, converts a v2.1 dataset to v3.0 with lerobot's own converter "
                 "(without pushing to the Hub), and adds the quantile statistics pi05 normalizes "
                 f"{' and '.join(PI05_QUANTILE_FEATURES)} with, in seconds instead of hours: cameras are "
                 "never decoded."),
    where=Where.CONTAINER,
    steps=_steps,
    depends_on=("dependencies",),
    done=dataset_done,
    verify=_verify,
    verify_describe=("the dataset's metadata, format (codebase_version v3.0), files, and q01/q99 quantile "
                     "statistics for observation.state and action"),
)
