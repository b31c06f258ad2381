"""Provides `StageScreen`: one stage running live (steps, timers, bounded output), and its failure view.

The stage runs in a thread worker through `wizard.runner.run_stage`; the screen is one of the
runner's sinks (`UISink`). Lines go into a `LineBuffer` and reach the `StageLog` in batches on a
timer; only the rare step events hop to the UI thread with `call_from_thread`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from screens.widgets.failure import failure_lines
from screens.widgets.stage_log import LineBuffer, StageLog
from screens.widgets.status import STATUS_LOOK, STATUS_STYLE, format_duration, status_value
from screens.widgets.step_list import StepList
from screens.widgets.train_panel import TrainingPanel, pick_reference
from wizard.events import Sink, StepOutcome


def outcome_state(outcome: StepOutcome) -> tuple[str, str]:
    """The step-list state and short note for a finished step."""
    if outcome.skipped:
        return "skipped", "already done"
    if outcome.cancelled:
        return "cancelled", "cancelled"
    if outcome.ok:
        return "ok", ""
    if outcome.timed_out:
        return "failed", "timed out"
    if outcome.error:
        return "failed", outcome.error[:60]
    return "failed", f"exit code {outcome.exit_code}"


class UISink(Sink):
    """The runner's sink for the UI: lines into a bounded buffer, step events onto the UI thread."""

    def __init__(self, screen: "StageScreen", buffer: LineBuffer) -> None:
        self.screen = screen
        self.buffer = buffer

    def _ui(self, callback: Any, *args: Any) -> None:
        self.screen.app.call_from_thread(callback, *args)

    def stage_started(self, stage_id: str, steps: list[Any]) -> None:
        self._ui(self.screen.steps_known, [s.title for s in steps])

    def step_started(self, index: int, step: Any) -> None:
        self._ui(self.screen.step_list.mark, index, "running")

    def line(self, line: Any) -> None:
        self.buffer.push(line)

    def line_batch(self, texts: list[str], stream: str, time: float, step: int, progress: bool) -> None:
        self.buffer.push_batch(texts, stream, time, step, progress)

    def step_finished(self, index: int, step: Any, outcome: StepOutcome) -> None:
        self._ui(self.screen.step_list.mark, index, *outcome_state(outcome))


def _catalogue() -> Any | None:
    """The remedy catalogue, or None when it cannot be loaded (`wizard.remedies.catalogue_or_none`)."""
    from wizard.remedies import catalogue_or_none

    return catalogue_or_none()


