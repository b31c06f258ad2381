"""Provides `pi05-wizard run STAGE... [--from STAGE] [--force] [--yes]`: run stages with live output.

Takes the wizard lock (a second wizard gets exit 2 naming the holder's pid), runs the stages in
run order with a header per step and a verdict per stage, and stops at the first stage that does
not succeed, naming it and the command to re-run it. Ctrl-C (or SIGTERM) cancels: the running
step's process group gets SIGTERM, then SIGKILL after the grace period, and the exit code is 130.
Exit 0 when every stage succeeded or was skipped as done, 1 when one failed, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Any

from wizard.cli import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from wizard.stage_lookup import StageLookupError, find_stage, stage_ids
from wizard.stages.base import Stage
from wizard.state import LockHeld, StageStatus, WizardLock

#: Statuses of a dependency's last run that let a dependent stage run.
_SATISFIED = (StageStatus.SUCCEEDED, StageStatus.SKIPPED)


def register(subparsers: Any) -> None:
    """Add the `run` subcommand."""
    p = subparsers.add_parser("run", help="run stages, streaming their output",
                              description="Run the given stages in order (or every stage from --from on), "
                                          "streaming their output; stops at the first failure.")
    p.add_argument("stages", nargs="*", metavar="STAGE", help="stage ids to run")
    p.add_argument("--from", dest="from_stage", metavar="STAGE", default=None,
                   help="run this stage and every stage after it")
    p.add_argument("--force", action="store_true", help="run stages even when their done() probe says they are done")
    p.add_argument("--yes", action="store_true", help="answer yes to the stages' confirmations")
    p.set_defaults(func=handle)


def select_stages(ids: list[str], from_stage: str | None) -> list[Stage]:
    """The stages to run, in run order, without duplicates.

    Raises:
        UsageError: no stage given, or an unknown id.
    """
    try:
        order = stage_ids()
        wanted = list(dict.fromkeys(ids))
        for sid in wanted + ([from_stage] if from_stage else []):
            if sid not in order:
                find_stage(sid)  # raises with the list of known ids
        if from_stage:
            wanted += order[order.index(from_stage):]
        if not wanted:
            raise UsageError("name the stages to run (e.g. `pi05-wizard run cann`) or use --from STAGE")
        return [find_stage(s) for s in order if s in set(wanted)]
    except StageLookupError as exc:
        raise UsageError(str(exc)) from None


def handle(args: argparse.Namespace) -> int:
    """Run the selected stages; the exit code (0, 1, 2 or 130)."""
    from rich.console import Console

    from wizard.recipe import RecipeError
    from wizard.runner import run_stage
    from wizard.session import Session
    from wizard.sinks import ConsoleSink

    stages = select_stages(list(args.stages), args.from_stage)
    try:
        session = Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from None
    console = Console(highlight=False, emoji=False)
    err = Console(stderr=True, highlight=False, emoji=False)
    lock = WizardLock(session.locations)
    try:
        lock.acquire()
    except LockHeld as exc:
        err.print(f"pi05-wizard: {exc}", markup=False)
        return EXIT_USAGE
    cancel = threading.Event()
    previous = {}

    def on_signal(signum: int, frame: object) -> None:
        if not cancel.is_set():
            err.print("\npi05-wizard: cancelling (the step gets SIGTERM, then SIGKILL)...", markup=False)
        cancel.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, on_signal)
    try:
        ctx = session.context({"yes": bool(args.yes)})
        store = session.store
        ran: set[str] = set()
        for stage in stages:
            missing = [d for d in stage.depends_on
                       if d not in ran and not _satisfied(store.last(d))]
            if missing and not args.force:
                console.print(f"✗ {stage.id} needs {', '.join(missing)} first (not succeeded yet); run: "
                              f"pi05-wizard run {' '.join(missing)}", style="bold red", markup=False)
                return EXIT_FAILED
            sinks = [ConsoleSink(console)]
            matcher = _remedy_matcher(session.recipe)
            if matcher is not None:
                sinks.append(matcher)
            rec = run_stage(stage, ctx, sinks, cancel, store, force=args.force)
            if rec.status is StageStatus.CANCELLED or cancel.is_set():
                console.print(f"cancelled; re-run with: pi05-wizard run {stage.id}", style="yellow", markup=False)
                return EXIT_CANCELLED
            if rec.status not in _SATISFIED:
                _explain_failure(console, stage, rec, matcher)
                return EXIT_FAILED
            ran.add(stage.id)
        return EXIT_OK
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        lock.release()


def _satisfied(rec: Any) -> bool:
    return rec is not None and rec.status in _SATISFIED


def _remedy_matcher(recipe: Any) -> Any:
    """The remedy sink, judging numpy conflicts by this recipe's harmless list (the dependencies stage's)."""
    try:
        from wizard.remedies import RemedyMatcher

        return RemedyMatcher(benign=recipe.dependencies.benign)
    except Exception:  # noqa: BLE001 - the catalogue is optional for running stages
        return None


def _explain_failure(console: Any, stage: Stage, rec: Any, matcher: Any) -> None:
    for m in (getattr(matcher, "matches", None) or []):
        title = getattr(m, "title", "")
        console.print(f"  known problem: {m.id}" + (f" — {title}" if title else "")
                      + f"   (details: pi05-wizard explain; fix: pi05-wizard fix {m.id})", markup=False)
    console.print(f"log: {rec.log_path}", style="dim", markup=False)
    console.print(f"re-run with: pi05-wizard run {stage.id}", style="bold", markup=False)
