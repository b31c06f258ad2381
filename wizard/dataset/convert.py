"""Provides the v2.1 -> v3.0 conversion step: its pre-checks and lerobot's own converter command.

The converter is lerobot's `python -m lerobot.datasets.v30.convert_dataset_v21_to_v30` at the pinned
commit, run inside the container (see `/work/shared/datasets/convert.log`). What it does with a local
path (read from its source, RECIPE.md "Converter"): it writes `<path>_v30` (deleting one that exists),
then moves `<path>` to `<path>_old` and `<path>_v30` to `<path>`. If `<path>_old` and `<path>` both exist
when it starts, it DELETES `<path>` and restores `<path>_old` in its place; on a v3.0 folder it fails
("expected 'v2.1'"). `--push-to-hub` defaults to true and then fails with HFValidationError on a local
path, so we always pass `--push-to-hub=false`, and `HF_HUB_OFFLINE=1` keeps its first step (a
snapshot_download of a v3.0 copy from the Hub) off the network.
"""

from __future__ import annotations

from pathlib import Path

from checks.result import CheckResult, Level, Message, Status
from wizard.dataset.layout import V21, V30, DatasetError, detect_disk_format, load_info, old_copy_of

#: The converter module at the pinned lerobot commit.
CONVERTER_MODULE = "lerobot.datasets.v30.convert_dataset_v21_to_v30"

#: Environment for the converter: no Hub access (a local dataset needs none).
CONVERTER_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

#: Pre-check verdicts (the `details["verdict"]` of `precheck_conversion`).
CONVERT = "convert"
ALREADY_DONE = "already-v3.0"
BLOCKED = "blocked"


def converter_argv(python: str, dataset_path: str, module: str = CONVERTER_MODULE) -> list[str]:
    """The converter's argv, one element per argument (paths with spaces stay whole).

    Args:
        python: the interpreter inside the container (the recipe's `python.executable`).
        dataset_path: the dataset folder as the container sees it (`/data/koch_test`).
        module: the converter module (the recipe's `dataset.convert_module`).
    """
    return [python, "-m", module, f"--repo-id={dataset_path}", "--push-to-hub=false"]


def precheck_conversion(root: str | Path) -> CheckResult:
    """Decide whether the converter may run on `root` (a path on this machine).

    Returns:
        A CheckResult with `details["verdict"]`: `convert` (ok: a v2.1 dataset, nothing in the way;
        warn when a `<path>_v30` the converter would delete exists), `already-v3.0` (ok: nothing to do),
        or `blocked` (fail: no or broken info.json, an unknown version, files disagreeing with
        info.json, or a `<path>_old` beside it that the converter would restore over the dataset).
    """
    root = Path(root)
    title = "Conversion pre-check"

    def blocked(summary: str, text: str) -> CheckResult:
        return CheckResult(id="dataset-convert-precheck", title=title, status=Status.FAIL, summary=summary,
                           messages=[Message(level=Level.ERROR, text=text)], details={"verdict": BLOCKED})

    try:
        info = load_info(root)
    except DatasetError as exc:
        return blocked("no readable meta/info.json", f"{exc}. Point the recipe's dataset path at a LeRobot dataset.")
    disk = detect_disk_format(root)
    if info.codebase_version == V30:
        if disk == V21:
            return blocked("info.json says v3.0, the files are v2.1",
                           "meta/info.json says v3.0 but the files follow the v2.1 layout; restore the dataset "
                           "from a copy before converting.")
        return CheckResult(id="dataset-convert-precheck", title=title, status=Status.OK,
                           summary="already v3.0: nothing to convert", details={"verdict": ALREADY_DONE})
    if info.codebase_version != V21:
        return blocked(f"codebase_version {info.codebase_version!r}",
                       f"The converter reads only v2.1 datasets; this one says {info.codebase_version!r}.")
    old = old_copy_of(root)
    if old.exists():
        return blocked(f"{old.name} exists beside the dataset",
                       f"{old} exists. lerobot's converter would delete {root} and restore {old} in its place. "
                       f"If {old.name} is the original of an earlier conversion, move it elsewhere (or delete it "
                       "once you are sure) and run the stage again.")
    v30 = root.parent / f"{root.name}_v30"
    if v30.exists():
        return CheckResult(id="dataset-convert-precheck", title=title, status=Status.WARN,
                           summary=f"{v30.name} exists and will be replaced",
                           messages=[Message(level=Level.WARN, text=f"{v30} is left from an interrupted conversion; "
                                                                   "the converter deletes it before writing anew.")],
                           details={"verdict": CONVERT})
    return CheckResult(id="dataset-convert-precheck", title=title, status=Status.OK,
                       summary="v2.1: ready to convert", details={"verdict": CONVERT})


def verify_converted(root: str | Path) -> CheckResult:
    """After the converter: info.json says v3.0, the files agree, and the v2.1 original sits at `<path>_old`."""
    root = Path(root)
    title = "Converted to v3.0"
    try:
        info = load_info(root)
    except DatasetError as exc:
        return CheckResult(id="dataset-converted", title=title, status=Status.FAIL, summary="no readable info.json",
                           messages=[Message(level=Level.ERROR, text=str(exc))])
    disk = detect_disk_format(root)
    if info.codebase_version != V30 or disk != V30:
        return CheckResult(id="dataset-converted", title=title, status=Status.FAIL,
                           summary=f"info.json {info.codebase_version}, files {disk or 'unclear'}",
                           messages=[Message(level=Level.ERROR, text="The dataset is not in the v3.0 layout after "
                                                                     "conversion; read the converter's output above.")])
    return CheckResult(id="dataset-converted", title=title, status=Status.OK, summary="v3.0 layout on disk")
