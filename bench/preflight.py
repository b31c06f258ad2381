"""Prints how long the preflight takes on a simulated healthy 910B host, and with a hung npu-smi.

Run: `python bench/preflight.py [--runs N]`. Target: median under 0.3 s for the checks themselves;
with a hung npu-smi, the run must end within the registry timeout + 0.5 s.

Figures printed:
* median / min / max wall time of `run_checks` over the checks a simulated host answers (no network;
  Docker is asked too, as `pi05-wizard check --offline` would).
* the whole `pi05-wizard check --offline --json` command end to end (Python start-up and imports included).
* a hung npu-smi killed by its command timeout (1.0 s) under a registry timeout of 2.0 s.
* a hung npu-smi whose command timeout (3.0 s) outlives the registry timeout (1.0 s): the registry
  abandons it at 1.0 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from checks.context import CheckContext, Requirements  # noqa: E402
from checks.registry import CHECK_IDS, run_checks  # noqa: E402
from wizard.hosts.local import LocalHost  # noqa: E402
from wizard.simhost import build_sim_host, teardown_sim_host  # noqa: E402


def timed(ctx: CheckContext, only, timeout_s: float) -> tuple[float, list]:
    start = time.perf_counter()
    results = run_checks(ctx, only=only, timeout_s=timeout_s)
    return time.perf_counter() - start, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    only = [i for i in CHECK_IDS if i != "network"]
    with tempfile.TemporaryDirectory(prefix="pi05 bench ") as tmp:
        root = build_sim_host(Path(tmp) / "healthy", "healthy")
        ctx = CheckContext(host=LocalHost(root), requirements=Requirements(), offline=True)
        timed(ctx, only, 10.0)  # warm-up: imports (docker SDK) and page cache
        walls = [timed(ctx, only, 10.0)[0] for _ in range(args.runs)]
        print(f"preflight on a healthy simulated 910B host ({len(only)} checks, {args.runs} runs): "
              f"median {statistics.median(walls):.3f} s, min {min(walls):.3f} s, max {max(walls):.3f} s "
              f"(target < 0.300 s)")

        cli = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "wizard", "--root", str(root), "--state-dir", str(Path(tmp) / "state"),
                            "check", "--offline", "--json"], capture_output=True, check=False,
                           cwd=Path(__file__).resolve().parents[1])
            cli.append(time.perf_counter() - start)
        print(f"`pi05-wizard --root <healthy> check --offline --json` end to end (process start, imports, "
              f"18 checks): median {statistics.median(cli):.3f} s over 5 runs")

        hung = build_sim_host(Path(tmp) / "hung", "npu-smi-hangs")
        ctx = CheckContext(host=LocalHost(hung), requirements=Requirements(command_timeout_s=1.0), offline=True)
        wall, res = timed(ctx, only, 2.0)
        npu = next(r for r in res if r.id == "npu-smi")
        print(f"hung npu-smi, command timeout 1.0 s, registry timeout 2.0 s: {wall:.3f} s "
              f"(limit 2.500 s) -> npu-smi {npu.status.value}: {npu.summary}")
        ctx = CheckContext(host=LocalHost(hung), requirements=Requirements(command_timeout_s=3.0), offline=True)
        wall, res = timed(ctx, only, 1.0)
        npu = next(r for r in res if r.id == "npu-smi")
        print(f"hung npu-smi, command timeout 3.0 s, registry timeout 1.0 s: {wall:.3f} s "
              f"(limit 1.500 s) -> npu-smi {npu.status.value}: {npu.summary}")
        time.sleep(2.2)  # let the abandoned worker's own timeout kill its sleeping npu-smi before cleanup
        teardown_sim_host(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
