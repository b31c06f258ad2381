"""Provides `HelpDialog`: what the wizard does and which keys do what."""

from __future__ import annotations

from rich.table import Table
from rich.console import Group
from rich.text import Text

from screens.dialogs.text import TextDialog

KEYS: list[tuple[str, str]] = [
    ("Enter", "open the selected stage and run it (preflight: run the checks)"),
    ("n", "run the next stage that has not succeeded yet"),
    ("r", "re-run the selected stage, even if its work looks done"),
    ("l", "show the last log of the selected stage"),
    ("p", "preview the plan: every command the stage would run, nothing is run"),
    ("c", "on a running stage: cancel it (asks first)"),
    ("f", "on a failed stage: apply the fix that matched its output, if any"),
    ("Ctrl+P", "command palette: every action by name"),
    ("?", "this help"),
    ("d", "show the selected stage's details full screen (d again returns)"),
    ("q", "quit (home screen); on the other screens, go back"),
    ("Esc", "go back, or close a dialog"),
]


class HelpDialog(TextDialog):
    """Keys, and the three ideas: stages in order, state is kept, everything can be previewed."""

    def __init__(self) -> None:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column()
        for key, text in KEYS:
            keys.add_row(key, text)
        intro = Text(
            "The wizard takes this host through the stages of the Pi-0.5 recipe, in order: a stage "
            "whose earlier stages have not succeeded asks before it runs. Results are saved, so you "
            "can quit at any time and pick up where you left off. A failed stage says which step "
            "failed and what to do.\n"
        )
        super().__init__("Help", Group(intro, keys))
