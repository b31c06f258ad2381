"""Pilot tests of the live training panel: a `metrics=True` stage printing case 27's lerobot lines."""

from __future__ import annotations

import asyncio

from screens.app import make_app
from screens.widgets.train_panel import TrainingPanel, eta_seconds, figures_text, pick_reference, progress_line
from tui_fixtures import recipe_session, screen_text, start_stage, train_stage, wait_for
from wizard.training.metrics import TrainingMetrics
from wizard.training.snapshot import read_metrics

SIZE = (120, 40)


def test_panel_updates_mid_run_and_home_shows_progress(tmp_path):
    go = tmp_path / "go"
    session = recipe_session(tmp_path)

    async def run():
        app = make_app(session, [train_stage(wait_for_file=go)], welcome=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_stage(pilot, app)
            panel = screen.query_one(TrainingPanel)
            # Mid-run: the timer has drawn the first two records (step 20 of 30000).
            await wait_for(pilot, lambda: "step 20 / 30000" in screen_text(app), what="step 20 on the panel")
            assert screen.status == "running"
            text = screen_text(app)
            assert "loss 0.467 ↓ from 0.468" in text
            assert "of 155.1 on Atlas 800T (910B)" in text
            assert list(panel.query_one("#tp-loss").data) == [0.468, 0.467]
            go.write_text("")
            await wait_for(pilot, lambda: screen.status == "succeeded", what="success")
            text = screen_text(app)
            assert "step 40 / 30000  0.1 %" in text and "loss 0.513 ↑ from 0.468" in text
            # 128 samples / (4.841 + 0.009) s = 26.4 samples/s, 17 % of the reference's 155.1.
            assert "26.4 samples/s, 17 % of 155.1" in text and "batch 128, 16 ranks" in text
            # One sink, parsed once: the runner's recorder shared the screen's TrainingMetrics.
            assert screen.metrics.snapshot().records == 4
            saved = read_metrics(session.locations.stages_dir, "train")
            assert saved["step"] == 40 and saved["records"] == 4
            await pilot.press("escape")
            await pilot.pause()
            assert "Training (last run): step 40 / 30000 (0.1 %), loss 0.513, 26.4 samples/s" in screen_text(app)

    asyncio.run(run())


def test_panel_says_problems_in_plain_words():
    """A non-finite loss and a data-bound run (data_s > updt_s after warm-up) read as sentences."""
    from wizard.events import Line

    metrics = TrainingMetrics()
    lines = ["Effective batch size: 8 x 16 = 128"] + [
        f"INFO 2025-10-14 04:57:11 ot_train.py:299 step:{10 * i} smpl:320 ep:0 epch:0.00 loss:{loss} grdn:3.5 "
        "lr:1.6e-07 updt_s:1.0 data_s:2.0" for i, loss in enumerate(["0.5", "0.4", "nan"], start=1)]
    for text in lines:
        metrics.line(Line(text, "stdout", 0.0, 0, False))
    snap = metrics.snapshot()

    async def run():
        from textual.app import App

        class One(App[None]):
            def compose(self):
                yield TrainingPanel(None)

        app = One()
        async with app.run_test(size=(80, 12)) as pilot:
            panel = app.query_one(TrainingPanel)
            panel.show(snap)
            await pilot.pause()
            problems = panel.query_one("#tp-problems")
            assert problems.display
            text = str(problems.content)
            assert "training has diverged" in text and "data loader is the bottleneck" in text
            assert list(panel.query_one("#tp-loss").data) == [0.5, 0.4]  # the nan is not charted

    asyncio.run(run())


def test_panel_text_before_and_without_figures():
    """No record yet, no total, no batch: the panel says so instead of inventing numbers."""
    snap = TrainingMetrics().snapshot()
    assert "waiting for the first metrics line" in progress_line(snap).plain
    assert eta_seconds(snap) is None
    assert figures_text(snap, None).plain.startswith("loss –   lr –   grad norm –\n– samples/s")
    assert pick_reference([]) is None and pick_reference(None) is None
