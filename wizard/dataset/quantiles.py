"""Provides the per-episode statistics of one feature and their aggregation, as lerobot computes them.

The algorithm is the one of lerobot's `src/lerobot/datasets/compute_stats.py` at the pinned commit
b954337a (`RunningQuantileStats`, `get_feature_stats`, `aggregate_feature_stats`), re-implemented
here from its description in RECIPE.md ("Quantile statistics"), so `meta/stats.json` comes out as the
reference run's did (checked against `/work/shared/datasets/tiny_v30.stats.lerobot.json`):

- per episode and per dimension a 5000-bin histogram over `linspace(min - 1e-10, max + 1e-10, 5001)`;
  a quantile is found with a left `searchsorted` of `q * count` in the cumulative counts, then linear
  interpolation inside the bin (first edge for index 0, last edge past the end, left edge of an empty bin);
- arithmetic stays in the column's dtype the way numpy 2 promotes it: for float32 columns the pad, the
  edges, min/max/mean/mean-of-squares and std are float32; the interpolation fraction is float64;
  integer columns work in float64;
- an episode with fewer than 2 rows gives every quantile = its mean (std from `np.std`);
- episodes combine as: min of mins, max of maxes, count-weighted mean, pooled variance, and each
  quantile key the count-weighted mean of the per-episode values.

Arrays are `(n, D)` C-contiguous matrices (a scalar feature is `(n, 1)`), laid out as lerobot's
`torch.stack(...).numpy()` gives them, because the float32 summation order of `np.mean` depends on it.
"""

from __future__ import annotations

import numpy as np

from wizard.dataset.layout import QUANTILE_KEYS, QUANTILE_LEVELS

#: Number of histogram bins per episode and dimension (lerobot's `num_quantile_bins`).
NUM_BINS = 5000

#: Padding subtracted from the minimum and added to the maximum for the histogram's outer edges.
EDGE_PAD = 1e-10

#: One episode's (or the whole dataset's) statistics: key -> 1-D array of length D (`count`: length 1).
FeatureStats = dict[str, np.ndarray]


def work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype the histogram edges are computed in: the column's own for floats, float64 for integers."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def histogram_edges(lo: np.generic, hi: np.generic, wdt: np.dtype, num_bins: int = NUM_BINS) -> np.ndarray:
    """Edges of the histogram of one episode's dimension, in `wdt`, length `num_bins + 1`.

    Equal to numpy 2's `np.linspace(lo - 1e-10, hi + 1e-10, num_bins + 1)` for a scalar `lo`/`hi` of the
    column's dtype (the 1e-10 pad is cast to `wdt` first, as numpy 2 does with a Python float), written
    out so numpy 1 computes the same float32 edges.
    """
    t = wdt.type
    start = t(lo) - t(EDGE_PAD)
    stop = t(hi) + t(EDGE_PAD)
    delta = np.subtract(stop, start, dtype=wdt)
    y = np.arange(0, num_bins + 1, dtype=wdt)
    step = delta / t(num_bins)
    if step == 0:  # denormal range: numpy divides first, then multiplies
        y = (y / t(num_bins)) * delta
    else:
        y = y * step
    y += start
    y[-1] = stop
    return y


def histogram_quantiles(sorted_col: np.ndarray, edges: np.ndarray, levels: tuple[float, ...] = QUANTILE_LEVELS) -> list[float]:
    """Quantiles of one sorted column from its histogram over `edges`, lerobot's way.

    Args:
        sorted_col: the episode's values of one dimension, sorted ascending, shape (n,), finite.
        edges: from `histogram_edges`, shape (num_bins + 1,).
        levels: quantile levels in [0, 1].

    Returns:
        One Python float per level.
    """
    n = sorted_col.shape[0]
    values = sorted_col.astype(edges.dtype, copy=False)
    # Counts below each edge; the last edge is inclusive (as np.histogram's last bin is closed).
    below = np.empty(edges.shape[0], dtype=np.int64)
    below[:-1] = np.searchsorted(values, edges[:-1], side="left")
    below[-1] = np.searchsorted(values, edges[-1:], side="right")[0]
    cumsum = below[1:] - below[0]  # the cumulative histogram, exact integers
    targets = [q * n for q in levels]
    idxs = np.searchsorted(cumsum, np.asarray(targets, dtype=np.float64), side="left")
    out: list[float] = []
    last = cumsum.shape[0]
    for target, idx in zip(targets, idxs.tolist()):
        if idx == 0:
            out.append(float(edges[0]))
            continue
        if idx >= last:
            out.append(float(edges[-1]))
            continue
        before = float(cumsum[idx - 1])
        in_bin = float(cumsum[idx]) - before
        if in_bin == 0:
            out.append(float(edges[idx]))
            continue
        fraction = (target - before) / in_bin
        width = edges[idx + 1] - edges[idx]  # in the edges' dtype (float32 for float32 columns)
        out.append(float(edges[idx]) + fraction * float(width))
    return out


