"""Provides `RemedyDialog`: a matched known problem, explained, with its fix offered as one key."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def describe_remedy(remedy: Any, line: str | None = None) -> Group:
    """Title, the two-sentence explanation, the matching output line and the instructions of a remedy."""
    parts: list[Any] = [Text(remedy.title, style="bold"), Text(remedy.explanation + "\n")]
    if line:
        parts += [Text("Seen in the output:", style="dim"), Text(f"  {line}\n", style="yellow")]
    parts += [Text("What to do:", style="bold"), Text(remedy.instructions)]
    if remedy.fix:
        parts.append(Text("\nThe wizard can do this for you: press f (it asks before anything destructive).",
                          style="green"))
    return Group(*parts)


class RemedyDialog(ModalScreen[bool]):
    """Explains one remedy; dismisses with True when the operator asks to apply its fix (f)."""

    BINDINGS = [Binding("f", "apply", "Apply the fix"), Binding("escape,n", "close", "Not now")]

    def __init__(self, remedy: Any, line: str | None = None) -> None:
        super().__init__()
        self.remedy, self.line = remedy, line

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog wide") as box:
            box.border_title = "Known problem"
            yield Static(describe_remedy(self.remedy, self.line), classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                if self.remedy.fix:
                    yield Button("Apply the fix (f)", variant="success", id="apply")
                yield Button("Not now (Esc)", id="close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "apply")

    def action_apply(self) -> None:
        if self.remedy.fix:
            self.dismiss(True)

    def action_close(self) -> None:
        self.dismiss(False)
