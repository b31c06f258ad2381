"""Provides quantile statistics for a v3.0 dataset: `compute_stats`, and `write_stats` into `meta/stats.json`.

Our own implementation (numpy + pyarrow) of what lerobot's `augment_dataset_quantile_stats.py` does
for the non-camera features, without decoding a single video frame and without pushing anywhere:
read only the needed parquet columns, episode by episode (memory grows with the largest episode),
compute `min max mean std count q01 q10 q50 q90 q99` per feature (see `wizard.dataset.quantiles`), and
merge them into `meta/stats.json`, leaving camera entries as they are, keeping a backup and writing
atomically. `exact=True` computes true quantiles over all frames instead (memory grows with the
dataset's selected columns).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

import numpy as np

from wizard.dataset.layout import (
    V21,
    V30,
    DatasetError,
    DatasetInfo,
    load_info,
    load_stats,
)
from wizard.dataset.quantiles import aggregate_blocks, block_stats, exact_stats, to_json
from wizard.dataset.reader import column_matrix, iter_blocks, read_episode_index


class FeatureSelectionError(DatasetError):
    """A feature asked for is unknown, a camera, or not numeric (a usage error for the CLI)."""


class StatsCancelled(Exception):
    """The operator cancelled while statistics were being computed; nothing was written."""


@dataclass
class NonFinite:
    """Values of one feature that are not finite numbers (counted over all frames).

    Attributes:
        nan: NaN values.
        posinf: +inf values.
        neginf: -inf values.
        nulls: missing (null) values in the parquet column.
        episodes: episode indices holding any of them (first 20 kept).
    """

    nan: int = 0
    posinf: int = 0
    neginf: int = 0
    nulls: int = 0
    episodes: list[int] = field(default_factory=list)

    def add_episode(self, ep: int) -> None:
        """Remember an episode that holds bad values (bounded list)."""
        if len(self.episodes) < 20 and ep not in self.episodes:
            self.episodes.append(ep)

    def describe(self, feature: str) -> str:
        """One sentence naming the feature, the counts and the first episodes."""
        parts = [f"{n} {what}" for n, what in ((self.nan, "NaN"), (self.posinf, "+inf"), (self.neginf, "-inf"),
                                               (self.nulls, "missing (null)")) if n]
        eps = ", ".join(str(e) for e in self.episodes)
        return f"{feature}: {', '.join(parts)} value(s), in episode(s) {eps}"


@dataclass
class StatsRun:
    """What one statistics computation found.

    Attributes:
        mode: "histogram" (lerobot's method) or "exact".
        features: the features computed, in info.json order.
        stats: feature -> stats.json entry (lists), only for features without problems.
        nonfinite: feature -> its non-finite / null values; such a feature has no stats and blocks writing.
        skipped: feature -> why it was left out (strings, bools, multi-dimensional features).
        empty_episodes: episodes the metadata lists with 0 frames (left out, as lerobot does).
        notes: other findings worth a line (metadata/data disagreements that did not block).
        episodes: episodes that contributed frames.
        frames: frames read.
        duration_s: wall time, in seconds.
    """

    mode: str
    features: list[str] = field(default_factory=list)
    stats: dict[str, dict[str, list]] = field(default_factory=dict)
    nonfinite: dict[str, NonFinite] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    empty_episodes: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    episodes: int = 0
    frames: int = 0
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every feature asked for got statistics (nothing non-finite)."""
        return not self.nonfinite and bool(self.stats)

    def problems(self) -> list[str]:
        """One sentence per blocking problem."""
        out = [bad.describe(name) for name, bad in self.nonfinite.items()]
        if not self.stats and not self.nonfinite:
            out.append("no feature had any frame to compute statistics from")
        return out


def default_features(info: DatasetInfo) -> list[str]:
    """The features computed by default: every numeric non-camera feature, in info.json order."""
    return [name for name, spec in info.features.items() if not spec.is_camera and spec.is_numeric]


def _check_features(info: DatasetInfo, asked: list[str] | None, run: StatsRun) -> list[str]:
    if asked is None:
        names = default_features(info)
        for name, spec in info.features.items():
            if not spec.is_camera and not spec.is_numeric:
                run.skipped[name] = f"dtype {spec.dtype} has no numeric statistics"
    else:
        unknown = [a for a in asked if a not in info.features]
        if unknown:
            raise FeatureSelectionError(f"unknown feature(s) {', '.join(unknown)}; info.json has {', '.join(info.features)}")
        names = []
        for a in dict.fromkeys(asked):
            spec = info.features[a]
            if spec.is_camera:
                raise FeatureSelectionError(f"{a} is a camera ({spec.dtype}); pi05 does not normalize cameras and "
                                   "this command does not decode video")
            if not spec.is_numeric:
                raise FeatureSelectionError(f"{a} has dtype {spec.dtype}: no numeric statistics")
            names.append(a)
    out = []
    for name in names:
        shape = info.features[name].shape
        if len(shape) != 1:
            run.skipped[name] = f"shape {list(shape)}: only one-dimensional features are supported"
            continue
        out.append(name)
    return out


def compute_stats(
    root: str | os.PathLike[str],
    features: list[str] | None = None,
    exact: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> StatsRun:
    """Compute statistics of a v3.0 dataset's non-camera features. Writes nothing.

    Args:
        root: the dataset folder (holding `meta/info.json`).
        features: feature names to compute; None = every numeric non-camera feature.
        exact: True quantiles over all frames instead of lerobot's per-episode histograms.
        progress: called with (episodes done, episodes expected) after each episode.
        cancelled: polled after each episode; True stops with `StatsCancelled`.

    Returns:
        A `StatsRun`; features with NaN/inf/null values are in `.nonfinite`, not in `.stats`.

    Raises:
        DatasetError: no or broken `meta/info.json`, a v2.1 dataset ("convert first"), missing or
            corrupt parquet files (named), rows of the wrong width.
        FeatureSelectionError: an unknown, camera or non-numeric feature asked for.
        StatsCancelled: `cancelled()` returned True.
    """
    started = time.perf_counter()
    root = Path(root)
    info = load_info(root)
    if info.codebase_version == V21:
        raise DatasetError(f"{root} is a LeRobot v2.1 dataset: convert it to v3.0 first "
                           "(pi05-wizard run dataset, or lerobot's convert_dataset_v21_to_v30 with --push-to-hub=false)")
    if info.codebase_version != V30:
        raise DatasetError(f"{root}: codebase_version {info.codebase_version!r} is not v3.0")
    run = StatsRun(mode="exact" if exact else "histogram")
    names = _check_features(info, features, run)
    run.features = names
    index = read_episode_index(root, info, videos=False)
    dims = {n: info.features[n].shape[0] for n in names}
    per_block: dict[str, list[dict[str, np.ndarray]]] = {n: [] for n in names}
    whole: dict[str, list[np.ndarray]] = {n: [] for n in names}
    expected = sum(1 for n in index.lengths.values() if n > 0)
    seen: dict[int, int] = {}
    for ep_ids, lengths, cols in iter_blocks(root, index.data_files, names):
        seen.update(zip(ep_ids, lengths.tolist()))
        run.frames += int(lengths.sum())
        row_eps = None
        for name in names:
            where = f"{name} (episodes {ep_ids[0]}..{ep_ids[-1]})"
            matrix, nulls = column_matrix(cols[name], dims[name], where)
            if matrix is None:
                bad = run.nonfinite.setdefault(name, NonFinite())
                bad.nulls += nulls
                mask = cols[name].is_null().to_numpy(zero_copy_only=False)
                row_eps = np.repeat(ep_ids, lengths) if row_eps is None else row_eps
                for ep in (np.unique(row_eps[mask]).tolist() if mask.any() else ep_ids):
                    bad.add_episode(int(ep))
                continue
            if matrix.dtype.kind == "f":
                finite = np.isfinite(matrix)
                if not finite.all():
                    bad = run.nonfinite.setdefault(name, NonFinite())
                    bad.nan += int(np.isnan(matrix).sum())
                    bad.posinf += int(np.isposinf(matrix).sum())
                    bad.neginf += int(np.isneginf(matrix).sum())
                    row_eps = np.repeat(ep_ids, lengths) if row_eps is None else row_eps
                    for ep in np.unique(row_eps[~finite.all(axis=1)]).tolist():
                        bad.add_episode(int(ep))
                    continue
            if name in run.nonfinite:
                continue
            if exact:
                whole[name].append(matrix)
            else:
                per_block[name].append(block_stats(matrix, lengths))
        if progress is not None:
            progress(len(seen), expected)
        if cancelled is not None and cancelled():
            raise StatsCancelled("cancelled: meta/stats.json was not changed")
    run.episodes = sum(1 for n in seen.values() if n > 0)
    run.empty_episodes = sorted(ep for ep, n in index.lengths.items() if n == 0 and seen.get(ep, 0) == 0)
    for ep, n in sorted(index.lengths.items()):
        if n > 0 and ep not in seen:
            run.notes.append(f"episode {ep}: the metadata says {n} frames, the data files hold none")
        elif ep in seen and seen[ep] != n:
            run.notes.append(f"episode {ep}: the metadata says {n} frames, the data files hold {seen[ep]}")
    for ep in sorted(set(seen) - set(index.lengths)):
        run.notes.append(f"episode {ep}: in the data files but not in the episodes metadata")
    if run.frames != info.total_frames:
        run.notes.append(f"info.json says {info.total_frames} frames, the data files hold {run.frames}")
    for name in names:
        if name in run.nonfinite:
            continue
        if exact:
            if whole[name]:
                run.stats[name] = to_json(exact_stats(np.concatenate(whole[name], axis=0)))
                whole[name] = []
        elif per_block[name]:
            run.stats[name] = to_json(aggregate_blocks(per_block[name]))
    run.duration_s = time.perf_counter() - started
    return run


@dataclass
class WriteOutcome:
    """Where `write_stats` put things.

    Attributes:
        path: the `meta/stats.json` written.
        backup: the copy of the previous file, or None when there was none.
        replaced: features whose entries were replaced or added.
        kept: features whose entries were left as they were (cameras and others not computed).
    """

    path: Path
    backup: Path | None
    replaced: list[str]
    kept: list[str]


def _backup_path(path: Path, now: datetime) -> Path:
    stamp = now.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        n += 1
    return candidate


def write_stats(root: str | os.PathLike[str], new: dict[str, dict[str, list]], now: datetime | None = None) -> WriteOutcome:
    """Merge feature entries into `<root>/meta/stats.json`, atomically, keeping a backup.

    Entries of features in `new` are replaced whole; every other entry (cameras included) is kept
    byte-for-byte in value. The previous file is copied to `stats.json.bak-YYYYmmdd-HHMMSS` first;
    the new one is written to a temporary file in `meta/` and renamed over the old one, so a crash
    leaves either the old or the new file, never half of one.

    Raises:
        DatasetError: the existing stats.json cannot be read (it is left alone), or writing fails
            (any temporary file is removed).
    """
    root = Path(root)
    path = root / "meta" / "stats.json"
    existing = load_stats(root) or {}
    merged = dict(existing)
    for name, entry in new.items():
        merged[name] = entry
    text = json.dumps(merged, indent=4, allow_nan=False)
    backup = None
    tmp_name = None
    try:
        if path.exists():
            backup = _backup_path(path, now or datetime.now())
            shutil.copy2(path, backup)
        fd, tmp_name = tempfile.mkstemp(prefix=".stats.json.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            shutil.copymode(path, tmp_name)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise DatasetError(f"cannot write {path}: {exc}") from exc
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
    return WriteOutcome(path=path, backup=backup, replaced=list(new), kept=[k for k in existing if k not in new])

