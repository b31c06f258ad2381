"""Provides the on-disk layout of a LeRobot dataset: `DatasetInfo`, `FeatureSpec`, stats.json models, format detection.

Formats as lerobot writes them (see `/work/shared/datasets/tiny_v21` and `tiny_v30`, written by lerobot
v0.3.3 and by the pinned commit's converter):

- v2.1: `meta/info.json`, `meta/episodes.jsonl`, `meta/episodes_stats.jsonl`, `meta/tasks.jsonl`,
  `data/chunk-000/episode_000000.parquet`, `videos/chunk-000/<key>/episode_000000.mp4`.
- v3.0: `meta/info.json`, `meta/episodes/chunk-000/file-000.parquet`, `meta/tasks.parquet`,
  `data/chunk-000/file-000.parquet`, `videos/<key>/chunk-000/file-000.mp4`.
"""

from __future__ import annotations

import json
import math
import string
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, field_validator

V21 = "v2.1"
V30 = "v3.0"

#: Features pi05 normalizes with QUANTILES (it reads q01 and q99 of these); cameras are IDENTITY.
PI05_QUANTILE_FEATURES = ("observation.state", "action")

#: Quantile keys lerobot writes, in order, with their quantile levels.
QUANTILE_KEYS = ("q01", "q10", "q50", "q90", "q99")
QUANTILE_LEVELS = (0.01, 0.10, 0.50, 0.90, 0.99)

#: Feature dtypes that are pictures (stats of shape (3, 1, 1), never normalized by pi05).
CAMERA_DTYPES = ("image", "video")

#: Largest metadata file we parse, in bytes (info.json, stats.json, *.jsonl); larger is refused.
MAX_META_BYTES = 64 << 20


class DatasetError(Exception):
    """A dataset cannot be read as asked: the message names the file and what is wrong with it."""


class FeatureSpec(BaseModel):
    """One entry of `info.json`'s `features` (name -> spec)."""

    model_config = ConfigDict(extra="allow")

    dtype: str
    """`float32`, `float64`, `int64`, `bool`, `string`, `image` or `video` (lerobot's names)."""
    shape: tuple[int, ...]
    """Per-frame shape, e.g. `(6,)` for a 6-joint state, `(1,)` for a scalar, `(H, W, 3)` for a camera."""
    names: Any = None
    """Joint or axis names: a list, a dict of lists, or null."""
    info: dict[str, Any] | None = None
    """Video details (`video.codec`, `video.height`, ...) for video features."""

    @field_validator("shape", mode="before")
    @classmethod
    def _shape_list(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v):
            return tuple(v)
        raise ValueError("shape must be a list of non-negative integers")

    @property
    def is_camera(self) -> bool:
        """True for image and video features."""
        return self.dtype in CAMERA_DTYPES

    @property
    def is_numeric(self) -> bool:
        """True for features lerobot computes numeric stats for, besides cameras (floats and ints)."""
        return self.dtype.startswith(("float", "int", "uint"))


