"""Pilot tests of the preflight screen on simulated hosts: marks appear as results arrive, details show the fix."""

from __future__ import annotations

import asyncio

import pytest

from screens.app import make_app
from screens.preflight import PreflightScreen
from tui_fixtures import built_sim_session, screen_text, sim_session, wait_for
from wizard.simhost import EXPECTED_PROBLEMS, SIM_CHECK_IDS

SIZE = (120, 40)


def _app(session):
    from wizard.stages.registry import all_stages

    return make_app(session, all_stages(), welcome=False, check_ids=SIM_CHECK_IDS, offline=True)


async def _open_preflight(app, pilot) -> PreflightScreen:
    await pilot.pause()
    assert app.screen.query_one("#stage-list").selected_stage_id == "preflight"
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, PreflightScreen), what="preflight screen")
    screen = app.screen
    await wait_for(pilot, lambda: not screen.running and len(screen.results) == len(SIM_CHECK_IDS),
                   what="all check results", timeout=30)
    return screen


@pytest.fixture
def tiny_shm_session(tmp_path):
    """A session on the `tiny-shm` sim host (a 64 MiB tmpfs at dev/shm), unmounted after the test."""
    from wizard.simhost import SimHostError, teardown_sim_host

    try:
        session = sim_session(tmp_path, "tiny-shm")
    except SimHostError as exc:  # nothing left mounted: build_sim_host undoes its mounts when it fails
        pytest.skip(f"cannot mount the simulated 64 MiB /dev/shm here: {exc}")
    yield session
    teardown_sim_host(tmp_path / "host")


def test_preflight_healthy_host_all_marks():
    asyncio.run(_healthy())


async def _healthy(tmp_path=None):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp, built_sim_session(Path(tmp)) as session:
        app = _app(session)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_preflight(app, pilot)
            marks = {row.check_id: row.mark for row in screen.rows}
            assert set(marks) == set(SIM_CHECK_IDS)
            assert not any(m in "✗?" for m in marks.values()), marks
            assert marks["devices"] == "✓" and marks["npu-smi"] == "✓"
            assert "ready for the next stage" in screen_text(app)
            assert session.store.last("preflight").status.value == "succeeded"
            await pilot.press("escape")
            await pilot.pause()
            assert "succeeded" in str(app.screen.query_one("#stage-list").get_row("preflight")[2])


def test_preflight_broken_host_marks_and_remedy():
    asyncio.run(_broken())


async def _broken():
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp, built_sim_session(Path(tmp), "driver-not-mounted") as session:
        app = _app(session)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open_preflight(app, pilot)
            marks = {row.check_id: row.mark for row in screen.rows}
            expected = EXPECTED_PROBLEMS["driver-not-mounted"]
            assert marks["driver"] == "✗"
            assert [cid for cid, m in marks.items() if m == "✗"] == list(expected)
            assert "must be fixed first" in screen_text(app)
            # The first failed row is selected when the results are in: the details show the reason,
            # that it blocks, and the remedy, without a key pressed.
            await pilot.pause()
            assert screen._selected_id() == "driver" == next(r.check_id for r in screen.rows if r.mark == "✗")
            text = screen_text(app)
            assert "This blocks the next stage: Container" in text
            result = screen.results["driver"]
            flat = " ".join(text.split())
            assert " ".join(result.messages[0].text.split())[:60] in flat
            if result.remedies:  # on a host view the check may name no catalogued remedy, only its message
                from wizard.remedies import load_catalogue

                assert "Fix:" in text
                assert " ".join(load_catalogue()[result.remedies[0]].instructions.split())[:60] in flat
            assert session.store.last("preflight").status.value == "failed"
            # r re-runs every check: rows go back to spinners, then fill in again.
            await pilot.press("r")
            await wait_for(pilot, lambda: screen.run_count == 2, what="second run")
            await wait_for(pilot, lambda: not screen.running, what="re-run", timeout=30)
            assert screen.results["driver"].status.mark == "✗"


def test_tiny_shm_container_view_marks_shm_as_the_cli_check_does(tiny_shm_session, tmp_path, capsys):
    """The `tiny-shm` variant is a container view (`/.dockerenv`): the TUI, like `pi05-wizard check`, fails `shm`."""
    import json

    from wizard.cli import main

    session = tiny_shm_session
    assert main(["check", "--json", "--offline", "--only", "shm", "--root", session.root,
                 "--state-dir", str(tmp_path / "cli-state")]) == 1
    cli = {r["id"]: r["status"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert cli == {"shm": "fail"}

    async def go():
        app = _app(session)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _open_preflight(app, pilot)
            marks = {row.check_id: row.mark for row in screen.rows}
            assert screen.results["shm"].status.value == cli["shm"] and marks["shm"] == "✗"
            await pilot.pause()
            assert screen._selected_id() == "shm"  # the first failed row, selected without a key
            flat = " ".join(screen_text(app).split())
            assert "This blocks the next stage: Container" in flat
            assert "Found" in flat and "{'" not in flat  # details as rows, never a Python dict

    asyncio.run(go())


def test_selection_goes_to_the_first_failure_then_the_first_warning(tiny_shm_session):
    """When the results are in, the first failed row is selected (even below a warning), else the first
    warning; a healthy host keeps the first row, and a row the operator picked survives `r`.
    On `tiny-shm`, shm fails and cann-toolkit warns (EXPECTED_PROBLEMS)."""
    from wizard.stages.registry import all_stages

    session = tiny_shm_session

    async def selected(check_ids, keys=(), injected=None):
        app = make_app(session, all_stages(), welcome=False, check_ids=check_ids, offline=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.screen.query_one("#stage-list").select_stage("preflight")  # home moves on after a pass
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, PreflightScreen), what="preflight screen")
            screen = app.screen
            await wait_for(pilot, lambda: not screen.running and len(screen.results) == len(check_ids),
                           what="results", timeout=30)
            await pilot.pause()
            first = screen._selected_id()
            if injected is not None:  # results of a made-up host: a warning above a failure
                from checks.result import CheckResult, Status

                screen.results = {}
                screen.query_one("#check-list").index = 0
                screen.all_done([CheckResult(id=cid, title=cid, status=Status(v), summary=v)
                                 for cid, v in injected.items()])
                await pilot.pause()
                return first, screen._selected_id(), {r.check_id: r.result.status.value for r in screen.rows}
            if keys:
                await pilot.press(*keys)
                await wait_for(pilot, lambda: screen.run_count == 2 and not screen.running, what="re-run",
                               timeout=30)
                await pilot.pause()
            return first, screen._selected_id(), {r.check_id: r.result.status.value for r in screen.rows}

    first, _, statuses = asyncio.run(selected(["arch", "cann-toolkit", "shm"]))
    assert statuses == {"arch": "ok", "cann-toolkit": "warn", "shm": "fail"} and first == "shm"
    first, _, statuses = asyncio.run(selected(["arch", "cann-toolkit"]))
    assert statuses["cann-toolkit"] == "warn" and first == "cann-toolkit"
    _, after, statuses = asyncio.run(selected(["arch", "devices", "shm"],
                                              injected={"arch": "warn", "devices": "ok", "shm": "fail"}))
    assert list(statuses.values()) == ["warn", "ok", "fail"] and after == "shm"  # a failure beats a warning
    first, after, statuses = asyncio.run(selected(["arch", "devices", "shm", "cann-toolkit"], keys=("up", "r")))
    assert first == "shm" and after == "devices"  # moved up by hand, kept across the re-run
    first, _, statuses = asyncio.run(selected(["arch", "devices"]))
    assert set(statuses.values()) == {"ok"} and first == "arch"
