"""Provides `failure_lines`: the failure view's text, what to do first and why after.

Order, so the first lines on an 80x24 terminal are the ones to act on: the failed step (and how it
ended), the matched known problem with its one key (`f`) when the catalogue can fix it, what to do
by hand otherwise, then the explanation, the other matches, and one line of output (the line a
remedy matched, else the stage's last line). The rest of the output is in the log below it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from rich.text import Text

from screens.widgets.stage_log import render_line
from wizard import hints


def _one_line(text: str, limit: int = 300) -> str:
    """`text` on one line (newlines folded), at most `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _headline(record: Any, error: str | None) -> Text:
    if error:
        return Text(f"✗ The stage could not run: {_one_line(error)}", style="bold red")
    failed = getattr(record, "failed_step", None)
    reason = getattr(record, "reason", None)
    if failed is not None:
        head = Text(f"✗ Step {failed.index + 1} failed: {failed.title}", style="bold red")
        if reason:
            head.append(f" ({_one_line(reason, 120)})", style="red")
        return head
    return Text(f"✗ The stage failed{': ' + _one_line(reason) if reason else '.'}", style="bold red")


def failure_lines(record: Any, error: str | None, matches: list[Any], catalogue: Any, fixable: bool,
                  tail: Iterable[Any], command: Callable[..., str] | None = None) -> list[Text]:
    """The failure view, most useful line first.

    Args:
        record: the run's `StageRecord` (its `failed_step`, `reason`), or None when the run broke.
        error: why the stage could not run at all (the one error funnel), or None.
        matches: the run's `wizard.remedies.matcher.Match`es, in the order they were seen.
        catalogue: the remedy catalogue (`.get(id)`), or None.
        fixable: True when the first non-info match has an automatic fix (`f` is offered).
        tail: the last output lines (`wizard.events.Line`), oldest first.
        command: builds a `pi05-wizard ...` line with the session's global options (the app's
            `command`); default `wizard.hints.command` (the remembered options).

    Returns:
        Rich `Text` lines: headline, the key to press, then the explanation.
    """
    command = command or hints.command
    lines = [_headline(record, error)]
    known = [(m, catalogue.get(m.id)) for m in matches] if catalogue is not None else []
    known = [(m, r) for m, r in known if r is not None]
    problems = [(m, r) for m, r in known if m.severity != "info"]
    harmless = [(m, r) for m, r in known if m.severity == "info"]
    if problems:
        match, remedy = problems[0]
        lines.append(Text.assemble(("Known problem: ", "bold yellow"), (remedy.title, "bold")))
        if fixable:
            lines.append(Text("→ Press f to apply its fix, then r to re-run this stage.", style="bold green"))
            lines.append(Text.assemble(("Why: ", "dim"), remedy.explanation))
            lines.append(Text.assemble(("The fix, by hand: ", "dim"), hints.fill(remedy.instructions, "fix", remedy.id,
                                                                             build=command)))
        else:
            lines.append(Text.assemble(("→ What to do: ", "bold green"),
                                       hints.fill(remedy.instructions, "fix", remedy.id, build=command),
                                       " Then press r to re-run this stage."))
            lines.append(Text.assemble(("Why: ", "dim"), remedy.explanation))
        if match.line:
            lines.append(Text(f"Matched: {_one_line(match.line)}", style="dim", no_wrap=True, overflow="ellipsis"))
        for other, rem in problems[1:]:
            lines.append(Text.assemble(("Also known: ", "yellow"), rem.title, (f"  ({command('explain', rem.id)})",
                                                                                "dim")))
    else:
        lines.append(Text("→ What to do: read the output below (l: the whole log), fix the cause, then press r "
                          "to re-run this stage.", style="bold"))
        last = [ln for ln in tail if getattr(ln, "stream", "") != "wizard"]
        if last:
            lines.append(Text(f"Last output: {_one_line(render_line(last[-1]))}", style="dim",
                              no_wrap=True, overflow="ellipsis"))
    for _, rem in harmless:
        lines.append(Text.assemble(("Harmless, known: ", "dim"), rem.title, (" (not the cause)", "dim")))
    return lines
