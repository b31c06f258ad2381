"""The live log stays bounded and the UI keeps handling keys while a stage floods it (no timing asserts:
figures come from bench/tui_flood.py)."""

from __future__ import annotations

import asyncio

from textual import events

from screens.app import make_app
from screens.widgets.stage_log import LineBuffer, render_line
from tui_fixtures import flood_stage, simple_session, wait_for
from wizard.events import Line


def test_line_buffer_is_bounded_and_counts_what_it_dropped():
    buf = LineBuffer(maxlen=100, tail_len=5)
    buf.push_batch([f"l{i}" for i in range(250)], "stdout", 0.0, 0, False)
    lines, dropped = buf.drain()
    assert [ln.text for ln in lines] == [f"l{i}" for i in range(150, 250)]
    assert dropped == 150
    assert [ln.text for ln in buf.tail] == [f"l{i}" for i in range(245, 250)]
    assert buf.drain() == ([], 0)
    buf.push(Line("again", "stderr"))
    lines, dropped = buf.drain(limit=10)
    assert [render_line(ln) for ln in lines] == ["! again"] and dropped == 0


def test_line_buffer_hostile_input():
    buf = LineBuffer(maxlen=10)
    buf.push_batch(["", "\x00\x1b[31mred\x1b[0m", "x" * 1_000_000], "stdout", 0.0, 0, False)
    lines, _ = buf.drain()
    assert len(lines) == 3 and len(lines[2].text) == 1_000_000


def test_flooding_stage_keeps_log_bounded_and_keys_handled(tmp_path):
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, [flood_stage(lines=300_000, min_seconds=4)], welcome=False)
        async with app.run_test(size=(120, 40)) as pilot:
            app.screen.action_open()
            await wait_for(pilot, lambda: getattr(app.screen, "status", "") == "running", what="running")
            screen = app.screen
            await wait_for(pilot, lambda: screen.buffer._pushed > 10_000, what="flood under way")
            # Post the key the way the terminal driver does (Pilot.press waits for an idle app).
            app.post_message(events.Key("question_mark", "?"))
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpDialog", what="help during flood")
            assert screen.status == "running"
            app.post_message(events.Key("escape", None))
            await wait_for(pilot, lambda: screen.status == "succeeded", what="flood done", timeout=60)
            await pilot.pause(0.3)
            log = screen.query_one("#stage-log")
            assert len(log.lines) <= log.max_lines
            assert log.lines[-1].startswith("» ✓ stage flood succeeded")
        log_text = session.store.last("flood").log_path
        with open(log_text, encoding="utf-8") as fh:  # the full output is in the log file
            assert sum(1 for ln in fh if ln.rstrip().endswith("of output") and "flood line" in ln and " -c " not in ln) == 300_000

    asyncio.run(go())
