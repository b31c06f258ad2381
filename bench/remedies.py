"""Benchmark: 1M log lines through every remedy pattern; prints lines/s.

The mix is what a training or install log looks like: mostly training step lines and pip/progress
noise, with a known error every ~5000 lines. Run: `python bench/remedies.py [N]`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wizard.events import Line  # noqa: E402
from wizard.remedies.catalogue import load_catalogue  # noqa: E402
from wizard.remedies.matcher import RemedyMatcher, match_text  # noqa: E402

NOISE = [
    "INFO 2025-10-21 12:00:00 ot_train.py:347 step:{i} smpl:2K ep:7 epch:0.08 loss:2.021 grdn:1.234 lr:2.9e-07 updt_s:1.230 data_s:0.450",
    "Collecting numpy==1.26.0 (from mindspeed==0.12.1)",
    "  Downloading torch_npu-2.7.1-cp310-cp310-manylinux_2_17_aarch64.whl (12.3 MB)",
    "Processing episodes:  17%|█▋        | {i}/6 [00:00<00:02,  2.07it/s]",
    "| 0     910B3               | OK            | 91.6        36                0    / 0             |",
    "[INFO] 2025-10-21 12:00:00 upgrade component toolkit successfully, version is 8.3.RC1",
]
ERRORS = [
    "ImportError: libhccl.so: cannot open shared object file: No such file or directory",
    "RuntimeError: DataLoader worker (pid 729) is killed by signal: Bus error.",
    "opencv-python-headless 4.12.0.88 requires numpy<2.3.0,>=2; python_version >= \"3.9\", but you have numpy 1.26.0 which is incompatible.",
]


def make_lines(n: int) -> list[str]:
    out = []
    for i in range(n):
        if i % 5000 == 4999:
            out.append(ERRORS[(i // 5000) % len(ERRORS)])
        else:
            out.append(NOISE[i % len(NOISE)].format(i=i))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    cat = load_catalogue()
    lines = make_lines(n)
    patterns = sum(len(r.patterns) for r in cat.remedy)

    t0 = time.perf_counter()
    matches = match_text("\n".join(lines), cat)
    dt = time.perf_counter() - t0
    print(f"match_text: {n} lines x {patterns} patterns in {dt:.2f} s = {n / dt:,.0f} lines/s; "
          f"ids: {', '.join(m.id for m in matches)}")

    for chunk in (256, 1):
        sink = RemedyMatcher(cat)
        sink.stage_started("bench", [])
        m = n if chunk > 1 else min(n, 100_000)
        t0 = time.perf_counter()
        if chunk == 1:
            for text in lines[:m]:
                sink.line(Line(text))
        else:
            for i in range(0, m, chunk):
                sink.line_batch(lines[i:i + chunk], "stdout", 0.0, 0, False)
        dt = time.perf_counter() - t0
        print(f"RemedyMatcher sink, batches of {chunk} line(s): {m} lines in {dt:.2f} s = {m / dt:,.0f} lines/s")


if __name__ == "__main__":
    main()
