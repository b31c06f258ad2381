"""SVG snapshots of the wizard's main views (pytest-textual-snapshot). Update with `--snapshot-update`.

Nothing in them moves: the app's clock is frozen, records carry fixed times, the runner's
"done in X s" text is pinned, commands are plain `sh` argv lists and no temporary path is shown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.app import make_app
from tui_fixtures import (frozen_clock, recipe_session, save_record, simple_session, sim_session, train_stage,
                          wait_for)
from wizard.stages.base import Stage, Step, Where
from wizard.state import StageStatus

SIZE = (120, 40)


def _sh(title: str, script: str) -> Step:
    return Step(title, argv=["sh", "-c", script])


def _stages() -> list[Stage]:
    return [
        Stage(id="preflight", title="Host preflight", description="Checks the host; changes nothing.",
              where=Where.HOST, steps=lambda ctx: [_sh("Check the host", "echo checking")]),
        Stage(id="container", title="Container", description="Creates the container the rest runs in.",
              where=Where.HOST, depends_on=("preflight",),
              steps=lambda ctx: [_sh("Pull the image", "echo pulled"), _sh("Start the container", "echo up")]),
        Stage(id="broken", title="Install the toolkit", description="Runs the toolkit installer; fails here.",
              where=Where.HOST, depends_on=("container",),
              steps=lambda ctx: [
                  _sh("Download the runfile", "echo 'saved Ascend-cann-toolkit.run'"),
                  _sh("Run the installer", "echo 'installing...'; echo 'ERROR: install failed, see the log' >&2; "
                                           "exit 3"),
              ]),
        Stage(id="later", title="Train", description="Starts training.", where=Where.HOST,
              depends_on=("broken",), steps=lambda ctx: [_sh("Train", "echo step=20 loss=2.0")]),
    ]


def test_home_snapshot(tmp_path, snap_compare):
    """You should see the home screen: a pipeline of 4 stages on the left, only as wide as its table,
    where "Host preflight" and "Container" show ✓ succeeded (1 h ago, took 1m35s), "Install the
    toolkit" shows ✗ failed and is selected (the cursor row), and "Train" shows · pending; below the
    list, "Next: Install the toolkit (press n)". On the right, taking the rest of the width, the
    details of the failed stage: first "Install the toolkit   ✗ failed  exit code 3" and "Stopped at
    step 2: Run the installer", then its description, "Needs: Container ✓", and its two steps, each
    numbered title with its `sh -c` command below it. The footer shows Run, Run next, Log, Plan, Help,
    Quit (Re-run and Details are in the palette and the help).
    """
    session = simple_session(tmp_path)
    save_record(session.store, "preflight", StageStatus.SUCCEEDED, exit_code=0)
    save_record(session.store, "container", StageStatus.SUCCEEDED, exit_code=0)
    save_record(session.store, "broken", StageStatus.FAILED, exit_code=3,
                failed_step={"index": 1, "title": "Run the installer"})
    app = make_app(session, _stages(), clock=frozen_clock, welcome=False)
    assert snap_compare(app, terminal_size=SIZE)


def test_preflight_broken_host_snapshot(tmp_path, snap_compare):
    """You should see the preflight screen for a simulated host whose NPU driver is not mounted:
    a summary line "14 ok  1 failed ..." with "✗ 1 check must be fixed first. Container cannot
    start until it passes."; the list of 15 checks with ✓ marks, a – for shared memory, and one ✗
    on "NPU driver", which is selected; the details pane on the right says why it failed and that it
    blocks the next stage (Container). The footer shows Re-run checks, Details, Help, Back.
    """
    from wizard.simhost import SIM_CHECK_IDS
    from wizard.stages.registry import all_stages

    session = sim_session(tmp_path, "driver-not-mounted")
    app = make_app(session, all_stages(), clock=frozen_clock, welcome=False, check_ids=SIM_CHECK_IDS,
                   offline=True)

    async def run_before(pilot) -> None:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "results", None) is not None
                       and not app.screen.running and len(app.screen.results) == len(SIM_CHECK_IDS),
                       what="all checks", timeout=30)
        await pilot.pause()  # the failed row (NPU driver) is selected without a key

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_failed_stage_snapshot(tmp_path, snap_compare, monkeypatch):
    """You should see the run screen of "Install the toolkit" after it failed: the header line
    "✗ failed in 0.0s"; the step list with "✓ 1. Download the runfile" and "✗ 2. Run the installer
    exit code 3"; a red-bordered "What went wrong" box (focused, "r re-run · l log" on its bottom
    border) saying "✗ Step 2 failed: Run the installer (exit code 3)", what to do (read the output,
    l for the whole log, fix, press r) and one dim line "Last output: ! ERROR: install failed, see
    the log"; below it, the live output log. The footer offers Re-run, Full log, Help and Back (no
    Cancel, no Fix: nothing matched). Its dependencies succeeded, so no "Run anyway?" dialog.
    """
    import wizard.runner

    monkeypatch.setattr(wizard.runner, "_fmt_s", lambda seconds: "0.0 s")
    session = simple_session(tmp_path)
    save_record(session.store, "preflight", StageStatus.SUCCEEDED, exit_code=0)
    save_record(session.store, "container", StageStatus.SUCCEEDED, exit_code=0)
    app = make_app(session, _stages(), clock=frozen_clock, welcome=False)

    async def run_before(pilot) -> None:
        app.screen.query_one("#stage-list").select_stage("broken")
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "status", "") == "failed", what="failure")
        await pilot.pause(0.3)  # one more log flush

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_training_panel_snapshot(tmp_path, snap_compare, monkeypatch):
    """You should see the run screen of "Training" after it succeeded, with a "Training" panel between
    the step list and the output: a progress bar barely started and "step 40 / 30000  0.1 %  ETA
    40h21m"; "loss 0.513 ↑ from 0.468   lr 9.1e-07   grad norm 3.81"; "26.4 samples/s, 17 % of
    155.1 on Atlas 800T (910B)   batch 128, 16 ranks"; on the right a small loss sparkline of the
    four records (low for the first two, high for the last two), and "loss over the last 4 records" on
    the panel's bottom border. No problems line (the first record's slow data wait is warm-up). The
    output shows the prelude lines and case 27's four lerobot records, long lines wrapped (each record
    ends in "data_s:..." on the next row; the `$ sh -c` line wraps over several rows). The footer: Re-run, Full log,
    Help, Back.
    """
    import wizard.runner

    monkeypatch.setattr(wizard.runner, "_fmt_s", lambda seconds: "0.0 s")
    session = recipe_session(tmp_path)
    app = make_app(session, [train_stage()], clock=frozen_clock, welcome=False)

    async def run_before(pilot) -> None:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "status", "") == "succeeded", what="success")
        await pilot.pause(0.3)  # one more log flush

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
