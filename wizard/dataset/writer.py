"""Provides a deterministic writer of the LeRobot v3.0 layout, for the benchmark and the tests.

It writes what the pinned commit's converter writes for a dataset without cameras (compare
`/work/shared/datasets/tiny_v30`): `meta/info.json`, `meta/tasks.parquet`,
`meta/episodes/chunk-000/file-000.parquet`, `data/chunk-000/file-NNN.parquet` and, unless asked
not to, a `meta/stats.json` with min/max/mean/std/count and no quantiles. One simplification, said
here because it is ours: `meta/tasks.parquet` holds the task text in a plain `task` column, where
lerobot's pandas writer stores it as the frame's index (`__index_level_0__`); readers accept both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from wizard.dataset.quantiles import aggregate, episode_stats, to_json

DATA_PATH = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
VIDEO_PATH = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
JOINTS = ("main_shoulder_pan", "main_shoulder_lift", "main_elbow_flex", "main_wrist_flex", "main_wrist_roll",
          "main_gripper")


@dataclass
class Episode:
    """One episode to write.

    Attributes:
        task_index: index into the task list.
        columns: feature name -> values, shape (n, D) for vectors or (n,) for scalars; every array
            has the same n. `timestamp frame_index episode_index index task_index` are added.
    """

    task_index: int
    columns: dict[str, np.ndarray]

    @property
    def length(self) -> int:
        """Frames in the episode."""
        return len(next(iter(self.columns.values()))) if self.columns else 0


def _arrow_dtype(dtype: np.dtype) -> pa.DataType:
    return pa.from_numpy_dtype(np.dtype(dtype))


def _column(values: np.ndarray, variable_lists: bool) -> pa.Array:
    values = np.asarray(values)
    if values.ndim == 1:
        return pa.array(values, type=_arrow_dtype(values.dtype))
    n, d = values.shape
    flat = pa.array(values.reshape(-1), type=_arrow_dtype(values.dtype))
    if variable_lists:
        offsets = pa.array(np.arange(0, (n + 1) * d, d, dtype=np.int32))
        return pa.ListArray.from_arrays(offsets, flat)
    return pa.FixedSizeListArray.from_arrays(flat, d)


def write_v30(
    root: str | Path,
    episodes: list[Episode],
    tasks: list[str],
    fps: int = 30,
    robot_type: str = "koch",
    variable_lists: bool = False,
    rows_per_file: int | None = None,
    row_group_rows: int | None = None,
    with_stats: bool = True,
) -> Path:
    """Write a v3.0 dataset folder deterministically (same inputs, same bytes).

    Args:
        root: folder to create (parents too); existing files of the same names are overwritten.
        episodes: in order; episode i gets `episode_index` i.
        tasks: task texts; `Episode.task_index` points into it.
        fps: frames per second (timestamps are `frame_index / fps`, float32).
        robot_type: info.json's `robot_type`.
        variable_lists: vectors as `list<float>` (as the converter writes) instead of fixed-size lists.
        rows_per_file: start a new data file once one holds this many rows (episodes stay whole).
        row_group_rows: parquet row group size (None = pyarrow's default).
        with_stats: write `meta/stats.json` as the converter does (no quantiles).

    Returns:
        The dataset folder.
    """
    root = Path(root)
    (root / "meta" / "episodes" / "chunk-000").mkdir(parents=True, exist_ok=True)
    first = next((e for e in episodes if e.columns), None)
    user_cols = list(first.columns) if first else []
    features: dict[str, dict] = {}
    for name in user_cols:
        arr = np.asarray(first.columns[name])
        shape = [1] if arr.ndim == 1 else [int(arr.shape[1])]
        names = list(JOINTS) if shape == [6] else None
        features[name] = {"dtype": str(arr.dtype), "shape": shape, "names": names, "fps": fps}
    for name, dtype in (("timestamp", "float32"), ("frame_index", "int64"), ("episode_index", "int64"),
                        ("index", "int64"), ("task_index", "int64")):
        features[name] = {"dtype": dtype, "shape": [1], "names": None, "fps": fps}

    files: list[list[int]] = [[]]
    rows_in_file = 0
    for i, ep in enumerate(episodes):
        if rows_per_file and rows_in_file >= rows_per_file and files[-1]:
            files.append([])
            rows_in_file = 0
        files[-1].append(i)
        rows_in_file += ep.length

    starts = np.cumsum([0] + [e.length for e in episodes])
    ep_rows = []
    for file_index, members in enumerate(files):
        cols: dict[str, list[pa.Array]] = {name: [] for name in features}
        for i in members:
            ep = episodes[i]
            n = ep.length
            frame = np.arange(n, dtype=np.int64)
            extra = {
                "timestamp": (frame / np.float32(fps)).astype(np.float32),
                "frame_index": frame,
                "episode_index": np.full(n, i, dtype=np.int64),
                "index": np.arange(starts[i], starts[i] + n, dtype=np.int64),
                "task_index": np.full(n, ep.task_index, dtype=np.int64),
            }
            for name in features:
                values = ep.columns[name] if name in ep.columns else extra[name]
                cols[name].append(_column(values, variable_lists))
            ep_rows.append({
                "episode_index": i, "data/chunk_index": 0, "data/file_index": file_index,
                "dataset_from_index": int(starts[i]), "dataset_to_index": int(starts[i] + n),
                "tasks": [tasks[ep.task_index]], "length": n,
                "meta/episodes/chunk_index": 0, "meta/episodes/file_index": 0,
            })
        table = pa.table({name: (pa.concat_arrays(parts) if parts else pa.array([], type=pa.float32()))
                          for name, parts in cols.items()})
        path = root / DATA_PATH.format(chunk_index=0, file_index=file_index)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, row_group_size=row_group_rows)

    pq.write_table(pa.Table.from_pylist(ep_rows), root / "meta" / "episodes" / "chunk-000" / "file-000.parquet")
    pq.write_table(pa.table({"task_index": pa.array(range(len(tasks)), type=pa.int64()),
                             "task": pa.array(tasks, type=pa.string())}), root / "meta" / "tasks.parquet")
    info = {
        "codebase_version": "v3.0", "robot_type": robot_type, "total_episodes": len(episodes),
        "total_frames": int(starts[-1]), "total_tasks": len(tasks), "chunks_size": 1000, "fps": fps,
        "splits": {"train": f"0:{len(episodes)}"}, "data_path": DATA_PATH, "video_path": None,
        "features": features, "data_files_size_in_mb": 100, "video_files_size_in_mb": 500,
    }
    (root / "meta" / "info.json").write_text(json.dumps(info, indent=4), encoding="utf-8")
    if with_stats:
        (root / "meta" / "stats.json").write_text(json.dumps(_basic_stats(episodes, features), indent=4),
                                                  encoding="utf-8")
    return root


def _basic_stats(episodes: list[Episode], features: dict[str, dict]) -> dict:
    out = {}
    for name in features:
        per = []
        for i, ep in enumerate(episodes):
            if name in ep.columns and ep.length >= 1 and np.isfinite(np.asarray(ep.columns[name], dtype=float)).all():
                arr = np.asarray(ep.columns[name])
                per.append(episode_stats(np.ascontiguousarray(arr.reshape(len(arr), -1))))
        if per:
            entry = to_json(aggregate(per))
            out[name] = {k: entry[k] for k in ("min", "max", "mean", "std", "count")}
    return out


def synthetic_episodes(n_episodes: int = 80, frames: int = 300, dim: int = 6, seed: int = 0,
                       n_tasks: int = 2) -> list[Episode]:
    """Deterministic robot-like episodes: `observation.state` a float32 random walk, `action` the next state.

    Args:
        n_episodes: number of episodes.
        frames: frames per episode.
        dim: joints per vector.
        seed: numpy Generator seed.
        n_tasks: episodes cycle through this many task indices.
    """
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_episodes):
        start = rng.uniform(-40.0, 140.0, size=dim)
        steps = rng.normal(0.0, 0.8, size=(frames + 1, dim))
        walk = (start + np.cumsum(steps, axis=0)).astype(np.float32)
        out.append(Episode(task_index=i % n_tasks, columns={
            "observation.state": np.ascontiguousarray(walk[:-1]),
            "action": np.ascontiguousarray(walk[1:]),
        }))
    return out