def episode_stats(matrix: np.ndarray) -> FeatureStats:
    """Statistics of one episode of one feature, lerobot's histogram method.

    Args:
        matrix: shape (n, D), n >= 1, finite values, C-contiguous, the column's dtype.

    Returns:
        `min max mean std count q01 q10 q50 q90 q99`; min/max in the column's dtype, mean/std in its
        float dtype (float64 for integers), quantiles float64, count int64 of shape (1,).
    """
    n, dims = matrix.shape
    if n < 2:
        mean = np.mean(matrix, axis=0)
        stats: FeatureStats = {
            "min": np.min(matrix, axis=0),
            "max": np.max(matrix, axis=0),
            "mean": mean,
            "std": np.std(matrix, axis=0),
            "count": np.array([n], dtype=np.int64),
        }
        for key in QUANTILE_KEYS:
            stats[key] = mean.astype(np.float64)
        return stats

    lo = np.min(matrix, axis=0)
    hi = np.max(matrix, axis=0)
    mean = np.mean(matrix, axis=0)
    mean_sq = np.mean(matrix ** 2, axis=0)
    variance = mean_sq - mean ** 2
    std = np.sqrt(np.maximum(0, variance))
    wdt = work_dtype(matrix.dtype)
    columns = np.sort(np.ascontiguousarray(matrix.T), axis=1)
    qs = np.empty((len(QUANTILE_KEYS), dims), dtype=np.float64)
    for d in range(dims):
        edges = histogram_edges(lo[d], hi[d], wdt)
        qs[:, d] = histogram_quantiles(columns[d], edges)
    stats = {"min": lo, "max": hi, "mean": mean, "std": std, "count": np.array([n], dtype=np.int64)}
    for i, key in enumerate(QUANTILE_KEYS):
        stats[key] = qs[i]
    return stats


def aggregate(per_episode: list[FeatureStats]) -> FeatureStats:
    """Combine per-episode statistics of one feature (count-weighted, pooled variance).

    Raises:
        ValueError: the list is empty.
    """
    if not per_episode:
        raise ValueError("no episode statistics to aggregate")
    means = np.stack([s["mean"] for s in per_episode])
    variances = np.stack([s["std"] ** 2 for s in per_episode])
    counts = np.stack([s["count"] for s in per_episode])  # (E, 1)
    total = counts.sum(axis=0)  # (1,)
    total_mean = (means * counts).sum(axis=0) / total
    spread = means - total_mean
    total_var = ((variances + spread ** 2) * counts).sum(axis=0) / total
    out: FeatureStats = {
        "min": np.min(np.stack([s["min"] for s in per_episode]), axis=0),
        "max": np.max(np.stack([s["max"] for s in per_episode]), axis=0),
        "mean": total_mean,
        "std": np.sqrt(total_var),
        "count": total,
    }
    for key in QUANTILE_KEYS:
        if all(key in s for s in per_episode):
            out[key] = (np.stack([s[key] for s in per_episode]) * counts).sum(axis=0) / total
    return out


def exact_stats(matrix: np.ndarray) -> FeatureStats:
    """True statistics over all frames at once (the `--exact` mode), in float64.

    Quantiles use numpy's default linear interpolation between order statistics.

    Args:
        matrix: shape (N, D), N >= 1, finite values.
    """
    values = matrix.astype(np.float64)
    stats: FeatureStats = {
        "min": np.min(matrix, axis=0),
        "max": np.max(matrix, axis=0),
        "mean": values.mean(axis=0),
        "std": values.std(axis=0),
        "count": np.array([matrix.shape[0]], dtype=np.int64),
    }
    qs = np.quantile(values, list(QUANTILE_LEVELS), axis=0)
    for i, key in enumerate(QUANTILE_KEYS):
        stats[key] = qs[i]
    return stats


def to_json(stats: FeatureStats) -> dict[str, list]:
    """Stats as stats.json holds them: lists of Python ints (integer min/max, count) or floats."""
    out: dict[str, list] = {}
    for key, value in stats.items():
        arr = np.asarray(value)
        out[key] = [int(x) for x in arr.tolist()] if arr.dtype.kind in "iu" else [float(x) for x in arr.tolist()]
    return out
