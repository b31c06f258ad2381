"""Stream benchmark: lines/s through the runner (log-file sink + a regex matcher) vs a bare pipe read.

Run: `python bench/stream.py [--lines N]`. A child Python process writes N lines (default
1,000,000) to stdout as fast as it can (one buffered `write` per line, a few ERROR lines mixed
in); the same child is read three ways:

- bare: `for line in proc.stdout` on a pipe, counting lines (the floor to compare against);
- runner: `run_stage` with its per-run `LogFileSink` and a `LineMatcher` of five patterns;
- memory: the runner again under `tracemalloc`, at N/10 and N lines: the peak must not grow with N.

Prints lines/s for each, the ratio, and the peaks. Figures only; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wizard.hosts.local import LocalHost  # noqa: E402
from wizard.locations import Locations  # noqa: E402
from wizard.runner import run_stage  # noqa: E402
from wizard.sinks import LineMatcher  # noqa: E402
from wizard.stages.base import Stage, StageContext, Step, Where  # noqa: E402
from wizard.state import StateStore  # noqa: E402

CHILD = r"""
import sys
n = int(sys.argv[1])
fast = len(sys.argv) > 2
def text(i):
    if i % 100000 == 99999:
        return f"ERROR: No module named 'torch_npu' (line {i})\n"
    return f"{i:08d} INFO step={i} loss=0.{i % 997:03d} lr=2.5e-05 samples/s=123.4 grad_norm=1.05\n"
if fast:  # pre-built 64 KiB-ish blocks: the child is never the bottleneck
    block = "".join(text(i) for i in range(99000, 100000)).encode()
    out = sys.stdout.buffer
    for _ in range(n // 1000):
        out.write(block)
    out.write("".join(text(i) for i in range(n % 1000)).encode())
else:  # a Python program printing line by line, as fast as it can
    w = sys.stdout.write
    for i in range(n):
        w(text(i))
sys.stdout.flush()
"""

PATTERNS = {
    "no-module": r"No module named '([\w.]+)'",
    "oom": r"out of memory|OOM",
    "hccl": r"HCCL.*(timeout|error)",
    "pip-conflict": r"^ERROR: pip's dependency resolver",
    "killed": r"\bKilled\b",
}


def child_argv(n: int, fast: bool) -> list[str]:
    return [sys.executable, "-c", CHILD, str(n), *(["fast"] if fast else [])]


def bare(n: int, fast: bool) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(child_argv(n, fast), stdout=subprocess.PIPE)
    count = 0
    for _ in proc.stdout:  # type: ignore[union-attr]
        count += 1
    proc.wait()
    return time.perf_counter() - start, count


class Counter(LineMatcher):
    """The matcher, plus a count of lines it was handed (to check nothing was lost)."""

    def __init__(self) -> None:
        super().__init__(PATTERNS)
        self.seen = 0

    def line_batch(self, texts, stream, time, step, progress):  # noqa: D102
        if stream == "stdout":
            self.seen += len(texts)
        super().line_batch(texts, stream, time, step, progress)


def through_runner(n: int, tmp: Path, fast: bool = False) -> tuple[float, int, list[str], int]:
    loc = Locations.under(tmp)
    stage = Stage(id="bench", title="bench", description="", where=Where.HOST,
                  steps=lambda ctx: [Step("print lines", argv=child_argv(n, fast), timeout_s=None)])
    ctx = StageContext(recipe=None, host=LocalHost(), locations=loc)  # type: ignore[arg-type]
    counter = Counter()
    start = time.perf_counter()
    rec = run_stage(stage, ctx, [counter], threading.Event(), StateStore(loc))
    took = time.perf_counter() - start
    size = os.path.getsize(rec.log_path) if rec.log_path else 0
    os.unlink(rec.log_path)  # type: ignore[arg-type]
    return took, counter.seen, rec.remedies, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    args = ap.parse_args()
    n = args.lines
    print(f"lines: {n:,}  (cpus: {os.cpu_count()})")
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        through_runner(1000, tmp)  # warm imports
        for fast, label in ((False, "child printing line by line"), (True, "child writing pre-built blocks")):
            rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            b_s, b_n = bare(n, fast)
            r_s, r_n, remedies, size = through_runner(n, tmp, fast)
            rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(f"-- {label}")
            print(f"   bare pipe read:   {b_n:>10,} lines in {b_s:6.2f} s = {b_n / b_s:>10,.0f} lines/s")
            print(f"   runner+log+match: {r_n:>10,} lines in {r_s:6.2f} s = {r_n / r_s:>10,.0f} lines/s "
                  f"({r_s / b_s:.2f}x the bare read's time; log {size / 1e6:.1f} MB; remedies {remedies})")
            print(f"   peak RSS growth over both reads: {(rss1 - rss0) / 1024:.1f} MiB (ru_maxrss)")
        for m in (n // 10, n):
            tracemalloc.start()
            through_runner(m, tmp, True)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"tracemalloc peak while streaming {m:>10,} lines through the runner: {peak / 1024:8.1f} KiB")


if __name__ == "__main__":
    main()
