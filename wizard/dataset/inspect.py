"""Provides `inspect_dataset(path) -> DatasetReport`: what a LeRobot dataset folder holds and what is wrong with it.

Reads `meta/info.json`, cross-checks its `codebase_version` with the files on disk, lists features,
cameras and tasks (v3.0 `meta/tasks.parquet`, v2.1 `meta/tasks.jsonl`), sums the size on disk, looks
for q01/q99 of the features pi05 normalizes in `meta/stats.json`, and checks that every file the
metadata names is there. Problems come back as `CheckResult`s, never as exceptions. Formats: the
lerobot-written samples in `/work/shared/datasets/` (tiny_v21, tiny_v30).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from checks.result import CheckResult, Level, Message, Status
from wizard.dataset.layout import (
    MAX_META_BYTES,
    PI05_QUANTILE_FEATURES,
    V21,
    V30,
    DatasetError,
    DatasetInfo,
    detect_disk_format,
    format_path,
    has_quantiles,
    load_info,
    load_stats,
    old_copy_of,
)
from wizard.dataset.reader import read_episode_index

#: At most this many missing files are named in a message; the rest are counted.
MAX_NAMED = 5


class FeatureSummary(BaseModel):
    """One feature as info.json declares it."""

    name: str
    dtype: str
    shape: list[int]
    camera: bool = False
    """True for image and video features."""
    video: bool = False
    """True when the camera is stored as mp4 video (dtype `video`)."""


class DatasetReport(BaseModel):
    """What `inspect_dataset` found. Fields are None when the metadata could not tell."""

    path: str
    format: str | None = None
    """info.json's `codebase_version` (`v2.1`, `v3.0`)."""
    disk_format: str | None = None
    """The layout the files on disk follow (`v2.1`, `v3.0`), or None when unclear."""
    robot_type: str | None = None
    fps: float | None = None
    episodes: int | None = None
    frames: int | None = None
    features: list[FeatureSummary] = Field(default_factory=list)
    cameras: list[FeatureSummary] = Field(default_factory=list)
    tasks: list[str] = Field(default_factory=list)
    size_bytes: int = 0
    """Bytes of all files under the folder."""
    quantiles: dict[str, bool] = Field(default_factory=dict)
    """For each feature pi05 normalizes (`observation.state`, `action`): q01 and q99 present with the right width."""
    old_copy: str | None = None
    """A `<path>_old` folder beside the dataset, left by an earlier conversion."""
    results: list[CheckResult] = Field(default_factory=list)

    @property
    def needs_conversion(self) -> bool:
        """True for a v2.1 dataset."""
        return self.format == V21

    @property
    def has_pi05_quantiles(self) -> bool:
        """True when q01/q99 are there for every feature pi05 normalizes."""
        return bool(self.quantiles) and all(self.quantiles.values())

    @property
    def problems(self) -> list[CheckResult]:
        """Results with status fail or error."""
        return [r for r in self.results if r.status.is_problem]

    @property
    def training_ready(self) -> bool:
        """v3.0 on disk, every named file there, q01/q99 for pi05's features: nothing left to do."""
        return self.format == V30 and self.disk_format == V30 and self.has_pi05_quantiles and not self.problems


def _result(id_: str, title: str, status: Status, summary: str, *messages: Message, **details: object) -> CheckResult:
    return CheckResult(id=id_, title=title, status=status, summary=summary, messages=list(messages),
                       details=dict(details))


def _folder_size(root: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _tasks_v30(root: Path) -> list[str]:
    table = pq.read_table(root / "meta" / "tasks.parquet")
    by_index: list[tuple[int, str]] = []
    text_cols = [c for c in table.column_names if pa.types.is_string(table.schema.field(c).type)
                 or pa.types.is_large_string(table.schema.field(c).type)]
    if not text_cols:
        raise DatasetError(f"{root / 'meta' / 'tasks.parquet'} has no text column")
    texts = table.column(text_cols[0]).to_pylist()
    indices = table.column("task_index").to_pylist() if "task_index" in table.column_names else list(range(len(texts)))
    for i, t in zip(indices, texts):
        by_index.append((int(i) if i is not None else len(by_index), str(t)))
    return [t for _, t in sorted(by_index)]


def _read_jsonl(path: Path) -> list[dict]:
    if path.stat().st_size > MAX_META_BYTES:
        raise DatasetError(f"{path} is larger than {MAX_META_BYTES} bytes")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path} line {n} is not JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{path} line {n} is not a JSON object")
        rows.append(row)
    return rows


