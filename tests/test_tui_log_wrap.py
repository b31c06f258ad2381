"""Long output lines wrap (the error is often at their end): in the stage's output panel, and in the log
viewer (`l`), where `w` turns wrapping off (then ← → scroll sideways) and the border says how to scroll."""

from __future__ import annotations

import asyncio

from screens.app import make_app
from screens.dialogs.log_viewer import SCROLL_UNWRAPPED, SCROLL_WRAPPED, LogViewer
from screens.widgets.stage_log import wrap_lines
from tui_fixtures import py, start_stage, visible_lines, wait_for
from wizard.stages.base import Stage, Step, Where

END = "ERROR-AT-THE-END"


def _long_line_stage() -> Stage:
    code = f"print('x' * 150 + ' path/to/some/file.py:42 ' + 'y' * 60 + ' {END}')"
    return Stage(id="long", title="Long line", description="Prints one long line.", where=Where.HOST,
                 steps=lambda ctx: [Step("Print", argv=py(code))])


def _flat(app) -> str:
    return "".join(ln.strip("│ ▁▂▃▄▅▆▇█") for ln in visible_lines(app))


def test_long_line_end_is_visible_in_the_panel_and_the_viewer_at_80x24(tmp_path):
    from tui_fixtures import simple_session

    async def go():
        app = make_app(simple_session(tmp_path), [_long_line_stage()], welcome=False)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await start_stage(pilot, app)
            await wait_for(pilot, lambda: screen.status == "succeeded", what="success")
            await pilot.pause(0.2)
            assert END in _flat(app)  # the live panel wrapped it
            await pilot.press("l")
            await wait_for(pilot, lambda: isinstance(app.screen, LogViewer), what="log viewer")
            viewer = app.screen
            await wait_for(pilot, lambda: END in _flat(app), what="wrapped line in the viewer")
            shown = "\n".join(visible_lines(app))
            assert "PgUp" in shown and "w no wrap" in shown and viewer.query_one("Vertical").border_subtitle == SCROLL_WRAPPED
            await pilot.press("w")
            await pilot.pause(0.1)
            assert viewer.wrap is False and END not in _flat(app)  # whole lines again, cut at the edge
            assert viewer.query_one("Vertical").border_subtitle == SCROLL_UNWRAPPED and "sideways" in SCROLL_UNWRAPPED
            await pilot.press("w")
            await pilot.pause(0.1)
            assert END in _flat(app)

    asyncio.run(go())


def test_wrap_lines_cuts_only_long_lines_by_cells():
    assert wrap_lines(["short", "a" * 25], 10) == ["short", "a" * 10, "a" * 10, "a" * 5]
    assert wrap_lines(["界" * 8], 10) == ["界" * 5, "界" * 3]  # wide characters count two cells
    assert wrap_lines(["a" * 50], 0) == ["a" * 50]  # not laid out yet: untouched
    assert wrap_lines([], 40) == []
