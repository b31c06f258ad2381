"""Pilot tests of the keys the Footer promises: `q` quits from home, `q`/Esc go back elsewhere, and at 80
columns the Footer shows those keys whole."""

from __future__ import annotations

import asyncio

from textual.widgets._footer import FooterKey

from screens.app import make_app
from screens.home import HomeScreen
from screens.preflight import PreflightScreen
from tui_fixtures import failing_stage, quick_stage, sim_session, simple_session, slow_stage, start_stage, wait_for

NARROW = (80, 24)


def _footer_key(app, key: str) -> FooterKey:
    return next(k for k in app.screen.query(FooterKey) if k.key == key)


def _shown_whole(app, key: str, label: str) -> bool:
    """True when the Footer's `key` entry is on screen in full and not under the palette hint."""
    entry = _footer_key(app, key)
    palette = _footer_key(app, "ctrl+p")
    return (entry.description == label and entry.region.width >= len(label) + 3
            and entry.region.right <= palette.region.x and entry.region.right <= app.size.width)


def test_q_on_home_quits_and_footer_shows_quit_whole(tmp_path):
    async def go():
        app = make_app(simple_session(tmp_path), [quick_stage()], welcome=False)
        async with app.run_test(size=NARROW) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            assert _shown_whole(app, "q", "Quit")
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
        return app.return_code

    assert asyncio.run(go()) == 0


def test_q_and_escape_leave_a_finished_stage_but_not_a_running_one(tmp_path):
    async def go():
        session = simple_session(tmp_path)
        app = make_app(session, [failing_stage(), slow_stage(seconds=30)], welcome=False)
        async with app.run_test(size=NARROW) as pilot:
            screen = await start_stage(pilot, app)
            await wait_for(pilot, lambda: screen.status == "failed", what="failure")
            assert _shown_whole(app, "escape", "Back")
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen) and app.is_running
            # A running stage stays on q and Esc (the notification says to cancel with c).
            app.screen.query_one("#stage-list").select_stage("slow")
            screen = await start_stage(pilot, app)
            await wait_for(pilot, lambda: screen.status == "running", what="running")
            for key in ("q", "escape"):
                await pilot.press(key)
                await pilot.pause()
                assert app.screen is screen
            screen.cancel_event.set()
            await wait_for(pilot, lambda: screen.status == "cancelled", what="cancelled", timeout=20)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)

    asyncio.run(go())


def test_q_and_escape_leave_preflight(tmp_path):
    from wizard.simhost import SIM_CHECK_IDS
    from wizard.stages.registry import all_stages

    async def go():
        app = make_app(sim_session(tmp_path), all_stages(), welcome=False, check_ids=SIM_CHECK_IDS, offline=True)
        async with app.run_test(size=NARROW) as pilot:
            for key in ("q", "escape"):
                await pilot.pause()
                await pilot.press("enter")
                await wait_for(pilot, lambda: isinstance(app.screen, PreflightScreen), what="preflight")
                await wait_for(pilot, lambda: not app.screen.running, what="checks done", timeout=30)
                assert _shown_whole(app, "escape", "Back")
                screen = app.screen
                await pilot.press("d")  # the details full screen; the first q/Esc only leaves that
                await pilot.pause()
                assert screen.maximized is screen.query_one("#check-details")
                await pilot.press(key)
                await pilot.pause()
                assert app.screen is screen and screen.maximized is None
                await pilot.press(key)
                await pilot.pause()
                assert isinstance(app.screen, HomeScreen), key
            assert app.is_running

    asyncio.run(go())


def test_d_shows_home_details_full_screen_and_back(tmp_path):
    async def go():
        app = make_app(simple_session(tmp_path), [quick_stage()], welcome=False)
        async with app.run_test(size=NARROW) as pilot:
            await pilot.pause()
            screen = app.screen
            await pilot.press("d")
            await pilot.pause()
            assert screen.maximized is screen.query_one("#details")
            await pilot.press("d")
            await pilot.pause()
            assert screen.maximized is None and app.is_running

    asyncio.run(go())