def _tasks_v21(root: Path) -> list[str]:
    rows = _read_jsonl(root / "meta" / "tasks.jsonl")
    return [str(r.get("task", "")) for r in sorted(rows, key=lambda r: int(r.get("task_index", 0)))]


def _named_files(root: Path, info: DatasetInfo) -> list[str]:
    """Relative paths of every data and video file the metadata names."""
    if info.codebase_version == V30:
        index = read_episode_index(root, info)
        return index.data_files + index.video_files
    files = []
    for row in _read_jsonl(root / "meta" / "episodes.jsonl"):
        ep = int(row["episode_index"])
        chunk = ep // info.chunks_size
        files.append(format_path(info.data_path, episode_chunk=chunk, episode_index=ep))
        for key in info.video_keys:
            if info.video_path:
                files.append(format_path(info.video_path, episode_chunk=chunk, episode_index=ep, video_key=key))
    return files


def inspect_dataset(path: str | os.PathLike[str]) -> DatasetReport:
    """Describe a LeRobot dataset folder and list its problems. Never raises for bad input.

    Result ids: `dataset-info` (meta/info.json readable), `dataset-format` (v3.0 and agreeing with
    the disk; v2.1 fails with "convert first"), `dataset-old-copy` (`<path>_old` beside it),
    `dataset-files` (every file the metadata names is on disk), `dataset-stats` (q01/q99 of
    `observation.state` and `action` in meta/stats.json).

    Args:
        path: the dataset folder on this machine.
    """
    started = time.perf_counter()
    root = Path(path)
    report = DatasetReport(path=str(root))
    if not root.is_dir():
        report.results.append(_result("dataset-info", "Dataset metadata", Status.FAIL, f"{root} is not a folder"))
        return report
    report.size_bytes = _folder_size(root)
    old = old_copy_of(root)
    if old.exists():
        report.old_copy = str(old)
    try:
        info = load_info(root)
    except DatasetError as exc:
        report.results.append(_result(
            "dataset-info", "Dataset metadata", Status.FAIL, "meta/info.json is missing or unreadable",
            Message(level=Level.ERROR, text=f"{exc}. A LeRobot dataset folder holds meta/info.json; "
                                            "check the path points at the dataset itself.")))
        return report
    report.format = info.codebase_version
    report.disk_format = detect_disk_format(root)
    report.robot_type = info.robot_type
    report.fps = info.fps
    report.episodes = info.total_episodes
    report.frames = info.total_frames
    for name, spec in info.features.items():
        summary = FeatureSummary(name=name, dtype=spec.dtype, shape=list(spec.shape), camera=spec.is_camera,
                                 video=spec.dtype == "video")
        report.features.append(summary)
        if spec.is_camera:
            report.cameras.append(summary)
    report.results.append(_result(
        "dataset-info", "Dataset metadata", Status.OK,
        f"{info.robot_type or 'unknown robot'}, {info.total_episodes} episodes, {info.total_frames} frames "
        f"at {info.fps:g} fps, {len(info.features)} features"))
    report.results.append(_format_result(info, report.disk_format))
    report.results.append(_old_copy_result(root, report.old_copy, info.codebase_version))
    report.results.append(_files_result(root, info, report))
    report.results.append(_stats_result(root, info, report))
    elapsed = time.perf_counter() - started
    report.results = [r.model_copy(update={"duration_s": elapsed}) for r in report.results]
    return report


def _format_result(info: DatasetInfo, disk: str | None) -> CheckResult:
    declared = info.codebase_version
    if declared not in (V21, V30):
        return _result("dataset-format", "Dataset format", Status.FAIL, f"codebase_version {declared!r}",
                       Message(level=Level.ERROR, text=f"codebase_version {declared!r} is neither v2.1 nor v3.0; "
                                                       "the pinned lerobot reads only v3.0."))
    if disk is not None and disk != declared:
        return _result("dataset-format", "Dataset format", Status.FAIL, f"info.json says {declared}, files are {disk}",
                       Message(level=Level.ERROR, text=f"meta/info.json says {declared} but the files on disk follow "
                                                       f"the {disk} layout; an earlier conversion may have been "
                                                       "interrupted. Restore the dataset from its copy."))
    if declared == V21:
        return _result("dataset-format", "Dataset format", Status.FAIL, "LeRobot v2.1: convert first",
                       Message(level=Level.ERROR, text="The pinned lerobot refuses v2.1 datasets "
                                                       "(BackwardCompatibilityError): convert it to v3.0 first. "
                                                       "`pi05-wizard run dataset` runs lerobot's "
                                                       "convert_dataset_v21_to_v30 with --push-to-hub=false."))
    if disk is None:
        return _result("dataset-format", "Dataset format", Status.WARN, "v3.0 (files on disk unclear)",
                       Message(level=Level.WARN, text="No v3.0 data files were found under data/ or meta/episodes/."))
    return _result("dataset-format", "Dataset format", Status.OK, "LeRobot v3.0")