class DatasetInfo(BaseModel):
    """`meta/info.json` of a LeRobot dataset (v2.1 or v3.0). Unknown keys are kept."""

    model_config = ConfigDict(extra="allow")

    codebase_version: str
    """`v2.1` or `v3.0` (other values are read but refused by the stats and the stage)."""
    robot_type: str | None = None
    total_episodes: int = Field(ge=0)
    total_frames: int = Field(ge=0)
    total_tasks: int = Field(default=0, ge=0)
    chunks_size: int = Field(default=1000, gt=0)
    """Files (v3.0) or episodes (v2.1) per chunk folder."""
    fps: float = Field(gt=0)
    splits: dict[str, str] = Field(default_factory=dict)
    data_path: str
    """A `str.format` template, e.g. `data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet`."""
    video_path: str | None = None
    features: dict[str, FeatureSpec]

    @field_validator("fps")
    @classmethod
    def _finite_fps(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("fps must be a finite number")
        return v

    @property
    def camera_keys(self) -> list[str]:
        """Names of image and video features, in info.json order."""
        return [k for k, f in self.features.items() if f.is_camera]

    @property
    def video_keys(self) -> list[str]:
        """Names of video features (stored as mp4 files)."""
        return [k for k, f in self.features.items() if f.dtype == "video"]


def format_path(template: str, **fields: int | str) -> str:
    """Fill a path template from info.json with plain named fields only.

    Args:
        template: e.g. `data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet`.
        **fields: the values (`chunk_index`, `file_index`, `episode_chunk`, `episode_index`, `video_key`).

    Returns:
        The relative path.

    Raises:
        DatasetError: the template names a field not given, or uses attribute/index access.
    """
    try:
        for _, name, _, _ in string.Formatter().parse(template):
            if name is None:
                continue
            if name not in fields:
                raise DatasetError(f"path template {template!r} uses an unknown field {{{name}}}")
        return template.format(**fields)
    except (ValueError, IndexError, KeyError, TypeError) as exc:
        raise DatasetError(f"path template {template!r} cannot be filled: {exc}") from exc


def read_json_file(path: Path) -> Any:
    """Parse a JSON metadata file, refusing huge or broken ones.

    Raises:
        DatasetError: missing, unreadable, larger than `MAX_META_BYTES`, or not JSON.
    """
    try:
        size = path.stat().st_size
        if size > MAX_META_BYTES:
            raise DatasetError(f"{path} is {size} bytes, larger than the {MAX_META_BYTES} bytes we read")
        text = path.read_bytes().decode("utf-8")
        return json.loads(text)
    except FileNotFoundError as exc:
        raise DatasetError(f"{path} is missing") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise DatasetError(f"{path} cannot be read as JSON: {exc}") from exc


def load_info(root: Path) -> DatasetInfo:
    """Read and validate `<root>/meta/info.json`.

    Raises:
        DatasetError: missing, not JSON, or not shaped like lerobot's info.json (the field is named).
    """
    path = Path(root) / "meta" / "info.json"
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise DatasetError(f"{path} is not a JSON object")
    try:
        return DatasetInfo.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DatasetError(f"{path}: field {where!r}: {first['msg']}") from exc


class StatsFile(RootModel[dict[str, dict[str, list[Any]]]]):
    """`meta/stats.json`: feature -> stat key (`min max mean std count q01 ...`) -> nested list.

    Vectors hold lists of length D, scalars lists of length 1 (min/max are ints for int64 columns),
    cameras nested lists of shape (3, 1, 1); `count` is `[frames]` (see `tiny_v30.stats.lerobot.json`).
    """


def load_stats(root: Path) -> dict[str, dict[str, Any]] | None:
    """Read `<root>/meta/stats.json` (feature -> stat key -> nested list), or None when absent.

    Raises:
        DatasetError: present but not JSON, or not an object of per-feature objects of lists.
    """
    path = Path(root) / "meta" / "stats.json"
    if not path.exists():
        return None
    data = read_json_file(path)
    try:
        return StatsFile.model_validate(data).root
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DatasetError(f"{path}: {where or 'top level'}: {first['msg']}") from exc


def has_quantiles(stats: dict[str, dict[str, Any]] | None, feature: str, dim: int | None = None,
                  keys: tuple[str, ...] = ("q01", "q99")) -> bool:
    """True when `stats[feature]` holds every key in `keys` as a list of finite numbers (of length `dim`)."""
    if not stats or not isinstance(stats.get(feature), dict):
        return False
    entry = stats[feature]
    for key in keys:
        value = entry.get(key)
        if not isinstance(value, list) or not value:
            return False
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value):
            return False
        if dim is not None and len(value) != dim:
            return False
    return True


def _glob_any(root: Path, pattern: str) -> bool:
    return next(iter(root.glob(pattern)), None) is not None


def detect_disk_format(root: Path) -> str | None:
    """Which layout the files on disk follow: `v3.0`, `v2.1`, or None when neither (or both) show.

    v3.0 shows as `meta/tasks.parquet` or `meta/episodes/chunk-*/file-*.parquet` or
    `data/chunk-*/file-*.parquet`; v2.1 as `meta/episodes.jsonl` or `meta/tasks.jsonl` or
    `data/chunk-*/episode_*.parquet`.
    """
    root = Path(root)
    v30 = ((root / "meta" / "tasks.parquet").is_file() or _glob_any(root, "meta/episodes/chunk-*/file-*.parquet")
           or _glob_any(root, "data/chunk-*/file-*.parquet"))
    v21 = ((root / "meta" / "episodes.jsonl").is_file() or (root / "meta" / "tasks.jsonl").is_file()
           or _glob_any(root, "data/chunk-*/episode_*.parquet"))
    if v30 and not v21:
        return V30
    if v21 and not v30:
        return V21
    return None


def old_copy_of(root: Path) -> Path:
    """The `<path>_old` folder lerobot's converter leaves (and restores from) beside `<path>`."""
    root = Path(root)
    return root.parent / f"{root.name}_old"
