"""Pilot tests of the readiness gate: the TUI refuses a stage whose earlier stages have not succeeded
(the rule `pi05-wizard run` uses, `wizard.readiness.blocking_dependencies`) and offers to run it
anyway; the demo asks before any stage that uses this machine's real Docker engine and network."""

from __future__ import annotations

import asyncio

from screens.app import make_app
from screens.dialogs.confirm import ConfirmDialog
from screens.home import HomeScreen
from screens.run_gate import demo_note
from screens.stage import StageScreen
from tui_fixtures import dependent_stage, quick_stage, save_record, screen_text, simple_session, wait_for
from wizard.readiness import blocking_dependencies
from wizard.state import StageStatus

SIZE = (120, 40)


def _stages():
    return [quick_stage("a", "First"), dependent_stage("b", "Second", ("a",))]


def test_blocked_stage_is_refused_then_run_anyway_on_yes(tmp_path):
    session = simple_session(tmp_path)
    save_record(session.store, "a", StageStatus.FAILED, exit_code=1)
    stages = _stages()
    assert blocking_dependencies(stages[1], session.store) == ["a"]  # what `run b` refuses by

    async def go():
        app = make_app(session, stages, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.screen.query_one("#stage-list").select_stage("b")
            await pilot.pause()
            assert "Not ready: First must succeed first" in screen_text(app)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            text = screen_text(app)
            assert "Second needs First first, and it failed." in text
            assert "Run Second anyway? First has not succeeded." in text
            await pilot.press("n")  # refused: nothing ran
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            assert session.store.last("b") is None
            await pilot.press("r")  # re-run asks the same
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")  # the operator insists
            await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")
            await wait_for(pilot, lambda: app.screen.status == "succeeded", what="run")
        assert session.store.last("b").status is StageStatus.SUCCEEDED

    asyncio.run(go())


def test_ready_stage_runs_without_asking(tmp_path):
    session = simple_session(tmp_path)
    save_record(session.store, "a", StageStatus.SKIPPED)  # skipped as done counts, as for `run`

    async def go():
        app = make_app(session, _stages(), welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.screen.query_one("#stage-list").select_stage("b")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")

    asyncio.run(go())


def test_demo_asks_before_a_stage_using_the_real_docker_engine(tmp_path):
    from wizard.cli.demo_cmd import DEMO_NOTE

    session = simple_session(tmp_path)
    stages = [quick_stage("container", "Container"), dependent_stage("cann", "CANN upgrade", ("container",))]

    async def go():
        app = make_app(session, stages, welcome=False, demo=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            flat = " ".join(screen_text(app).split())
            assert " ".join(demo_note().split()) in flat and "Run Container on this machine?" in flat
            assert "real Docker engine" in DEMO_NOTE  # the sentence shown is the demo's own
            await pilot.press("escape")
            await pilot.pause()
            assert session.store.last("container") is None
            # A blocked stage in the demo: one dialog says both.
            app.screen.query_one("#stage-list").select_stage("cann")
            await pilot.press("enter")
            await pilot.pause()
            flat = " ".join(screen_text(app).split())
            assert "Run CANN upgrade anyway? Container has not succeeded." in flat
            assert " ".join(demo_note().split()) in flat
            await pilot.press("y")
            await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")

    asyncio.run(go())


def test_demo_welcome_says_what_is_real_and_fits_80x24(tmp_path):
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, _stages(), welcome=True, demo=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert type(app.screen).__name__ == "WelcomeScreen"
            flat = " ".join(screen_text(app).split())
            assert "This is the demo." in flat and " ".join(demo_note().split()) in flat
            assert "Nothing on this machine" not in flat
            assert app.screen.query_one("#welcome").max_scroll_y == 0

    asyncio.run(go())


def test_two_blocking_stages_are_both_named(tmp_path):
    session = simple_session(tmp_path)
    save_record(session.store, "a", StageStatus.CANCELLED)
    stages = [quick_stage("a", "First"), quick_stage("b", "Second"), dependent_stage("c", "Third", ("a", "b"))]

    async def go():
        app = make_app(session, stages, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.screen.query_one("#stage-list").select_stage("c")
            await pilot.press("enter")
            await pilot.pause()
            flat = " ".join(screen_text(app).split())
            assert "Third needs First and Second first: First was cancelled; Second never ran." in flat
            assert "Run Third anyway? First and Second have not succeeded." in flat

    asyncio.run(go())


def test_demo_rerun_in_the_stage_screen_asks_too(tmp_path):
    """`r` inside a stage screen in the demo asks what Enter on home asks; "Not now" runs nothing."""
    session = simple_session(tmp_path)
    stages = [quick_stage("container", "Container")]

    async def go():
        app = make_app(session, stages, welcome=False, demo=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")
            screen = app.screen
            await wait_for(pilot, lambda: screen.status == "succeeded", what="first run")
            first = session.store.last("container").started
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            flat = " ".join(screen_text(app).split())
            assert " ".join(demo_note().split()) in flat and "Run Container on this machine?" in flat
            await pilot.press("n")
            await pilot.pause()
            assert app.screen is screen and screen.status == "succeeded"
            assert session.store.last("container").started == first  # nothing ran
            await pilot.press("r")
            await pilot.pause()
            await pilot.press("y")
            await wait_for(pilot, lambda: session.store.last("container").started != first, what="second run")
            await wait_for(pilot, lambda: screen.status == "succeeded", what="second run end")

    asyncio.run(go())


def test_rerun_outside_the_demo_does_not_ask(tmp_path):
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, [quick_stage("container", "Container")], welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, StageScreen), what="stage screen")
            screen = app.screen
            await wait_for(pilot, lambda: screen.status == "succeeded", what="first run")
            first = session.store.last("container").started
            await pilot.press("r")
            await wait_for(pilot, lambda: session.store.last("container").started != first, what="re-run")
            assert app.screen is screen

    asyncio.run(go())
