"""Small words that matter: the footer's "Run next", the palette in pipeline order with one help entry,
and a welcome that does not call the machine a 910B unless it is the demo's simulated one."""

from __future__ import annotations

import asyncio

from textual.command import CommandPalette

from screens.app import make_app
from screens.welcome import WelcomeScreen
from tui_fixtures import quick_stage, screen_text, simple_session, visible_lines, wait_for

# Titles whose alphabetical order differs from the pipeline order.
STAGES = [quick_stage("c", "Container"), quick_stage("a", "CANN upgrade"), quick_stage("b", "Bring up")]


def test_footer_palette_order_and_one_help(tmp_path):
    async def go():
        app = make_app(simple_session(tmp_path), STAGES, welcome=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "n Run next" in visible_lines(app)[-1]
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert "Keys" not in titles and titles.count("Help") == 1
            plans = [t for t in titles if t.startswith("Plan: ")]
            assert plans == ["Plan: Container", "Plan: CANN upgrade", "Plan: Bring up"]
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
            await pilot.pause(0.3)
            from textual.command import CommandList

            options = app.screen.query_one(CommandList)
            listed = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            listed = [" ".join(t.split()) for t in listed]
            order = [next(i for i, t in enumerate(listed) if t.startswith(w)) for w in
                     ("Run: Container", "Run: CANN upgrade", "Run: Bring up")]
            assert order == sorted(order), listed  # the palette as shown keeps the pipeline order
            assert not any(t.startswith("Keys") for t in listed)

    asyncio.run(go())


def test_welcome_names_the_host_for_what_it_is(tmp_path):
    async def go(demo: bool) -> str:
        app = make_app(simple_session(tmp_path / str(demo)), STAGES, welcome=True, demo=demo)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="welcome")
            return " ".join(screen_text(app).split())

    real, demo = asyncio.run(go(False)), asyncio.run(go(True))
    assert "takes an Ascend 910B host" in real and "this Ascend" not in real
    assert "takes this simulated 910B host" in demo
