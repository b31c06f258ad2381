"""Provides `PreflightScreen`: every host check started at once, each row filled in as its result arrives.

The checks run in one thread worker through the engine's `wizard.preflight_run.run_and_save_preflight`
(which also saves the `preflight` record), whose `on_result` callback (called from the checks' own
threads) hands each result to the UI with `call_from_thread`. Selecting a row shows the check's messages, the plain reason and the remedy.
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, ListView, Static

from screens.widgets.check_row import CheckRow
from screens.widgets.status import CHECK_STYLE
from wizard.hints import fill

_LEVEL_MARK = {"info": ("·", "dim"), "warn": ("!", "yellow"), "error": ("✗", "red")}
_STATUS_WORD = {"ok": "ok", "warn": "warning", "fail": "failed", "skip": "skipped", "error": "could not check"}


class PreflightScreen(Screen[None]):
    """The preflight checks as a list (left) and the selected check's details (right).

    Args:
        stage: the `preflight` Stage (for its title; the checks come from the check registry).
    """

    BINDINGS = [
        Binding("r", "rerun", "Re-run checks"),
        Binding("d", "details", "Details"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("escape,q", "back", "Back"),
    ]

    running: reactive[bool] = reactive(False)

    def __init__(self, stage: Any = None) -> None:
        super().__init__()
        self.stage = stage
        self.results: dict[str, Any] = {}
        self.run_count = 0
        """How many times the checks were started (the first run plus each `r`)."""

    def compose(self) -> ComposeResult:
        from checks.registry import select

        yield Header()
        yield Static(id="pf-summary")
        with Horizontal(id="pf-body"):
            with Vertical(id="checks") as box:
                box.border_title = "Checks"
                yield ListView(*[CheckRow(c.id, c.title) for c in select(self.app.check_ids)], id="check-list")
            with VerticalScroll(id="check-details") as details:
                details.border_title = "Details"
                yield Static(id="check-body")
        yield Footer()

    @property
    def rows(self) -> list[CheckRow]:
        return list(self.query(CheckRow))

    def on_mount(self) -> None:
        self.set_interval(0.1, self._spin)
        self.query_one(ListView).focus()
        self.action_rerun()

    def _spin(self) -> None:
        if self.running:
            for row in self.rows:
                if row.result is None:
                    row.frame += 1

    # -- running --------------------------------------------------------------------------------

    def action_rerun(self) -> None:
        if self.running:
            return
        self.results = {}
        for row in self.rows:
            row.result = None
        self.running = True
        self.run_count += 1
        self._paint_summary()
        self._paint_details()
        self._checks_worker()

    @work(thread=True, exclusive=True, group="preflight")
    def _checks_worker(self) -> None:
        from wizard.preflight_run import run_and_save_preflight

        app = self.app
        try:
            results, _ = run_and_save_preflight(
                app.session, only=app.check_ids, offline=app.offline,
                on_result=lambda res: app.call_from_thread(self.result_arrived, res))
        except Exception as exc:  # the one error funnel: the summary line says it
            app.call_from_thread(self.run_broke, f"{type(exc).__name__}: {exc}")
            return
        app.call_from_thread(self.all_done, results)

    def result_arrived(self, result: Any) -> None:
        """One check finished (UI thread)."""
        self.results[result.id] = result
        for row in self.rows:
            if row.check_id == result.id:
                row.result = result
        self._paint_summary()
        if self._selected_id() == result.id:
            self._paint_details()

    def all_done(self, results: list[Any]) -> None:
        """Every check has a result (UI thread); late ones (timeouts) are filled in here."""
        for res in results:
            if res.id not in self.results:
                self.result_arrived(res)
        self.running = False
        self._select_first_problem()
        self._paint_summary()
        self._paint_details()
        self.refresh_bindings()

    def _select_first_problem(self) -> None:
        """Highlight the first failed (or could-not-check) row, else the first warning, so the details
        pane shows what to fix; a row the operator moved to (other than the first) is kept."""
        view = self.query_one(ListView)
        if view.index not in (None, 0):
            return
        for wanted in (("fail", "error"), ("warn",)):
            for i, row in enumerate(self.rows):
                if row.result is not None and row.result.status.value in wanted:
                    view.index = i
                    return

    def run_broke(self, reason: str) -> None:
        self.running = False
        self.query_one("#pf-summary", Static).update(Text(f"The checks could not run: {reason}", style="bold red"))
        self.refresh_bindings()

    # -- drawing --------------------------------------------------------------------------------

    def _blocked_stages(self) -> list[str]:
        """Titles of the stages that need a clean preflight (they depend on it)."""
        return [s.title for s in self.app.stages if "preflight" in s.depends_on]

    def _network_trouble(self) -> str | None:
        """What the unreachable download hosts mean, when the `network` check warned; else None.

        Data-driven: a stage is named when one of its steps (argv, env, description) names an
        unreachable host, e.g. Container for the image registry, CANN upgrade for the runfile host.
        Hosts no step names (pip's, the weights' hubs, fetched from inside actions) are listed as such.
        Returns e.g. "6 of 8 download hosts are unreachable: Container, CANN upgrade will fail until
        the network is fixed (and anything fetched from huggingface.co, modelscope.cn)".
        """
        res = self.results.get("network")
        if res is None or res.status.value != "warn":
            return None
        down = list((res.details or {}).get("unreachable") or {})
        probed = (res.details or {}).get("probed") or []
        if not down:
            return None
        named: list[str] = []
        unnamed = set(down)
        ctx = self.app.stage_context()
        for stage in self.app.stages if ctx is not None else []:
            try:
                steps = stage.steps(ctx)
            except Exception:  # a stage that cannot plan says so on its own screen
                continue
            text = " ".join(" ".join([*(st.argv or []), *map(str, st.env.values()), st.describe or "", st.title])
                            for st in steps)
            hit = {h for h in down if h in text}
            if hit:
                named.append(stage.title)
                unnamed -= hit
        count = f"{len(down)} of {len(probed)}" if probed else str(len(down))
        head = f"{count} download host{'s are' if len(down) > 1 else ' is'} unreachable: "
        others = [h for h in down if h in unnamed]
        listing = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        if not named:
            return head + f"stages that download from {listing} will fail until the network is fixed"
        tail = f" (and anything fetched from {listing})" if others else ""
        return head + f"{', '.join(named)} will fail until the network is fixed{tail}"

    def _paint_summary(self) -> None:
        total = len(self.rows)
        done = len(self.results)
        counts: dict[str, int] = {}
        for res in self.results.values():
            counts[res.status.value] = counts.get(res.status.value, 0) + 1
        line = Text()
        if self.running:
            line.append(f"Checking the host… {done} of {total} done.  ", style="bold cyan")
        problems = counts.get("fail", 0) + counts.get("error", 0)
        for value, word in (("ok", "ok"), ("warn", "warnings"), ("fail", "failed"), ("error", "could not check"),
                            ("skip", "skipped")):
            if counts.get(value):
                if value == "warn" and counts[value] == 1:
                    word = "warning"
                line.append(f"{counts[value]} {word}  ", style=CHECK_STYLE.get(value, ""))
        if not self.running and done:
            blocked = self._blocked_stages()
            if problems:
                them = "they pass" if problems > 1 else "it passes"
                nxt = f" {', '.join(blocked)} cannot start until {them}." if blocked else ""
                line.append(f"\n✗ {problems} check{'s' if problems > 1 else ''} must be fixed first.{nxt} "
                            "Select one to see the fix; press r to check again.", style="bold red")
            elif (net := self._network_trouble()) is not None:
                line.append(f"\n! Ready, but {net}.", style="bold yellow")
            else:
                line.append("\n✓ This host is ready for the next stage. Press Esc to go back, then n.",
                            style="bold green")
        self.query_one("#pf-summary", Static).update(line)

    def _selected_id(self) -> str | None:
        item = self.query_one(ListView).highlighted_child
        return item.check_id if isinstance(item, CheckRow) else None

    def on_list_view_highlighted(self, _: ListView.Highlighted) -> None:
        self._paint_details()

    def _paint_details(self) -> None:
        check_id = self._selected_id()
        body = self.query_one("#check-body", Static)
        row = next((r for r in self.rows if r.check_id == check_id), None)
        if row is None:
            body.update("")
            return
        body.update(Group(*self._describe(row)))

    def _describe(self, row: CheckRow) -> Iterable[Any]:
        res = row.result
        yield Text(row.title, style="bold")
        if res is None:
            yield Text("Checking…", style="dim")
            return
        value = res.status.value
        yield Text(f"{res.status.mark} {_STATUS_WORD.get(value, value)}: {res.summary}", style=CHECK_STYLE.get(value, ""))
        if res.status.is_problem:
            blocked = self._blocked_stages()
            if blocked:
                yield Text(f"This blocks the next stage: {', '.join(blocked)}.", style="bold red")
        elif value == "warn" and res.id == "network" and (net := self._network_trouble()) is not None:
            yield Text(f"This does not block the next stage, but {net}.", style="yellow")
        elif value == "warn":
            yield Text("This does not block the next stage, but deserves a look.", style="yellow")
        if res.messages:
            yield Text("")
        for msg in res.messages:
            mark, style = _LEVEL_MARK.get(msg.level.value, ("·", ""))
            yield Text.assemble((f"{mark} ", style), msg.text)
            if msg.link:
                yield Text(f"  more: {msg.link}", style="dim")
        catalogue = _catalogue()
        for rid in res.remedies:
            remedy = catalogue.get(rid) if catalogue is not None else None
            yield Text("")
            if remedy is None:
                yield Text(f"Fix: see `{self.app.command('explain', rid)}`", style="bold")
                continue
            yield Text(f"Why: {remedy.explanation}")
            yield Text.assemble(("Fix: ", "bold green"), fill(remedy.instructions, "fix", rid, build=self.app.command))
            if remedy.fix:
                yield Text(f"  (or run: {self.app.command('fix', rid)})", style="dim")
        if res.details:
            from screens.widgets.details_view import details_view

            yield Text("\nFound", style="bold underline")
            yield details_view(res.details)

    # -- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rerun":
            return None if self.running else True
        return True

    def action_back(self) -> None:
        if self.maximized is not None:  # Esc first leaves the full-screen details
            self.minimize()
            return
        self.dismiss(None)

    def action_details(self) -> None:
        """Show the selected check's details full screen, or return from them."""
        from screens.full_screen import toggle_full_screen

        toggle_full_screen(self, "#check-details")

    def action_help(self) -> None:
        from screens.dialogs.help import HelpDialog

        self.app.push_screen(HelpDialog())


def _catalogue() -> Any | None:
    """The remedy catalogue, or None when it cannot be loaded (`wizard.remedies.catalogue_or_none`)."""
    from wizard.remedies import catalogue_or_none

    return catalogue_or_none()
