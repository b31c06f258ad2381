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
    keys = [k for k in per_episode[0] if all(k in s for s in per_episode)]
    return aggregate_stacked({k: np.stack([np.asarray(s[k]) for s in per_episode]) for k in keys})


def aggregate_stacked(stacked: dict[str, np.ndarray]) -> FeatureStats:
    """Combine per-episode statistics held as (E, D) arrays (`count`: (E, 1)), in episode order.

    min of mins, max of maxes, count-weighted mean, pooled variance
    `sum((var_i + (mean_i - mean)^2) * n_i) / N`, and each quantile key the count-weighted mean.
    """
    means = stacked["mean"]
    variances = stacked["std"] ** 2
    counts = stacked["count"]  # (E, 1)
    total = counts.sum(axis=0)  # (1,)
    total_mean = (means * counts).sum(axis=0) / total
    spread = means - total_mean
    total_var = ((variances + spread ** 2) * counts).sum(axis=0) / total
    out: FeatureStats = {
        "min": np.min(stacked["min"], axis=0),
        "max": np.max(stacked["max"], axis=0),
        "mean": total_mean,
        "std": np.sqrt(total_var),
        "count": total,
    }
    for key in QUANTILE_KEYS:
        if key in stacked:
            out[key] = (stacked[key] * counts).sum(axis=0) / total
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


# -- vectorized: many episodes of one length at once -------------------------------------------

#: Keys of per-episode statistics, in the order `block_stats` returns them.
STAT_KEYS = ("min", "max", "mean", "std", "count", *QUANTILE_KEYS)


def _edge(j: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray, delta: np.ndarray,
          wdt: np.dtype, num_bins: int = NUM_BINS) -> np.ndarray:
    """Edge number `j` of each histogram, exactly as `histogram_edges` computes it (elementwise)."""
    t = wdt.type
    jf = j.astype(wdt)
    with np.errstate(invalid="ignore", over="ignore"):
        regular = jf * step
        denormal = (jf / t(num_bins)) * delta
    value = np.where(step == 0, denormal, regular) + start
    return np.where(j >= num_bins, stop, value)