def _old_copy_result(root: Path, old: str | None, declared: str) -> CheckResult:
    if old is None:
        return _result("dataset-old-copy", "Earlier conversion copy", Status.OK, f"no {root.name}_old beside it")
    if declared == V21:
        return _result("dataset-old-copy", "Earlier conversion copy", Status.FAIL, f"{old} exists",
                       Message(level=Level.ERROR, text=f"{old} is left from an earlier conversion. lerobot's "
                                                       "converter would delete this dataset and restore that copy "
                                                       "in its place. Move one of the two away first."))
    return _result("dataset-old-copy", "Earlier conversion copy", Status.WARN, f"{old} exists",
                   Message(level=Level.WARN, text=f"{old} is the v2.1 original kept by the converter. Delete it "
                                                  "once training works: a later conversion would restore it over "
                                                  "this dataset."))


def _files_result(root: Path, info: DatasetInfo, report: DatasetReport) -> CheckResult:
    try:
        named = _named_files(root, info)
        if info.codebase_version == V30:
            report.tasks = _tasks_v30(root)
        elif info.codebase_version == V21:
            report.tasks = _tasks_v21(root)
    except (DatasetError, OSError, KeyError, ValueError, TypeError, pa.ArrowException) as exc:
        return _result("dataset-files", "Dataset files", Status.FAIL, "episode or task metadata unreadable",
                       Message(level=Level.ERROR, text=str(exc)))
    missing = [rel for rel in named if not (root / rel).is_file()]
    if missing:
        shown = ", ".join(missing[:MAX_NAMED]) + (f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else "")
        return _result("dataset-files", "Dataset files", Status.FAIL, f"{len(missing)} of {len(named)} files missing",
                       Message(level=Level.ERROR, text=f"The metadata names files the disk lacks: {shown}."),
                       missing=missing)
    return _result("dataset-files", "Dataset files", Status.OK, f"all {len(named)} data and video files present")


def _stats_result(root: Path, info: DatasetInfo, report: DatasetReport) -> CheckResult:
    try:
        stats = load_stats(root)
    except DatasetError as exc:
        report.quantiles = {f: False for f in PI05_QUANTILE_FEATURES}
        return _result("dataset-stats", "Quantile statistics", Status.FAIL, "meta/stats.json unreadable",
                       Message(level=Level.ERROR, text=f"{exc}. `pi05-wizard dataset stats PATH` rewrites it "
                                                       "(move the broken file away first)."))
    for feat in PI05_QUANTILE_FEATURES:
        spec = info.features.get(feat)
        dim = spec.shape[0] if spec is not None and len(spec.shape) == 1 else None
        report.quantiles[feat] = has_quantiles(stats, feat, dim)
    absent = [f for f in PI05_QUANTILE_FEATURES if f not in info.features]
    if absent:
        return _result("dataset-stats", "Quantile statistics", Status.FAIL, f"no {', '.join(absent)} feature",
                       Message(level=Level.ERROR, text=f"pi05 trains on {' and '.join(PI05_QUANTILE_FEATURES)}; "
                                                       f"this dataset has no {', '.join(absent)}."))
    lacking = [f for f, ok in report.quantiles.items() if not ok]
    if not lacking:
        return _result("dataset-stats", "Quantile statistics", Status.OK,
                       f"q01/q99 present for {', '.join(PI05_QUANTILE_FEATURES)}")
    how = ("convert first, then run `pi05-wizard dataset stats PATH`" if info.codebase_version == V21
           else "run `pi05-wizard dataset stats PATH` (seconds; no video is decoded)")
    return _result("dataset-stats", "Quantile statistics", Status.FAIL,
                   f"q01/q99 missing for {', '.join(lacking)}",
                   Message(level=Level.ERROR, text=f"pi05 normalizes {', '.join(lacking)} with QUANTILES; without "
                                                   f"q01/q99 training stops with a ValueError. To fix: {how}."))
