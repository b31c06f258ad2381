"""Pilot tests of the home screen: state-driven list, resume selection, keys, palette, welcome, plan, log."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from screens.app import make_app
from screens.home import HomeScreen, next_pending, resume_target
from tui_fixtures import (failing_stage, quick_stage, save_record, screen_text, simple_session, slow_stage,
                          wait_for)
from wizard.state import StageRecord, StageStatus

SIZE = (120, 40)
STAGES = [quick_stage("a", "First"), quick_stage("b", "Second"), failing_stage("c"), slow_stage("d")]


def test_resume_after_interrupted_state_file_selects_that_stage(tmp_path):
    session = simple_session(tmp_path)
    save_record(session.store, "a", StageStatus.SUCCEEDED)
    # A record left `running` by a wizard that died (pid 0 is never alive) reads back as interrupted.
    save_record(session.store, "b", StageStatus.RUNNING, pid=999_999_999)
    assert session.store.last("b").status is StageStatus.INTERRUPTED

    async def go():
        app = make_app(session, STAGES, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#stage-list")
            assert table.selected_stage_id == "b"
            assert "interrupted" in str(table.get_row("b")[2])
            assert "succeeded" in str(table.get_row("a")[2])
            text = screen_text(app)
            assert "! interrupted" in text and "died mid-run" in text
            # Enter re-runs it right there.
            await pilot.press("enter")
            await wait_for(pilot, lambda: getattr(app.screen, "status", "") == "succeeded", what="re-run")
        assert session.store.last("b").status is StageStatus.SUCCEEDED

    asyncio.run(go())


def test_failed_stage_selected_and_n_runs_next_pending(tmp_path):
    session = simple_session(tmp_path)
    save_record(session.store, "a", StageStatus.SUCCEEDED)
    save_record(session.store, "c", StageStatus.FAILED, exit_code=3)
    records = session.store.all()
    assert resume_target(STAGES, records).id == "c"
    assert next_pending(STAGES, records).id == "b"

    async def go():
        app = make_app(session, STAGES, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.screen.query_one("#stage-list").selected_stage_id == "c"
            assert "Next: Second" in screen_text(app)
            await pilot.press("n")
            await wait_for(pilot, lambda: getattr(app.screen, "stage", None) is not None, what="stage screen")
            assert app.screen.stage.id == "b"
            await wait_for(pilot, lambda: app.screen.status == "succeeded", what="success")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            assert "succeeded" in str(app.screen.query_one("#stage-list").get_row("b")[2])

    asyncio.run(go())


def test_plan_help_and_last_log_dialogs(tmp_path):
    session = simple_session(tmp_path)
    log = tmp_path / "state" / "logs" / "a.log"
    log.parent.mkdir(parents=True)
    log.write_text("first line\nthe last line of the run\n")
    save_record(session.store, "a", StageStatus.SUCCEEDED, log_path=str(log))

    async def go():
        app = make_app(session, STAGES, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            home = app.screen
            home.query_one("#stage-list").select_stage("a")
            await pilot.pause()
            assert home.check_action("last_log", ()) is True
            await pilot.press("p")
            await pilot.pause()
            assert type(app.screen).__name__ == "PlanDialog"
            plan_text = screen_text(app)
            assert "1. Print lines" in plan_text and "-c" in plan_text and "Nothing is run" in plan_text
            await pilot.press("escape")
            await pilot.press("l")
            await pilot.pause()
            assert type(app.screen).__name__ == "LogViewer"
            assert list(app.screen.query_one("#log-view").lines)[-1] == "the last line of the run"
            await pilot.press("escape")
            await pilot.press("question_mark")
            await pilot.pause()
            assert type(app.screen).__name__ == "HelpDialog"
            await pilot.press("escape")
            await pilot.pause()
            # A stage that never ran has no log: the key is shown disabled, not hidden.
            home.query_one("#stage-list").select_stage("d")
            await pilot.pause()
            assert home.check_action("last_log", ()) is None

    asyncio.run(go())


def test_command_palette_offers_every_home_action(tmp_path):
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, STAGES, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            titles = [c.title for c in app.get_system_commands(app.screen)]
            for wanted in ("Run", "Next pending", "Re-run", "Plan", "Help", "Quit", "Run: First", "Plan: Second"):
                assert wanted in titles, (wanted, titles)
            assert "Last log" not in titles  # nothing ran yet: not offered

    asyncio.run(go())


def test_first_run_welcome_then_never_again(tmp_path):
    session = simple_session(tmp_path)

    async def go() -> bool:
        app = make_app(session, STAGES)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            shown = type(app.screen).__name__ == "WelcomeScreen"
            if shown:
                text = screen_text(app)
                assert str(session.locations.state_dir) in text and "p previews every command" in text
                assert "This is the demo" not in text
                assert app.screen.query_one("#welcome").max_scroll_y == 0, "the welcome fits 80x24 unscrolled"
                await pilot.press("enter")
                await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            return shown

    assert asyncio.run(go()) is True
    assert session.locations.welcome_seen.exists()
    assert asyncio.run(go()) is False


def test_demo_header_and_no_color(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    session = simple_session(tmp_path)

    async def go():
        app = make_app(session, STAGES, welcome=False, demo=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "DEMO" in app.title
            assert app.no_color
            assert app.screen.has_class("-narrow")

    asyncio.run(go())


def test_unreadable_recipe_shows_reason_instead_of_steps(tmp_path):
    session = simple_session(tmp_path)

    def broken_context():
        raise ValueError("recipe.toml: field 'cann.version' is not a version")

    session.context = broken_context

    async def go():
        app = make_app(session, STAGES, welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "The steps cannot be listed: ValueError: recipe.toml" in screen_text(app)

    asyncio.run(go())


def test_headless_core_never_imports_textual():
    """Importing every module of `checks` and `wizard` must leave textual out of sys.modules."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import checks, wizard\n"
        "bad = []\n"
        "for pkg in (checks, wizard):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if m.name.endswith('__main__'): continue\n"
        "        importlib.import_module(m.name)\n"
        "        if 'textual' in sys.modules: bad.append(m.name); break\n"
        "print('MODULES', len(sys.modules)); print('BAD', bad)\n"
        "sys.exit(1 if bad or 'textual' in sys.modules else 0)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "BAD []" in proc.stdout
