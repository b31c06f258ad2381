"""Provides `HomeScreen`: the stage pipeline with each stage's status, and the selected stage's details."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from screens.run_gate import blocking_titles
from screens.widgets.stage_list import StageList
from screens.widgets.status import STATUS_LOOK, STATUS_STYLE, status_value

#: Statuses that mean "this stage still needs doing" for `n`.
_DONE = {"succeeded", "skipped"}
#: Statuses a restart should land on, so the operator can re-run them at once.
_RESUME = {"interrupted", "failed", "running", "cancelled"}


def steps_table(steps: list[Any]) -> Table:
    """Numbered steps, each title with its command line below it; long commands wrap under the title."""
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", no_wrap=True)
    table.add_column(overflow="fold")
    for i, step in enumerate(steps, start=1):
        table.add_row(f"{i}.", Text.assemble(step.title, "\n", (step.command_text(), "dim")))
    return table


def next_pending(stages: list[Any], records: dict[str, Any]) -> Any | None:
    """The first stage, in pipeline order, whose last run did not succeed (None when all did)."""
    for stage in stages:
        rec = records.get(stage.id)
        if status_value(getattr(rec, "status", None)) not in _DONE:
            return stage
    return None


def resume_target(stages: list[Any], records: dict[str, Any]) -> Any | None:
    """The stage to select on start: the first interrupted/failed/cancelled one, else the next pending one."""
    for stage in stages:
        if status_value(getattr(records.get(stage.id), "status", None)) in _RESUME:
            return stage
    return next_pending(stages, records)


class HomeScreen(Screen[None]):
    """The pipeline (preflight ... image) and the selected stage's details.

    Side by side from 100 columns (the list keeps its natural width, the details take the rest);
    stacked below that, with the details' most important lines (verdict, progress) first. `d`
    shows the details full screen (Esc or `d` again returns).
    """

    BINDINGS = [
        Binding("enter", "open", "Run", priority=True),
        Binding("n", "next", "Run next"),
        Binding("r", "rerun", "Re-run", show=False),  # secondary keys stay in the palette and `?` help
        Binding("l", "last_log", "Log"),
        Binding("p", "plan", "Plan"),
        Binding("d", "details", "Details", show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "app.quit", "Quit"),  # a Screen has no quit action: the app's
    ]
    #: Long names for the command palette (the Footer shows the short ones above).
    PALETTE_NAMES = {"next": "Next pending", "last_log": "Last log", "details": "Details full screen"}

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="home-body"):
            with Vertical(id="pipeline") as pipeline:
                pipeline.border_title = "Pipeline"
                yield StageList(self.app.clock, id="stage-list")
                yield Static(id="next-hint")
            with VerticalScroll(id="details") as details:
                details.border_title = "Details"
                yield Static(id="details-body")
        yield Footer()

    @property
    def stage_list(self) -> StageList:
        return self.query_one(StageList)

    def on_mount(self) -> None:
        self.reload()
        target = resume_target(self.app.stages, self._records)
        if target is not None:
            self.stage_list.select_stage(target.id)
        self.stage_list.focus()
        self.show_details()

    def on_screen_resume(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Re-read the state store and redraw the list, hint and details."""
        self._records = self.app.records()
        self.stage_list.show(self.app.stages, self._records)
        nxt = next_pending(self.app.stages, self._records)
        hint = self.query_one("#next-hint", Static)
        if nxt is None:
            hint.update(Text("Every stage has succeeded.", style="green"))
        else:
            hint.update(Text.from_markup(f"Next: [b]{nxt.title}[/b]  (press [b]n[/b])"))
        self._place_hint()
        self.show_details()
        self.refresh_bindings()

    def on_resize(self) -> None:
        self._place_hint()

    def _place_hint(self) -> None:
        """Narrow: the "Next: ..." hint moves onto the list's bottom border, saving a line for the details."""
        hint = self.query_one("#next-hint", Static)
        narrow = self.app.size.width < 100
        self.query_one("#pipeline").border_subtitle = hint.content if narrow else None

    # -- details --------------------------------------------------------------------------------

    @property
    def selected(self) -> Any | None:
        """The stage under the cursor."""
        stage_id = self.stage_list.selected_stage_id
        return self.app.stage(stage_id) if stage_id else None

    def on_data_table_row_highlighted(self, _: DataTable.RowHighlighted) -> None:
        self.show_details()
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def show_details(self) -> None:
        """Describe the selected stage: what it does, its steps, its last verdict."""
        stage = self.selected
        body = self.query_one("#details-body", Static)
        if stage is None:
            body.update("")
            return
        body.update(Group(*self._describe(stage)))

    def _describe(self, stage: Any) -> Iterable[Any]:
        rec = self._records.get(stage.id)
        value = status_value(getattr(rec, "status", None))
        mark, word = STATUS_LOOK.get(value, ("?", value))
        head = Text.assemble((stage.title, "bold"), "   ", (f"{mark} {word}", STATUS_STYLE.get(value, "")))
        if rec is None:
            head.append("  (never run)", style="dim")
        elif getattr(rec, "exit_code", None) not in (None, 0):
            head.append(f"  exit code {rec.exit_code}", style="dim")
        yield head
        blocking = blocking_titles(self.app, stage)
        if blocking:
            names = " and ".join(t for t, _ in blocking)
            yield Text(f"Not ready: {names} must succeed first (Enter asks before running it anyway).",
                       style="yellow")
        failed = getattr(rec, "failed_step", None)
        if failed is not None:
            yield Text(f"Stopped at step {failed.index + 1}: {failed.title}")
        if getattr(rec, "reason", None):
            yield Text(rec.reason)
        progress = self._training_progress(stage)
        if progress:
            yield Text(f"Training (last run): {progress}", style="cyan")
        if getattr(rec, "remedies", None):
            yield Text("Known problem matched: " + ", ".join(rec.remedies) + " (open the stage to see the fix)",
                       style="yellow")
        if getattr(rec, "log_path", None):
            yield Text(f"Log: {self._short_path(rec.log_path)}  (press l)", style="dim")
        yield Text("\n" + stage.description)
        where = status_value(getattr(stage, "where", "host"))
        yield Text(f"Runs on the {where}.", style="dim")
        if stage.depends_on:
            needs = Text("Needs: ", style="dim")
            for i, dep in enumerate(stage.depends_on):
                dep_value = status_value(getattr(self._records.get(dep), "status", None))
                dep_stage = self.app.stage(dep)
                needs.append(", " if i else "")
                needs.append(f"{dep_stage.title if dep_stage else dep} ", style="dim")
                needs.append(STATUS_LOOK.get(dep_value, ("?",))[0], style=STATUS_STYLE.get(dep_value, ""))
            yield needs
        yield Text("\nSteps  (p: the plan, d: full screen)", style="bold underline")
        steps, error = self._steps(stage)
        if error:
            yield Text(f"The steps cannot be listed: {error}", style="red")
        if steps:
            yield steps_table(steps)

    def _training_progress(self, stage: Any) -> str | None:
        """`step 40 / 30000 (0.1 %), loss 0.513, 6.6 samples/s` from the runner's progress file, if any."""
        if not getattr(stage, "metrics", False):
            return None
        from wizard.training.snapshot import progress_text, read_metrics

        data = read_metrics(self.app.session.locations.stages_dir, stage.id)
        return progress_text(data) if data else None

    def _short_path(self, path: str) -> str:
        """A log path relative to the state folder when it lives there (shorter, and stable in tests)."""
        try:
            return str(Path(path).relative_to(self.app.session.locations.state_dir))
        except ValueError:
            return path

    def _steps(self, stage: Any) -> tuple[list[Any] | None, str | None]:
        ctx = self.app.stage_context()
        if ctx is None:
            return None, self.app.context_error
        try:
            return list(stage.steps(ctx)), None
        except Exception as exc:  # a stage that cannot plan says why instead of crashing the screen
            return None, f"{type(exc).__name__}: {exc}"

    # -- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        stage = self.selected if self.is_mounted else None
        if action in ("open", "rerun", "plan") and stage is None:
            return False
        if action == "last_log":
            rec = self._records.get(stage.id) if stage is not None and hasattr(self, "_records") else None
            return None if rec is None or not getattr(rec, "log_path", None) else True
        if action == "next" and hasattr(self, "_records"):
            return next_pending(self.app.stages, self._records) is not None
        return True

    def _run(self, stage: Any, force: bool) -> None:
        """Open `stage`'s screen; first ask when its earlier stages have not succeeded, or in the demo."""
        from screens.run_gate import run_question

        asked = run_question(self.app, stage)
        if asked is None:
            self._open(stage, force)
            return
        from screens.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self._open(stage, force)

        question, yes = asked
        self.app.push_screen(ConfirmDialog(question, yes=yes, no="Not now"), answered)

    def _open(self, stage: Any, force: bool) -> None:
        if stage.id == "preflight":
            from screens.preflight import PreflightScreen

            self.app.push_screen(PreflightScreen(stage))
        else:
            from screens.stage import StageScreen

            self.app.push_screen(StageScreen(stage, force=force))

    def action_open(self) -> None:
        if self.selected is not None:
            self._run(self.selected, force=False)

    def action_rerun(self) -> None:
        if self.selected is not None:
            self._run(self.selected, force=True)

    def action_next(self) -> None:
        stage = next_pending(self.app.stages, self._records)
        if stage is None:
            self.notify("Every stage has succeeded.")
            return
        self.stage_list.select_stage(stage.id)
        self._run(stage, force=False)

    def action_last_log(self) -> None:
        from screens.dialogs.log_viewer import LogViewer

        stage = self.selected
        rec = self._records.get(stage.id) if stage else None
        path = getattr(rec, "log_path", None)
        self.app.push_screen(LogViewer(f"Last log: {stage.title if stage else ''}", Path(path) if path else None))

    def action_plan(self) -> None:
        from screens.dialogs.plan import PlanDialog

        stage = self.selected
        if stage is None:
            return
        steps, error = self._steps(stage)
        self.app.push_screen(PlanDialog(stage.title, status_value(stage.where), steps, error or ""))

    def action_details(self) -> None:
        """Show the details pane full screen, or return from it."""
        from screens.full_screen import toggle_full_screen

        toggle_full_screen(self, "#details")

    def action_help(self) -> None:
        from screens.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog())

    def palette_commands(self) -> Iterable[SystemCommand]:
        """One "Run" and one "Plan" command per stage, so the palette reaches every stage by name."""
        for stage in self.app.stages:
            yield SystemCommand(f"Run: {stage.title}", stage.description,
                                lambda s=stage: self._run(s, force=False))
            yield SystemCommand(f"Plan: {stage.title}", "Preview the commands; runs nothing",
                                lambda s=stage: (self.stage_list.select_stage(s.id), self.action_plan()))
