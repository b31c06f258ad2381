"""Provides `PlanDialog`: the commands a stage would run, for reading before running anything."""

from __future__ import annotations

from typing import Sequence

from rich.console import Group
from rich.text import Text

from screens.dialogs.text import TextDialog


class PlanDialog(TextDialog):
    """Lists a stage's steps as `N. title` plus the exact command line (`Step.command_text()`).

    Args:
        stage_title: the stage's title.
        where: where the steps run ("host" or "container").
        steps: the `Step`s built for the current recipe, or None when building them failed.
        error: the one-line reason the plan could not be built.
    """

    def __init__(self, stage_title: str, where: str, steps: Sequence[object] | None, error: str = "") -> None:
        parts: list[Text] = [Text(f"Runs on the {where}. Nothing is run by showing this.\n", style="dim")]
        if steps is None:
            parts.append(Text(f"The plan could not be built: {error}", style="bold red"))
        elif not steps:
            parts.append(Text("This stage has no commands to run."))
        for i, step in enumerate(steps or [], start=1):
            parts.append(Text(f"{i}. {step.title}", style="bold"))
            parts.append(Text(f"   {step.command_text()}\n", style="cyan"))
        super().__init__(f"Plan: {stage_title}", Group(*parts))