def _count_less(sorted_rows: np.ndarray, values: np.ndarray, rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each i: how many of the first `lengths[i]` values of `sorted_rows[rows[i]]` are < `values[i]`.

    A left searchsorted per row, all rows at once (shapes (M,) in, (M,) out).
    """
    width = sorted_rows.shape[1]
    lo = np.zeros(values.shape, dtype=np.intp)
    hi = lengths.astype(np.intp)
    for _ in range(int(width).bit_length() + 1):
        mid = (lo + hi) >> 1
        probe = sorted_rows[rows, np.minimum(mid, width - 1)]
        active = lo < hi
        right = active & (probe < values)
        lo = np.where(right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
    return lo


#: Sorted positions looked at on each side of an order statistic before falling back to a binary search.
WINDOW = 8


def _count_below_near(srt: np.ndarray, lengths: np.ndarray, kth: np.ndarray, bound: np.ndarray,
                      right: bool) -> np.ndarray:
    """How many of each row's values are < `bound[r, q]`, knowing on which side of `srt[r, kth[r, q]]` it lies.

    Args:
        srt: (R, W) rows sorted ascending; row r holds `lengths[r]` values, then padding.
        lengths: (R,) values per row.
        kth: (R, Q) positions of order statistics, or (1, Q) when every row has the same length.
        bound: (R, Q); `right=False`: `srt[r, kth] >= bound`, so the count is <= kth; `right=True`:
            `srt[r, kth] < bound`, so the count is > kth.

    The count is found among the `WINDOW` sorted neighbours on that side (a histogram bin rarely
    holds more); where the window does not reach past the boundary (long runs of ties) an exact
    binary search over the row gives it.
    """
    offsets = np.arange(1, WINDOW + 1)
    pos = kth[:, :, None] + offsets if right else kth[:, :, None] - offsets      # (R, Q, W)
    valid = (pos < lengths[:, None, None]) if right else (pos >= 0)
    clipped = np.clip(pos, 0, srt.shape[1] - 1)
    if kth.shape[0] == 1:  # the same positions in every row (episodes of one length): a column take
        near = srt[:, clipped[0]]
    else:
        flat = clipped + (np.arange(len(srt)) * srt.shape[1])[:, None, None]
        near = np.take(srt, flat)
    b = bound[:, :, None]
    if right:
        hits = ((near < b) & valid).sum(axis=2)
        count = kth + 1 + hits
        open_end = valid[:, :, -1] & (near[:, :, -1] < bound)
    else:
        hits = ((near >= b) & valid).sum(axis=2)
        count = kth - hits
        open_end = valid[:, :, -1] & (near[:, :, -1] >= bound)
    if open_end.any():
        r, q = np.nonzero(open_end)
        count[r, q] = _count_less(srt, bound[r, q], r, lengths[r])
    return count


def _divide_by_count(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """`sums / counts` exactly as `np.mean` divides its sum by the (scalar) number of items."""
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":  # an intp scalar: the float64 loop, cast back
        return np.true_divide(sums, counts.astype(np.intp), out=sums, casting="unsafe")
    return np.true_divide(sums, counts.astype(sums.dtype), out=sums)  # numpy 1: value-based, the float loop


def _padded_moments(matrix: np.ndarray, starts: np.ndarray, lengths: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means and means of squares (G, D) of G episodes of any lengths, and their values as (G * D, width) rows.

    Each episode is padded at the end to the longest; the padding of the rows returned sorts after
    every value (+inf, or the integer maximum). See `_padded_stats` for the summation order.
    """
    groups, dims = len(lengths), matrix.shape[1]
    width = int(lengths.max())
    equal = int(lengths.min()) == width
    j = np.arange(width)[:, None]
    pad = j >= lengths[None, :]                                                   # (width, G)
    pos = np.where(pad, 0, starts[None, :] + j)
    frames = matrix[pos].reshape(width, groups * dims)                            # (width, G * D)
    floating = matrix.dtype.kind == "f"
    if dims == 1:
        mean = np.empty((groups, 1), dtype=np.float64 if not floating else matrix.dtype)
        mean_sq = np.empty_like(mean)
        cols = frames.T                                                           # (G, width), a view
        for n in np.unique(lengths).tolist():
            members = np.flatnonzero(lengths == n)
            rows = cols[members, :n] if not equal else np.ascontiguousarray(cols)
            mean[members, 0] = np.mean(rows, axis=1)
            mean_sq[members, 0] = np.mean(rows ** 2, axis=1)
    else:
        fill = -0.0 if floating else 0
        mask = np.repeat(pad, dims, axis=1)
        acc = None if floating else np.float64
        counts = np.repeat(lengths, dims)
        mean = _divide_by_count(np.add.reduce(np.where(mask, fill, frames), axis=0, dtype=acc),
                                counts).reshape(groups, dims)
        mean_sq = _divide_by_count(np.add.reduce(np.where(mask, fill, frames ** 2), axis=0, dtype=acc),
                                   counts).reshape(groups, dims)
    rows = np.array(frames.T, order="C")                                          # (G * D, width), a copy
    top = np.inf if floating else np.iinfo(matrix.dtype).max
    rows[np.arange(width)[None, :] >= np.repeat(lengths, dims)[:, None]] = top
    return mean, mean_sq, rows


def _padded_stats(matrix: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                  levels: tuple[float, ...] = QUANTILE_LEVELS) -> dict[str, np.ndarray]:
    """Statistics of G episodes (each >= 2 rows) of one (rows, D) matrix, each as `episode_stats` gives it.

    Equal to calling `episode_stats` on each episode (tested bit for bit). numpy's float32 summation
    order depends on the layout, so the means are taken in one that sums each (episode, dimension)
    in the order `np.mean(matrix, axis=0)` does for one (n, D) episode:

    - episodes of one length stored one after another (the common case): the rows viewed as a
      (G, n, D) array hold each episode as the same C-contiguous (n, D) block `episode_stats` gets,
      and `np.mean(..., axis=1)` reduces each block as `np.mean(block, axis=0)` does (rows one after
      another for D >= 2, pairwise over the contiguous column for D == 1); no copy is made.
    - otherwise, D >= 2: numpy adds the rows one after another. A (frames, G * D) matrix reduced over
      axis 0 does the same (and fast: its inner loop runs over all G * D columns); shorter episodes are
      padded at the end with -0.0, which leaves every float sum unchanged (x + -0.0 == x, -0.0 included).
    - otherwise, D == 1: numpy sums the contiguous column pairwise, which a (k, n) matrix of k episodes
      of the same length n reduced over axis 1 also does; so the means go by length.

    Each histogram quantile is found from the order statistics instead of all 5001 cumulative counts:
    the first bin whose cumulative count reaches k = ceil(q * n) is the last one whose left edge is <=
    the k-th smallest value; the counts below that bin's two edges are then found next to that value.

    Args:
        matrix: shape (rows, D), finite values, the column's dtype.
        starts: (G,) first row of each episode.
        lengths: (G,) rows of each episode, each >= 2.

    Returns:
        key -> array of shape (G, D) (`count`: (G, 1) int64).
    """
    groups, dims = len(lengths), matrix.shape[1]
    width = int(lengths.max())
    equal = int(lengths.min()) == width
    consecutive = equal and bool(np.all(starts == starts[0] + width * np.arange(groups)))
    floating = matrix.dtype.kind == "f"
    row_len = np.repeat(lengths, dims).astype(np.intp)                            # (R,), R = G * D
    if consecutive:
        s0 = int(starts[0])
        episodes = matrix[s0:s0 + groups * width].reshape(groups, width, dims)   # a view
        if dims == 1:
            mean = np.mean(episodes, axis=1)
            mean_sq = np.mean(episodes ** 2, axis=1)
        else:
            frames = np.array(episodes.transpose(1, 0, 2), order="C").reshape(width, groups * dims)  # a copy
            mean = np.mean(frames, axis=0).reshape(groups, dims)
            mean_sq = np.mean(np.square(frames, out=frames), axis=0).reshape(groups, dims)
            del frames  # freed before the rows are copied: one (n, G * D) temporary at a time
        rows = np.array(episodes.transpose(0, 2, 1), order="C").reshape(groups * dims, width)  # a copy
    else:
        mean, mean_sq, rows = _padded_moments(matrix, starts, lengths)
    std = np.sqrt(np.maximum(0, mean_sq - mean ** 2))
    rows.sort(axis=1)
    lo_r = rows[:, 0]
    hi_r = rows[np.arange(len(rows)), row_len - 1]
    out = {"min": lo_r.reshape(groups, dims), "max": hi_r.reshape(groups, dims), "mean": mean, "std": std,
           "count": lengths.astype(np.int64).reshape(groups, 1)}

    wdt = work_dtype(matrix.dtype)
    t = wdt.type
    srt = rows.astype(wdt, copy=False)
    start = (lo_r.astype(wdt) - t(EDGE_PAD))[:, None]          # (R, 1)
    stop = (hi_r.astype(wdt) + t(EDGE_PAD))[:, None]
    delta = np.subtract(stop, start, dtype=wdt)
    step = delta / t(NUM_BINS)
    lens_f = (row_len[:1] if equal else row_len).astype(np.float64)[:, None]
    targets = np.asarray(levels, dtype=np.float64)[None, :] * lens_f                # (R or 1, Q)
    kth = np.ceil(targets).astype(np.intp) - 1                                     # 0-based
    x = srt[:, kth[0]] if equal else np.take(srt, kth + (np.arange(len(srt)) * width)[:, None])  # (R, Q)
    last = NUM_BINS - 1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        guess = np.floor((x.astype(np.float64) - start) / step.astype(np.float64))
    guess = np.where(step == 0, last, guess)
    idx = np.clip(np.nan_to_num(guess, nan=0.0, posinf=last, neginf=0.0), 0, last).astype(np.intp)
    shape = x.shape
    bstart, bstop = np.broadcast_to(start, shape), np.broadcast_to(stop, shape)
    bstep, bdelta = np.broadcast_to(step, shape), np.broadcast_to(delta, shape)

    def edge(j: np.ndarray) -> np.ndarray:
        return _edge(j, bstart, bstop, bstep, bdelta, wdt)

    # idx = the last edge number in [0, NUM_BINS - 1] whose edge is <= x (edge 0 always is).
    e_lo, e_hi = edge(idx), edge(idx + 1)
    for _ in range(8):
        up = (idx < last) & (e_hi <= x)
        down = (idx > 0) & (e_lo > x)
        if not (up.any() or down.any()):
            break
        idx = idx + up - down
        e_lo, e_hi = edge(idx), edge(idx + 1)
    stuck = ((idx > 0) & (e_lo > x)) | ((idx < last) & (e_hi <= x))
    if stuck.any():
        for r, q in zip(*np.nonzero(stuck)):  # rounding far from the estimate: search the real edges
            full = histogram_edges(lo_r[r], hi_r[r], wdt)
            idx[r, q] = min(int(np.searchsorted(full[1:NUM_BINS], x[r, q], side="right")), last)
        e_lo, e_hi = edge(idx), edge(idx + 1)

    # e_lo <= x and x < e_hi (or idx == last): the counts below both edges lie next to the k-th value.
    before = np.where(idx > 0, _count_below_near(srt, row_len, kth, e_lo, right=False), 0)
    after = np.where(idx < last, _count_below_near(srt, row_len, kth, e_hi, right=True), row_len[:, None])
    in_bin = (after - before).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = (targets - before) / in_bin
    width_f = (e_hi - e_lo).astype(np.float64)
    value = np.where(in_bin == 0, e_lo.astype(np.float64), e_lo.astype(np.float64) + fraction * width_f)
    value = np.where(idx == 0, bstart.astype(np.float64), value)
    for i, key in enumerate(QUANTILE_KEYS):
        out[key] = value[:, i].reshape(groups, dims)
    return out


#: Episodes computed together are padded to the longest; a new batch starts past this ratio of lengths.
PAD_RATIO = 1.25


def block_stats(matrix: np.ndarray, lengths: np.ndarray) -> dict[str, np.ndarray]:
    """Per-episode statistics of consecutive episodes stored in one (R, D) matrix, in episode order.

    Episodes of similar length (within `PAD_RATIO`) are computed together (`_padded_stats`), so the
    padding costs at most a quarter more work; episodes of one row go through `episode_stats`. Both
    give the same numbers as `episode_stats` on each episode.

    Args:
        matrix: shape (R, D), the rows of the episodes one after another, finite values.
        lengths: shape (E,), each >= 1, summing to R.

    Returns:
        key -> array of shape (E, D) (`count`: (E, 1)).
    """
    lengths = np.asarray(lengths, dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp)
    parts: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
    for e in np.flatnonzero(lengths < 2).tolist():
        one = episode_stats(np.ascontiguousarray(matrix[starts[e]:starts[e] + lengths[e]]))
        parts.append((np.array([e]), {key: np.asarray(value)[None, :] for key, value in one.items()}))
    order = np.flatnonzero(lengths >= 2)
    order = order[np.argsort(lengths[order], kind="stable")]
    i = 0
    while i < len(order):
        limit = lengths[order[i]] * PAD_RATIO
        j = i + int(np.searchsorted(lengths[order[i:]], limit, side="right"))
        members = np.sort(order[i:j])
        parts.append((members, _padded_stats(matrix, starts[members], lengths[members])))
        i = j
    out: dict[str, np.ndarray] = {}
    for members, part in parts:
        for key, value in part.items():
            if key not in out:
                out[key] = np.empty((len(lengths), value.shape[1]), dtype=value.dtype)
            out[key][members] = value
    return out


def aggregate_blocks(blocks: list[dict[str, np.ndarray]]) -> FeatureStats:
    """`aggregate` over per-episode statistics held as (E, D) arrays (from `block_stats`), in episode order."""
    if not blocks:
        raise ValueError("no episode statistics to aggregate")
    return aggregate_stacked({key: np.concatenate([b[key] for b in blocks], axis=0) for key in blocks[0]})
