"""Benchmark of `pi05-wizard dataset stats`: wall time beside a bare parquet read, and peak memory.

Generates (deterministically, with `wizard.dataset.writer`) a v3.0 dataset of 80 episodes x 300
frames with a 6-dim `observation.state` and a 6-dim `action`, then prints:

- the median wall time of the stats command's work (compute + merge into meta/stats.json) in the
  default (lerobot histogram) mode and in `--exact` mode, for all non-camera features and for
  `observation.state action` only;
- beside it, the median time of only reading the same parquet columns (`pq.ParquetFile(f).read(columns)`);
- the peak RSS (ru_maxrss) of a fresh process running the command once, beside the peak RSS of a
  process that only imports the same modules, for 80 and for 320 episodes (memory should grow with
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow.parquet as pq  # noqa: E402

from wizard.dataset.layout import load_info  # noqa: E402
from wizard.dataset.stats import compute_stats, default_features, write_stats  # noqa: E402
from wizard.dataset.writer import synthetic_episodes, write_v30  # noqa: E402

_CHILD = """
import json, resource, sys
sys.path.insert(0, {root!r})
from wizard.dataset.stats import compute_stats, write_stats
if {run!r}:
    run = compute_stats({path!r}, exact={exact!r})
    write_stats({path!r}, run.stats)
print(json.dumps({{"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""


def median_time(fn, repeat: int) -> float:
    """Median wall time of `fn()` over `repeat` runs, in seconds (after one warm-up run)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def child_maxrss_mb(path: Path, run: bool, exact: bool = False) -> float:
    """Peak RSS of a fresh interpreter (that computes and writes stats when `run`), in MB (10^6 bytes)."""
    code = _CHILD.format(root=str(ROOT), path=str(path), run=run, exact=exact)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["maxrss_kib"] * 1024 / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per figure (median reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pi05-stats-bench-") as tmp:
        path = write_v30(Path(tmp) / "bench80", synthetic_episodes(80, 300, 6, seed=0), ["pick", "place"])
        big = write_v30(Path(tmp) / "bench320", synthetic_episodes(320, 300, 6, seed=1), ["pick", "place"])
        info = load_info(path)
        all_cols = default_features(info)
        pi05_cols = ["observation.state", "action"]
        data = path / "data" / "chunk-000" / "file-000.parquet"
        print(f"dataset: 80 episodes x 300 frames, state and action 6-dim, {len(all_cols)} non-camera features, "
              f"{data.stat().st_size / 1e6:.2f} MB parquet; median of {args.repeat} runs")
        print(f"{'what':<46} {'stats':>9} {'bare read':>10} {'ratio':>6}")
        for label, cols in (("all non-camera features", all_cols), ("observation.state + action", pi05_cols)):
            read_cols = list(dict.fromkeys([*cols, "episode_index"]))
            t_read = median_time(lambda: pq.ParquetFile(data).read(columns=read_cols), args.repeat)
            for mode, exact in (("histogram", False), ("exact", True)):
                t_stats = median_time(lambda: write_stats(path, compute_stats(path, features=cols, exact=exact).stats),
                                      args.repeat)
                print(f"{label + ', ' + mode:<46} {t_stats:>8.3f}s {t_read:>9.4f}s {t_stats / t_read:>5.1f}x")
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
