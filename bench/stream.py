"""Stream benchmark: lines/s through the runner (log-file sink + a regex matcher) vs a bare pipe read.

Run: `python bench/stream.py [--lines N] [--repeat R]`. A child Python process writes N lines
(default 1,000,000) to stdout as fast as it can, either printing line by line or writing
pre-built ~90 KB blocks (an ERROR line the matcher must find: one per 100,000 lines when
printing, one per 1,000 in the blocks); the same child is read:

- bare: what any line consumer must do and nothing more: `os.read` 64 KiB chunks from the
  pipe, keep the unfinished last line for the next chunk, decode UTF-8, split into `str`
  lines and count them (no log, no matching). This is the floor the ratio is taken against.
- old bare: the baseline used before: `for line in proc.stdout` (a BufferedReader's 8 KiB
  reads, `bytes` lines, never decoded); printed for comparison only.
- runner: `run_stage` with its per-run `LogFileSink` (about 107 MB of log) and a
  `LineMatcher` of five patterns;
- memory: the runner again under `tracemalloc`, at N/10 and N lines: the peak must not grow with N.

Each measurement runs R times (default 3), interleaved; the medians are printed, with the
reader's CPU seconds (`time.process_time`, the child's not included), which a busy machine
disturbs less than wall time. Figures only; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
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


def bare(n: int, fast: bool) -> tuple[float, float, int]:
    """Read the child's lines from a pipe: 64 KiB chunks, decoded, split. Returns (wall s, CPU s, lines)."""
    start, cpu = time.perf_counter(), time.process_time()
    proc = subprocess.Popen(child_argv(n, fast), stdout=subprocess.PIPE, bufsize=0)
    fd = proc.stdout.fileno()  # type: ignore[union-attr]
    count = 0
    pending = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data = pending + chunk if pending else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
            continue
        count += len(data[:cut].decode("utf-8", errors="replace").split("\n"))
        pending = data[cut + 1:]
    if pending:
        count += 1
    proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]
    return time.perf_counter() - start, time.process_time() - cpu, count


def old_bare(n: int, fast: bool) -> tuple[float, float, int]:
    """The previous baseline: iterate a BufferedReader's `bytes` lines, undecoded."""
    start, cpu = time.perf_counter(), time.process_time()
    proc = subprocess.Popen(child_argv(n, fast), stdout=subprocess.PIPE)
    count = 0
    for _ in proc.stdout:  # type: ignore[union-attr]
        count += 1
    proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]
    return time.perf_counter() - start, time.process_time() - cpu, count


class Counter(LineMatcher):
    """The matcher, plus a count of lines it was handed (to check nothing was lost)."""

    def __init__(self) -> None:
        super().__init__(PATTERNS)
        self.seen = 0

    def line_batch(self, texts, stream, time, step, progress):  # noqa: D102
        if stream == "stdout":
            self.seen += len(texts)
        super().line_batch(texts, stream, time, step, progress)


def through_runner(n: int, tmp: Path, fast: bool = False) -> tuple[float, float, int, list[str], int]:
    """Run the child as a stage step. Returns (wall s, CPU s, stdout lines seen, remedies, log bytes)."""
    loc = Locations.under(tmp)
    stage = Stage(id="bench", title="bench", description="", where=Where.HOST,
                  steps=lambda ctx: [Step("print lines", argv=child_argv(n, fast), timeout_s=None)])
    ctx = StageContext(recipe=None, host=LocalHost(), locations=loc)  # type: ignore[arg-type]
    counter = Counter()
    start, cpu = time.perf_counter(), time.process_time()
    rec = run_stage(stage, ctx, [counter], threading.Event(), StateStore(loc))
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    size = os.path.getsize(rec.log_path) if rec.log_path else 0
    os.unlink(rec.log_path)  # type: ignore[arg-type]
    return took, cpu, counter.seen, rec.remedies, size


def _med(runs: list[tuple], i: int) -> float:
    return statistics.median(r[i] for r in runs)


def _row(label: str, runs: list[tuple], lines: int) -> str:
    wall, cpu = _med(runs, 0), _med(runs, 1)
    each = ", ".join(f"{r[0]:.2f}" for r in runs)
    return (f"   {label:<10} {lines:>10,} lines in {wall:6.2f} s = {lines / wall:>10,.0f} lines/s"
            f"   CPU {cpu:5.2f} s   (wall per run: {each})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; medians are printed")
    args = ap.parse_args()
    n, reps = args.lines, max(1, args.repeat)
    print(f"lines: {n:,}  runs: {reps} (medians)  cpus: {os.cpu_count()}")
    print("bare     = os.read 64 KiB chunks + carry the partial line + UTF-8 decode + split into str lines")
    print("old bare = `for line in proc.stdout` (8 KiB buffered reads, bytes lines, no decode): the old baseline")
    print("runner   = run_stage + LogFileSink (timestamp + stream tag per line) + LineMatcher (5 patterns)")
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        through_runner(1000, tmp)  # warm imports
        for fast, label in ((False, "child printing line by line"), (True, "child writing pre-built blocks")):
            rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            b_runs, o_runs, r_runs = [], [], []
            for _ in range(reps):
                b_runs.append(bare(n, fast))
                o_runs.append(old_bare(n, fast))
                r_runs.append(through_runner(n, tmp, fast))
            rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            b_n, o_n = b_runs[0][2], o_runs[0][2]
            _, _, r_n, remedies, size = r_runs[0]
            print(f"-- {label}")
            print(_row("bare", b_runs, b_n))
            print(_row("old bare", o_runs, o_n))
            print(_row("runner", r_runs, r_n) + f"\n{'':14}log {size / 1e6:.1f} MB; remedies {remedies}")
            rw, bw, ow = _med(r_runs, 0), _med(b_runs, 0), _med(o_runs, 0)
            print(f"   runner / bare: {rw / bw:.2f}x wall, {_med(r_runs, 1) / _med(b_runs, 1):.2f}x CPU"
                  f"   (runner / old bare: {rw / ow:.2f}x wall)")
            print(f"   peak RSS growth over these runs: {(rss1 - rss0) / 1024:.1f} MiB (ru_maxrss)")
        for m in (n // 10, n):
            tracemalloc.start()
            through_runner(m, tmp, True)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"tracemalloc peak while streaming {m:>10,} lines through the runner: {peak / 1024:8.1f} KiB")


if __name__ == "__main__":
    main()
