"""Provides `HelpDialog`: what the wizard does and which keys do what."""

from __future__ import annotations

from rich.table import Table
from rich.console import Group
from rich.text import Text

from screens.dialogs.text import TextDialog

#: (key, what it does). Each text fits one line of the help at 80x24 (62 columns beside the keys);
#: tests/test_tui_help_fits.py checks the dialog does not scroll there.
KEYS: list[tuple[str, str]] = [
    ("Enter", "open the selected stage and run it (preflight: the checks)"),
    ("n", "run the next stage that has not succeeded yet"),
    ("r", "re-run the selected stage, even if its work looks done"),
    ("l", "show the last log of the selected stage"),
    ("p", "preview the plan: the commands a stage would run (runs none)"),
    ("c", "on a running stage: cancel it (asks first)"),
    ("f", "on a failed stage: apply the fix that matched its output"),
    ("d", "the selected stage's details full screen (d again returns)"),
    ("Ctrl+P", "command palette: every action by name"),
    ("?", "this help"),
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
            "The wizard runs the Pi-0.5 recipe's stages on this host in order; a stage asks first when "
            "earlier ones have not succeeded. Results are saved: quit any time, pick up later.\n"
        )
        super().__init__("Help", Group(intro, keys))
