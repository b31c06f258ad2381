"""Shared helpers for the dataset tests: copies of the lerobot-written samples, small synthetic datasets."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import numpy as np

from wizard.dataset.writer import Episode, synthetic_episodes, write_v30

#: Datasets written by lerobot itself (see its README): read-only, so tests copy them.
SHARED = Path("/work/shared/datasets")
TINY_V21 = SHARED / "tiny_v21"
TINY_V30 = SHARED / "tiny_v30"
GOLDEN = SHARED / "tiny_v30.stats.lerobot.json"


def copy_dataset(src: Path, dest_parent: Path, name: str | None = None) -> Path:
    """Copy a dataset folder into `dest_parent` and make the copy writable."""
    dest = dest_parent / (name or src.name)
    shutil.copytree(src, dest)
    for p in [dest, *dest.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)
    return dest


def golden() -> dict:
    """lerobot's own stats.json for tiny_v30 (augment_dataset_quantile_stats.py at the pinned commit)."""
    return json.loads(GOLDEN.read_text())


def small_dataset(root: Path, episodes: int = 4, frames: int = 20, seed: int = 0, **kw) -> Path:
    """A small synthetic v3.0 dataset (our writer), state and action 6-dim."""
    return write_v30(root, synthetic_episodes(episodes, frames, 6, seed=seed), ["pick", "place"], **kw)


def with_values(root: Path, columns: dict[str, list[np.ndarray]], **kw) -> Path:
    """A dataset whose episodes hold exactly the given columns (one array per episode)."""
    n = len(next(iter(columns.values())))
    eps = [Episode(task_index=0, columns={k: v[i] for k, v in columns.items()}) for i in range(n)]
    return write_v30(root, eps, ["task"], **kw)
