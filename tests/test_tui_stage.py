"""Pilot tests of running stages in the TUI: lines stream in, success, failure view and re-run, cancel."""

from __future__ import annotations

import asyncio

from screens.app import make_app
from screens.stage import StageScreen
from tui_fixtures import (failing_stage, hub_failure_stage, quick_stage, screen_text, simple_session, slow_stage,
                          start_stage, wait_for)

SIZE = (120, 40)


def _status(app) -> str:
    return getattr(app.screen, "status", "")


def test_small_stage_streams_lines_and_succeeds(tmp_path):
    asyncio.run(_test_small_stage_streams_lines_and_succeeds(tmp_path))


async def _test_small_stage_streams_lines_and_succeeds(tmp_path):
    session = simple_session(tmp_path)
    app = make_app(session, [quick_stage(lines=5)], welcome=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_stage(pilot, app)
        await wait_for(pilot, lambda: _status(app) == "succeeded", what="stage success")
        await pilot.pause(0.2)
        lines = list(app.screen.query_one("#stage-log").lines)
        assert [ln for ln in lines if ln.startswith("line ")] == [f"line {i}" for i in range(5)]
        assert "all done" in lines
        assert [row.state for row in app.screen.step_list.rows] == ["ok", "ok"]
        assert session.store.last("hello").status.value == "succeeded"
        assert "✓ succeeded" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        table = app.screen.query_one("#stage-list")
        assert "succeeded" in str(table.get_row("hello")[2])


def test_failing_stage_shows_failure_view_and_r_reruns(tmp_path):
    asyncio.run(_test_failing_stage_shows_failure_view_and_r_reruns(tmp_path))


async def _test_failing_stage_shows_failure_view_and_r_reruns(tmp_path):
    marker = tmp_path / "fixed"
    session = simple_session(tmp_path)
    app = make_app(session, [failing_stage(marker=marker)], welcome=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_stage(pilot, app)
        await wait_for(pilot, lambda: _status(app) == "failed", what="stage failure")
        screen = app.screen
        assert screen.has_class("-failed")
        assert screen.query_one("#failure").display
        text = screen_text(app)
        assert "Step 2 failed: Do the thing" in text
        assert "Last output: ! ERROR: something broke" in text  # one line, the rest is in the log below
        assert "press r to re-run" in text
        assert app.focused is screen.query_one("#failure"), "the failure box takes the focus (arrows scroll it)"
        assert [row.state for row in screen.step_list.rows] == ["ok", "failed"]
        assert "exit code 3" in screen.step_list.rows[1].note
        # No remedy matched: `f` is absent, `r` and `l` are offered.
        assert screen.check_action("fix", ()) is False
        assert screen.check_action("rerun", ()) is True
        marker.write_text("ok")
        await pilot.press("r")
        await wait_for(pilot, lambda: _status(app) == "succeeded", what="re-run success")
        assert not screen.has_class("-failed")
        assert session.store.last("broken").status.value == "succeeded"


def test_cancel_asks_then_cancels(tmp_path):
    asyncio.run(_test_cancel_asks_then_cancels(tmp_path))


async def _test_cancel_asks_then_cancels(tmp_path):
    session = simple_session(tmp_path)
    app = make_app(session, [slow_stage(seconds=30)], welcome=False)
    async with app.run_test(size=SIZE) as pilot:
        stage_screen = await start_stage(pilot, app)
        await wait_for(pilot, lambda: "sleeping" in stage_screen.query_one("#stage-log").lines, what="first line")
        await pilot.press("c")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmDialog"
        await pilot.press("n")  # keep running
        await pilot.pause(0.2)
        assert stage_screen.status == "running" and not stage_screen.cancel_event.is_set()
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: stage_screen.status == "cancelled", what="cancelled", timeout=20)
        assert session.store.last("slow").status.value == "cancelled"
        assert stage_screen.step_list.rows[0].state == "cancelled"


def test_escape_while_running_stays(tmp_path):
    asyncio.run(_test_escape_while_running_stays(tmp_path))


async def _test_escape_while_running_stays(tmp_path):
    session = simple_session(tmp_path)
    app = make_app(session, [slow_stage(seconds=30)], welcome=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_stage(pilot, app)
        await wait_for(pilot, lambda: _status(app) == "running", what="running")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StageScreen)
        app.screen.cancel_event.set()
        await wait_for(pilot, lambda: _status(app) == "cancelled", what="cancelled", timeout=20)


def test_matched_remedy_is_explained_and_f_offered(tmp_path):
    """The field report's push_to_hub failure (RECIPE.md, stage 8) matches the catalogue's remedy."""
    stage = hub_failure_stage()
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, [stage], welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await start_stage(pilot, app)
            await wait_for(pilot, lambda: _status(app) == "failed", what="failure")
            screen = app.screen
            assert [m.id for m in screen.matches] == ["hub-push-local-path"]
            assert screen.check_action("fix", ()) is True
            text = screen_text(app)
            assert "Known problem: " in text and "Press f to apply its fix" in text
            await pilot.press("f")
            await pilot.pause()
            assert type(app.screen).__name__ == "RemedyDialog"
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
        assert session.store.last("dataset").status.value == "failed"

    asyncio.run(go())


def test_failure_view_puts_the_fix_key_on_screen_at_80x24(tmp_path):
    """At 80x24 the failed step, the known problem and "Press f" are on screen without scrolling."""
    from tui_fixtures import visible_lines

    async def go():
        app = make_app(simple_session(tmp_path), [hub_failure_stage()], welcome=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await start_stage(pilot, app)
            await wait_for(pilot, lambda: _status(app) == "failed", what="failure")
            await pilot.pause(0.2)
            shown = "\n".join(visible_lines(app))
            for words in ("Step 2 failed: Quantile stats", "Known problem:", "Press f to apply its fix"):
                assert words in shown, (words, shown)
            assert "Last lines" not in shown  # the log below holds the output; it is not repeated
            box = app.screen.query_one("#failure")
            assert app.focused is box and box.max_scroll_y > 0  # the rest scrolls with the arrows
            await pilot.press("down")
            await pilot.pause()
            assert box.scroll_y > 0
            footer = visible_lines(app)[-1]
            assert "f Fix" in footer and "esc Back" in footer

    asyncio.run(go())
