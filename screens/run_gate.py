"""Provides `run_question`: what to ask before a stage starts from the TUI, or None when it may just start.

Two things make the wizard ask first: a stage whose earlier stages have not succeeded (the rule is
the engine's `wizard.readiness.blocking_dependencies`, the same one `pi05-wizard run` refuses by),
and, in the demo, a stage that acts on this machine's real Docker engine and network
(`wizard.cli.demo_cmd.DEMO_NOTE` says which). The operator may insist, like `run --ignore-deps`.
"""

from __future__ import annotations

from typing import Any

from screens.widgets.status import status_value

#: How a dependency's last status reads in "Container needs Host preflight first, and it failed."
_LAST_RUN = {
    None: "never ran", "pending": "never ran", "failed": "failed", "cancelled": "was cancelled",
    "interrupted": "was interrupted", "running": "is still marked running",
}

#: Stages that only read the host, so the demo runs them without asking.
_SIMULATED = {"preflight"}


def blocking_titles(app: Any, stage: Any) -> list[tuple[str, str]]:
    """(title, how its last run ended) of each stage `stage` needs that has not succeeded, in order."""
    from wizard.readiness import blocking_dependencies

    out = []
    for dep in blocking_dependencies(stage, app.session.store):
        dep_stage = app.stage(dep)
        rec = app.session.store.last(dep)
        value = status_value(getattr(rec, "status", None)) if rec is not None else None
        out.append((dep_stage.title if dep_stage is not None else dep, _LAST_RUN.get(value, f"is {value}")))
    return out


def demo_note() -> str:
    """The demo's own sentence about what it does on this machine for real (`DEMO_NOTE`, without its prefix)."""
    from wizard.cli.demo_cmd import DEMO_NOTE

    prefix = "pi05-wizard demo: "
    text = DEMO_NOTE[len(prefix):] if DEMO_NOTE.startswith(prefix) else DEMO_NOTE
    return text[:1].upper() + text[1:]


def run_question(app: Any, stage: Any) -> tuple[str, str] | None:
    """The confirmation to show before running `stage`, or None when it may start at once.

    Args:
        app: the `Pi05WizardApp` (its `session.store`, `stage(id)` and `demo`).
        stage: the stage about to run.

    Returns:
        (question, label of the yes button): a few plain sentences ending in "Run X anyway? Y has
        not succeeded." (dependencies) or "Run X on this machine?" (demo); None when nothing to ask.
    """
    parts: list[str] = []
    question = yes = None
    blocking = blocking_titles(app, stage)
    if blocking:
        names = " and ".join(t for t, _ in blocking)
        verb = "have" if len(blocking) > 1 else "has"
        if len(blocking) == 1:
            parts.append(f"{stage.title} needs {names} first, and it {blocking[0][1]}.")
        else:
            parts.append(f"{stage.title} needs {names} first: " + "; ".join(f"{t} {how}" for t, how in blocking) + ".")
        question, yes = f"Run {stage.title} anyway? {names} {verb} not succeeded.", "Run anyway"
    demo = demo_question(app, stage)
    if demo is not None:
        parts.append(demo_note())
        if question is None:
            question, yes = demo[1], demo[2]
    if question is None or yes is None:
        return None
    return "\n\n".join(parts + [question]), yes


def demo_question(app: Any, stage: Any) -> tuple[str, str, str] | None:
    """In the demo, before a stage that acts on this machine for real: (whole text, question, yes label).

    The stage screen's `r` (re-run) asks this alone (its dependencies were asked about when it was
    opened); `run_question` folds it into the question asked from home. None outside the demo and
    for stages that only read the simulated host (preflight).
    """
    if not getattr(app, "demo", False) or stage.id in _SIMULATED:
        return None
    question = f"Run {stage.title} on this machine?"
    return f"{demo_note()}\n\n{question}", question, "Run it"
