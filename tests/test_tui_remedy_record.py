"""Pilot test: a remedy matched while the TUI runs a stage is stored in the stage's record, like `run` stores it."""

from __future__ import annotations

import asyncio

from remedy_stages import STAGE_ID, stages
from screens.app import make_app
from screens.stage import StageScreen
from tui_fixtures import simple_session, wait_for

SIZE = (120, 40)


def test_stage_screen_stores_matched_remedies_in_the_record(tmp_path):
    asyncio.run(_test_stage_screen_stores_matched_remedies_in_the_record(tmp_path))


async def _test_stage_screen_stores_matched_remedies_in_the_record(tmp_path):
    session = simple_session(tmp_path)
    app = make_app(session, stages(), welcome=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")
        await wait_for(pilot, lambda: getattr(app.screen, "status", "") == "failed", what="stage failure")
        screen = app.screen
        assert [m.id for m in screen.matches] == ["cann-env-not-sourced"]
        assert screen.record.remedies == ["cann-env-not-sourced"]
        saved = session.store.last(STAGE_ID)
        assert saved.status.value == "failed" and saved.remedies == ["cann-env-not-sourced"]
