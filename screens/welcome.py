"""Provides `WelcomeScreen`: the first-run page that says what the wizard does and where it keeps things."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class WelcomeScreen(ModalScreen[None]):
    """Shown once per state folder; Enter / Esc continues to the home screen."""

    BINDINGS = [Binding("enter,escape,space", "go", "Start", show=False)]
    AUTO_FOCUS = None  # focusing the button would scroll the text away on a small terminal

    def __init__(self, locations: Any, demo: bool = False) -> None:
        super().__init__()
        self.locations = locations
        self.demo = demo

    def compose(self) -> ComposeResult:
        where = Table.grid(padding=(0, 2))
        where.add_column(style="bold", no_wrap=True)
        where.add_column(overflow="fold")
        where.add_row("State", str(self.locations.state_dir))
        where.add_row("Logs", str(self.locations.logs_dir))
        where.add_row("Your recipe", str(self.locations.user_recipe))
        # The wizard may run anywhere (an x86 laptop, a container): never call the machine a 910B.
        host = "this simulated 910B host" if self.demo else "an Ascend 910B host"
        parts: list[Any] = [
            Text("Welcome to pi05-wizard", style="bold"),
            Text(
                f"This wizard takes {host} to a running Pi-0.5 training job, one stage "
                "at a time, from host checks to a reusable image. Results are saved: stop at any "
                "time, resume later.\n"
            ),
        ]
        if self.demo:
            from screens.run_gate import demo_note

            parts.append(Text.assemble(("This is the demo. ", "bold yellow"), demo_note(), "\n"))
        parts += [
            where,
            Text.from_markup(
                "\nNothing runs until you ask: [b]Enter[/b] runs the selected stage, [b]p[/b] previews "
                "every command it would run, [b]?[/b] shows help."
            ),
        ]
        with VerticalScroll(classes="dialog wide", id="welcome") as box:
            box.border_title = "pi05-wizard demo" if self.demo else "pi05-wizard"
            yield Static(Group(*parts), classes="dialog-text")
            yield Button("Start (Enter)", variant="primary", id="start", compact=True)

    def on_button_pressed(self, _: Button.Pressed) -> None:
        self.dismiss(None)

    def action_go(self) -> None:
        self.dismiss(None)
