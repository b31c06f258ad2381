"""Prints how responsive the TUI stays while a stage floods it with output.

Runs the app headless (Textual's test driver) on a temporary state folder with one stage whose
step prints RATE lines per second for SECONDS seconds (and an unthrottled variant), and meanwhile
measures, every 50 ms, how long a message posted to the app takes to be handled (the same queue
key presses go through), plus the time from posting a real `?` key event to the help dialog being the active screen.

Usage: python bench/tui_flood.py [RATE] [SECONDS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from textual import events  # noqa: E402

from screens.app import make_app  # noqa: E402
from tui_fixtures import simple_session  # noqa: E402
from wizard.stages.base import Stage, Step, Where  # noqa: E402


def flood(rate: int | None, seconds: float) -> Stage:
    if rate is None:
        code = (f"import sys, time\nw = sys.stdout.write\nend = time.time() + {seconds}\ni = 0\n"
                "while time.time() < end:\n    for _ in range(1000):\n"
                "        w('flood line %d with some text after it\\n' % i); i += 1\n")
    else:
        per_tick = max(1, rate // 20)
        code = (f"import sys, time\nw = sys.stdout.write\nend = time.time() + {seconds}\ni = 0\n"
                "while time.time() < end:\n"
                f"    for _ in range({per_tick}):\n        w('flood line %d with some text after it\\n' % i); i += 1\n"
                "    sys.stdout.flush(); time.sleep(0.05)\n")
    return Stage(id="flood", title="Flood", description="Prints a lot.", where=Where.HOST,
                 steps=lambda ctx: [Step("Flood", argv=[sys.executable, "-c", code], timeout_s=120)])


async def measure(rate: int | None, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(simple_session(Path(tmp)), [flood(rate, seconds)], welcome=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("enter")
            while getattr(app.screen, "status", "") != "running":
                await asyncio.sleep(0.01)
            screen = app.screen
            lags: list[float] = []
            presses: list[float] = []
            start = time.perf_counter()
            while screen.status == "running":
                done = asyncio.Event()
                t0 = time.perf_counter()
                app.call_later(lambda: (lags.append(time.perf_counter() - t0), done.set()))
                await done.wait()
                if len(lags) % 10 == 0:
                    # A real key press, posted like the driver posts it: `?` opens the help dialog.
                    t1 = time.perf_counter()
                    app.post_message(events.Key("question_mark", "?"))
                    while type(app.screen).__name__ != "HelpDialog" and time.perf_counter() - t1 < 5:
                        await asyncio.sleep(0.001)
                    presses.append(time.perf_counter() - t1)
                    app.post_message(events.Key("escape", None))
                    while app.screen is not screen and time.perf_counter() - t1 < 5:
                        await asyncio.sleep(0.001)
                await asyncio.sleep(0.05)
            wall = time.perf_counter() - start
            pushed = screen.buffer._pushed
            shown = len(screen.query_one("#stage-log").lines)
    label = f"{rate} lines/s" if rate else "unthrottled"
    lags_ms = sorted(x * 1000 for x in lags)
    p = lambda q: lags_ms[min(len(lags_ms) - 1, int(q * len(lags_ms)))]  # noqa: E731
    print(f"{label:>16}: {pushed} lines in {wall:.1f} s ({pushed / wall:,.0f}/s); log holds {shown} lines")
    print(f"{'':>16}  message latency ms: median {statistics.median(lags_ms):.1f}, p95 {p(0.95):.1f}, "
          f"max {lags_ms[-1]:.1f} ({len(lags_ms)} samples)")
    if presses:
        pm = sorted(x * 1000 for x in presses)
        print(f"{'':>16}  key `?` to help dialog shown, ms: median {statistics.median(pm):.1f}, max {pm[-1]:.1f}")


def main() -> None:
    rate = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    asyncio.run(measure(rate, seconds))
    asyncio.run(measure(None, seconds))


if __name__ == "__main__":
    main()