class StageScreen(Screen[None]):
    """Runs one stage on mount; `r` re-runs, `c` cancels (asks first), `f` applies a matched fix.

    Args:
        stage: the `Stage` to run.
        force: run even when the stage's `done()` probe says its work is there.
    """

    BINDINGS = [
        Binding("c", "cancel", "Cancel"),
        Binding("r", "rerun", "Re-run"),
        Binding("f", "fix", "Fix"),
        Binding("l", "full_log", "Full log"),
        Binding("p", "plan", "Plan", show=False),  # in the palette; the Footer keeps to 80 columns
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("escape,q", "back", "Back"),
    ]

    #: "idle", "running", or the final `StageStatus` value of the last run.
    status: reactive[str] = reactive("idle")

    def __init__(self, stage: Any, force: bool = False) -> None:
        super().__init__()
        self.stage = stage
        self.force = force
        self.buffer = LineBuffer()
        self.cancel_event = threading.Event()
        self.record: Any = None
        self.matches: list[Any] = []
        self.catalogue = _catalogue()
        self._started_at: float | None = None
        self._finished_at: float | None = None
        self._error: str | None = None
        #: The live training figures of the current run (stages declared with `metrics=True`), else None.
        self.metrics: Any = None

    @property
    def has_metrics(self) -> bool:
        """True for stages that declare `metrics=True` (the train stage): the screen shows `TrainingPanel`."""
        return bool(getattr(self.stage, "metrics", False))

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="stage-head")
        yield StepList(self.app.clock, id="steps")
        with VerticalScroll(id="failure") as failure:
            failure.border_title = "What went wrong"
            yield Static(id="failure-body")
        if self.has_metrics:
            train = getattr(getattr(self.app.session, "recipe", None), "train", None)
            yield TrainingPanel(pick_reference(getattr(train, "reference", None)), id="train-panel")
        log = StageLog(self.buffer, id="stage-log")
        log.border_title = "Output (the full log is in the log file: press l)"
        yield log
        yield Footer()

    @property
    def step_list(self) -> StepList:
        return self.query_one(StepList)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._paint_head)
        if self.has_metrics:
            self.set_interval(0.5, self._paint_metrics)
        self.start(force=self.force)

    def on_unmount(self) -> None:
        # Leaving the app mid-run must not leave a step running.
        self.cancel_event.set()

    # -- running --------------------------------------------------------------------------------

    def start(self, force: bool) -> None:
        """Run (or re-run) the stage in a thread worker."""
        self.cancel_event = threading.Event()
        self.record, self.matches, self._error = None, [], None
        self.buffer.clear()
        self.query_one(StageLog).clear()
        if self.has_metrics:
            from wizard.training.metrics import TrainingMetrics

            self.metrics = TrainingMetrics()
            self._paint_metrics()
        self._started_at, self._finished_at = self.app.clock(), None
        self.remove_class("-failed")
        self.status = "running"
        self._run_worker(force)

    def steps_known(self, titles: list[str]) -> None:
        """The runner announced the step list (UI thread)."""
        self.step_list.set_steps(titles)
        self._paint_head()

    @work(thread=True, exclusive=True, group="stage-run")
    def _run_worker(self, force: bool) -> None:
        from wizard.runner import run_stage
        from wizard.state import LockHeld, WizardLock

        app = self.app
        sinks: list[Any] = [UISink(self, self.buffer)]
        if self.metrics is not None:
            # The runner's progress recorder reuses this very sink: each line is parsed once.
            sinks.append(self.metrics)
        matcher = None
        if self.catalogue is not None:
            from wizard.remedies import RemedyMatcher

            matcher = RemedyMatcher(self.catalogue)
            sinks.append(matcher)
        try:
            ctx = app.session.context()
            with WizardLock(app.session.locations):
                record = run_stage(self.stage, ctx, sinks, self.cancel_event, app.session.store, force=force)
        except LockHeld as exc:
            app.call_from_thread(self._run_broke, str(exc))
            return
        except Exception as exc:  # the one error funnel: the screen shows it, no traceback
            app.call_from_thread(self._run_broke, f"{type(exc).__name__}: {exc}")
            return
        matches = list(matcher.matches) if matcher is not None else []
        app.call_from_thread(self._run_finished, record, matches)

    def _run_broke(self, reason: str) -> None:
        self._finished_at = self.app.clock()
        self._error = reason
        self.status = "failed"

    def _run_finished(self, record: Any, matches: list[Any]) -> None:
        self.query_one(StageLog).flush()
        self._paint_metrics()
        self._finished_at = self.app.clock()
        self.record, self.matches = record, matches
        self.status = status_value(record.status)

    def watch_status(self, status: str) -> None:
        self.set_class(status == "failed", "-failed")
        if status != "running" and self.is_mounted:
            # The failure box shrinks the log: keep its newest lines in view once the layout settles.
            log = self.query_one(StageLog)
            self.call_after_refresh(log.scroll_end, animate=False)
        self._paint_head()
        self._paint_failure()
        self.refresh_bindings()

    # -- drawing --------------------------------------------------------------------------------

    def _paint_head(self) -> None:
        if not self.is_mounted:
            return
        stages = [s.id for s in self.app.stages]
        number = stages.index(self.stage.id) + 1 if self.stage.id in stages else 0
        where = status_value(self.stage.where)
        head = Text.assemble((self.stage.title, "bold"),
                             (f"   stage {number} of {len(stages)}, runs on the {where}", "dim"))
        line = Text()
        if self.status == "running":
            cur = self.step_list.current
            elapsed = self.app.clock() - (self._started_at or self.app.clock())
            where_now = f"step {cur + 1} of {len(self.step_list.rows)}: {self.step_list.rows[cur].title}" \
                if cur is not None else "starting"
            cancelling = "  cancelling…" if self.cancel_event.is_set() else ""
            line.append(f"▶ running {where_now}  ({format_duration(elapsed)}){cancelling}", style="bold cyan")
        elif self.status != "idle":
            mark, word = STATUS_LOOK.get(self.status, ("?", self.status))
            line.append(f"{mark} {word}", style=STATUS_STYLE.get(self.status, ""))
            # Timed with the app's clock, like the step timers, so a frozen clock freezes them all.
            took = None if self._started_at is None or self._finished_at is None \
                else self._finished_at - self._started_at
            if took is not None:
                line.append(f" in {format_duration(took)}", style="dim")
            if self.record is not None and getattr(self.record, "reason", None) and self.status != "failed":
                line.append(f": {self.record.reason}")
        self.query_one("#stage-head", Static).update(Group(head, line))

    def _paint_metrics(self) -> None:
        """Redraw the training panel from the sink's snapshot (a timer, twice a second; never per line)."""
        if self.metrics is not None and self.is_mounted:
            self.query_one(TrainingPanel).show(self.metrics.snapshot())

    def fixable(self) -> list[tuple[Any, Any]]:
        """(match, remedy) pairs of this run that the catalogue can fix automatically."""
        if self.catalogue is None:
            return []
        out = []
        for m in self.matches:
            remedy = self.catalogue.get(m.id)
            if remedy is not None and remedy.fix and m.severity != "info":
                out.append((m, remedy))
        return out

    def _paint_failure(self) -> None:
        """What to do first: the failed step, then the matched known problem with its key (`f`), then why.

        The output itself is in the log below (and the log file), so only its one telling line is
        repeated here: the line a remedy matched, else the last line the stage printed.
        """
        if not self.is_mounted or self.status != "failed":
            return
        self.query_one("#failure-body", Static).update(Group(*failure_lines(
            self.record, self._error, self.matches, self.catalogue, bool(self.fixable()), self.buffer.tail,
            command=self.app.command)))
        box = self.query_one("#failure")
        box.border_subtitle = "f fix · r re-run · l log" if self.fixable() else "r re-run · l log"
        box.scroll_home(animate=False)
        box.focus()  # the arrow keys and PgUp/PgDn scroll what to do first

    # -- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        running = self.status == "running"
        if action == "cancel":
            return running
        if action == "rerun":
            return not running
        if action == "fix":
            return (not running) and bool(self.fixable())
        if action == "full_log":
            return True if getattr(self.record, "log_path", None) else None
        return True

    def action_cancel(self) -> None:
        from screens.dialogs.confirm import ConfirmDialog

        if self.status != "running":
            return

        def answered(yes: bool | None) -> None:
            if yes and self.status == "running":
                self.cancel_event.set()
                self._paint_head()

        self.app.push_screen(ConfirmDialog(
            f"Cancel “{self.stage.title}”?\n\nThe running step is stopped (its whole process group). "
            "You can re-run the stage later.", yes="Cancel the stage", no="Keep running"), answered)

    def action_rerun(self) -> None:
        """Run the stage again; in the demo, first ask what Enter on home asks (it uses real Docker)."""
        from screens.run_gate import demo_question

        if self.status == "running":
            return
        asked = demo_question(self.app, self.stage)
        if asked is None:
            self.start(force=True)
            return
        from screens.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes and self.status != "running":
                self.start(force=True)

        self.app.push_screen(ConfirmDialog(asked[0], yes=asked[2], no="Not now"), answered)

    def action_back(self) -> None:
        if self.status == "running":
            self.notify("The stage is still running: press c to cancel it, or wait for it to end.",
                        severity="warning")
            return
        self.dismiss(None)

    def action_full_log(self) -> None:
        from screens.dialogs.log_viewer import LogViewer

        path = getattr(self.record, "log_path", None)
        self.app.push_screen(LogViewer(f"Log: {self.stage.title}", Path(path) if path else None))

    def action_plan(self) -> None:
        from screens.dialogs.plan import PlanDialog

        try:
            steps, error = list(self.stage.steps(self.app.session.context())), ""
        except Exception as exc:  # a plan that cannot be built says why
            steps, error = None, f"{type(exc).__name__}: {exc}"
        self.app.push_screen(PlanDialog(self.stage.title, status_value(self.stage.where), steps, error))

    def action_help(self) -> None:
        from screens.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog())

    def action_fix(self) -> None:
        from screens.dialogs.remedy import RemedyDialog

        pairs = self.fixable()
        if not pairs:
            return
        match, remedy = pairs[0]

        def answered(apply: bool | None) -> None:
            if apply:
                self._fix_worker(remedy.id)

        self.app.push_screen(RemedyDialog(remedy, match.line), answered)

    @work(thread=True, exclusive=True, group="stage-fix")
    def _fix_worker(self, remedy_id: str) -> None:
        from wizard.remedies.fixes import apply_fix, context_from_session, fix_host

        app = self.app
        session = app.session
        try:
            log_text = ""
            path = getattr(self.record, "log_path", None)
            if path:
                from screens.dialogs.log_viewer import read_tail

                log_text = "\n".join(read_tail(Path(path))[0])
            ctx = context_from_session(session, host=fix_host(session, remedy_id), confirm=self._ask)
            ctx.log_text = log_text
            result = apply_fix(remedy_id, ctx, self.catalogue)
        except Exception as exc:  # FixError and friends: say it, keep the screen
            app.call_from_thread(app.notify, f"The fix could not be applied: {exc}", severity="error", timeout=10)
            return
        then = " Press r to re-run this stage." if result.ok else ""
        app.call_from_thread(app.notify, f"{result.message}{then}",
                             severity="information" if result.ok else "warning", timeout=10)

    def _ask(self, question: str) -> bool:
        """A fix's confirm callback: asks in a dialog from the worker thread and waits for the answer."""
        from screens.dialogs.confirm import ConfirmDialog

        done, answer = threading.Event(), [False]

        def answered(yes: bool | None) -> None:
            answer[0] = bool(yes)
            done.set()

        self.app.call_from_thread(self.app.push_screen, ConfirmDialog(question, yes="Go ahead"), answered)
        done.wait()
        return answer[0]
