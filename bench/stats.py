"""Benchmark of `pi05-wizard dataset stats`: wall time beside a bare parquet read, and peak memory.

Generates (deterministically, with `wizard.dataset.writer`) a v3.0 dataset of 80 episodes x 300
frames with a 6-dim `observation.state` and a 6-dim `action`, then prints:

- the median wall time of the stats command's work (compute + merge into meta/stats.json) in the
  default (lerobot histogram) mode and in `--exact` mode, for all non-camera features and for
  `observation.state action` only;
- beside it, the median time of only reading the same parquet columns (`pq.ParquetFile(f).read(columns)`);
- the peak RSS (VmHWM of /proc/self/status; ru_maxrss would report the parent's peak, as Linux
  carries it over fork and exec) of a fresh process running the command once, beside the peak RSS of
  a process that only imports the same modules, for 80 and for 320 episodes (memory should grow with
  the largest episode, not with the dataset).

Targets (issue 7): under 2 s, within 3x of the bare read, peak under 300 MB. Lerobot's own script takes
about 25 s on such a dataset without cameras. Run: `python bench/stats.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from wizard.dataset.layout import load_info  # noqa: E402
from wizard.dataset.stats import compute_stats, default_features, write_stats  # noqa: E402
from wizard.dataset.writer import Episode, synthetic_episodes, write_v30  # noqa: E402

_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from wizard.dataset.stats import compute_stats, write_stats
if {run!r}:
    run = compute_stats({path!r}, exact={exact!r})
    write_stats({path!r}, run.stats)
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(json.dumps({{"maxrss_kib": int(hwm.split()[1])}}))
"""


def interleaved_medians(fns: dict[str, Callable[[], object]], repeat: int,
                        setup: Callable[[], object] = lambda: None) -> dict[str, float]:
    """Median wall time of each callable, in seconds, taking turns so each sees the same machine state.

    Every round runs `setup()` (untimed), then each callable once, in order; one warm-up round first,
    so the data files are in the page cache for all of them alike.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(repeat + 1):
        for name, fn in fns.items():
            setup()
            t0 = time.perf_counter()
            fn()
            if i:
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def child_maxrss_mb(path: Path, run: bool, exact: bool = False) -> float:
    """Peak RSS of a fresh interpreter (that computes and writes stats when `run`), in MB (10^6 bytes)."""
    code = _CHILD.format(root=str(ROOT), path=str(path), run=run, exact=exact)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["maxrss_kib"] * 1024 / 1e6


def varied_lengths(n_episodes: int, seed: int) -> list[Episode]:
    """Like `synthetic_episodes(n, 400, 6)` but each episode cut to a length in [200, 400] (real datasets vary)."""
    rng = np.random.default_rng(seed + 1000)
    out = []
    for ep in synthetic_episodes(n_episodes, 400, 6, seed=seed):
        n = int(rng.integers(200, 401))
        out.append(Episode(task_index=ep.task_index, columns={k: v[:n] for k, v in ep.columns.items()}))
    return out


def time_case(path: Path, cols: list[str], exact: bool, repeat: int) -> dict[str, float]:
    """Median seconds of compute, write, compute + write and the bare read of the same columns, taken in turns."""
    files = sorted((path / "data").glob("chunk-*/file-*.parquet"))
    read_cols = list(dict.fromkeys([*cols, "episode_index"]))
    result = compute_stats(path, features=cols, exact=exact)

    def clean() -> None:  # one backup per write, as in real use (not hundreds piling up)
        for old in (path / "meta").glob("stats.json.bak-*"):
            old.unlink()

    return interleaved_medians({
        "read": lambda: [pq.ParquetFile(f).read(columns=read_cols) for f in files],
        "compute": lambda: compute_stats(path, features=cols, exact=exact),
        "write": lambda: write_stats(path, result.stats),
        "total": lambda: write_stats(path, compute_stats(path, features=cols, exact=exact).stats),
    }, repeat, setup=clean)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=31, help="timed runs per figure (median reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pi05-stats-bench-") as tmp:
        path = write_v30(Path(tmp) / "bench80", synthetic_episodes(80, 300, 6, seed=0), ["pick", "place"])
        big = write_v30(Path(tmp) / "bench320", synthetic_episodes(320, 300, 6, seed=1), ["pick", "place"])
        varied = write_v30(Path(tmp) / "varied80", varied_lengths(80, seed=2), ["pick", "place"])
        info = load_info(path)
        all_cols = default_features(info)
        pi05_cols = ["observation.state", "action"]
        data = path / "data" / "chunk-000" / "file-000.parquet"
        print(f"dataset: 80 episodes x 300 frames, state and action 6-dim, {len(all_cols)} non-camera features, "
              f"{data.stat().st_size / 1e6:.2f} MB parquet; medians of {args.repeat} runs taken in turns, warm cache")
        print("bare read = pq.ParquetFile(f).read(columns=[features..., 'episode_index']) of every data file;")
        print("compute = compute_stats (info.json, episodes metadata, data, statistics); write = the stats.json merge")
        print(f"{'what':<44} {'compute':>8} {'write':>7} {'total':>7} {'bare read':>9} "
              f"{'compute/read':>12} {'total/read':>10}")
        cases = [("state + action, histogram", path, pi05_cols, False),
                 ("all non-camera, histogram", path, all_cols, False),
                 ("state + action, exact", path, pi05_cols, True),
                 ("all non-camera, exact", path, all_cols, True),
                 ("state + action, histogram, 200-400 frames", varied, pi05_cols, False)]
        for label, root, cols, exact in cases:
            m = time_case(root, cols, exact, args.repeat)
            print(f"{label:<44} {m['compute'] * 1e3:6.2f}ms {m['write'] * 1e3:5.2f}ms {m['total'] * 1e3:5.2f}ms "
                  f"{m['read'] * 1e3:7.2f}ms {m['compute'] / m['read']:11.2f}x {m['total'] / m['read']:9.2f}x")
        base = child_maxrss_mb(path, run=False)
        for name, p in (("80 episodes", path), ("320 episodes", big)):
            peak = child_maxrss_mb(p, run=True)
            peak_exact = child_maxrss_mb(p, run=True, exact=True)
            print(f"peak RSS, {name:<13} histogram {peak:6.1f} MB, exact {peak_exact:6.1f} MB "
                  f"(interpreter + imports alone: {base:.1f} MB)")
        wall = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), path=str(path), run=True,
                                                                exact=False)], check=True, capture_output=True)
            wall.append(time.perf_counter() - t0)
        print(f"a whole fresh process (start, imports, stats, write): median {statistics.median(wall):.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
