"""Pilot test: the help dialog fits an 80x24 terminal without scrolling, every key in view."""

from __future__ import annotations

import asyncio

from textual.containers import VerticalScroll

from screens.app import make_app
from screens.dialogs.help import KEYS, HelpDialog
from tui_fixtures import quick_stage, screen_text, simple_session


def test_help_fits_80x24_without_scrolling(tmp_path):
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, [quick_stage()], welcome=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpDialog)
            box = app.screen.query_one(VerticalScroll)
            assert box.max_scroll_y == 0 and box.max_scroll_x == 0, (box.max_scroll_y, box.virtual_size, box.size)
            text = screen_text(app)
            for key, what in KEYS:
                assert " ".join(what.split()[:4]) in " ".join(text.split()), what

    asyncio.run(go())
