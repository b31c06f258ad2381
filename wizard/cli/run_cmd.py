"""Provides `pi05-wizard run STAGE... [--from STAGE] [--force] [--ignore-deps] [--yes] [--offline]`: run stages.

Takes the wizard lock (a second wizard gets exit 2 naming the holder's pid), runs the stages in
run order with a header per step and a verdict per stage, and stops at the first stage that does
not succeed, naming it and the command to re-run it (with the global options given, shell-quoted).
A stage whose dependencies have not succeeded is refused unless `--ignore-deps` (the rule is
`wizard.readiness.blocking_dependencies`); `--force` only overrides the stages' done() probes. Ctrl-C (or SIGTERM) cancels: the running
step's process group gets SIGTERM, then SIGKILL after the grace period, and the exit code is 130.
Exit 0 when every stage succeeded or was skipped as done, 1 when one failed, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Any

from wizard import hints
from wizard.cli import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from wizard.readiness import SATISFIED as _SATISFIED
from wizard.readiness import blocking_dependencies
from wizard.stage_lookup import StageLookupError, find_stage, stage_ids
from wizard.stages.base import Stage
from wizard.state import LockHeld, StageStatus, WizardLock


def register(subparsers: Any) -> None:
    """Add the `run` subcommand."""
    p = subparsers.add_parser("run", help="run stages, streaming their output",
                              description="Run the given stages in order (or every stage from --from on), "
                                          "streaming their output; stops at the first failure.")
    p.add_argument("stages", nargs="*", metavar="STAGE", help="stage ids to run")
    p.add_argument("--from", dest="from_stage", metavar="STAGE", default=None,
                   help="run this stage and every stage after it")
    p.add_argument("--force", action="store_true",
                   help="re-run stages whose done() probe says their work is already there")
    p.add_argument("--ignore-deps", action="store_true",
                   help="run stages even when the stages they depend on have not succeeded (prints a warning)")
    p.add_argument("--yes", action="store_true", help="answer yes to the stages' confirmations")
    p.add_argument("--offline", action="store_true",
                   help="skip the network probes of the preflight checks (the download-hosts check is skipped)")
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

    hints.remember(args)
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
        ctx = session.context({"yes": bool(args.yes), "offline": bool(getattr(args, "offline", False))})
        store = session.store
        ran: set[str] = set()
        for stage in stages:
            missing = blocking_dependencies(stage, store, satisfied=ran)
            if missing and not getattr(args, "ignore_deps", False):
                console.print(f"✗ {stage.id} needs {', '.join(missing)} first (not succeeded yet); run: "
                              f"{hints.command('run', *missing)}", style="bold red", markup=False,
                              soft_wrap=True)
                return EXIT_FAILED
            if missing:
                console.print(f"! running {stage.id} although {', '.join(missing)} "
                              f"{'has' if len(missing) == 1 else 'have'} not succeeded (--ignore-deps)",
                              style="yellow", markup=False, soft_wrap=True)
            sinks = [ConsoleSink(console)]
            matcher = _remedy_matcher(session.recipe)
            if matcher is not None:
                sinks.append(matcher)
            rec = run_stage(stage, ctx, sinks, cancel, store, force=args.force)
            if rec.status is StageStatus.CANCELLED or cancel.is_set():
                console.print(f"cancelled; re-run with: {hints.command('run', stage.id)}", style="yellow",
                              markup=False, soft_wrap=True)
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


def _remedy_matcher(recipe: Any) -> Any:
    """The remedy sink, judging numpy conflicts by this recipe's harmless list (the dependencies stage's)."""
    try:
        from wizard.remedies import RemedyMatcher

        return RemedyMatcher(benign=recipe.dependencies.benign)
    except Exception:  # noqa: BLE001 - the catalogue is optional for running stages
        return None


def _explain_failure(console: Any, stage: Stage, rec: Any, matcher: Any) -> None:
    shown = list(getattr(matcher, "matches", None) or [])
    matched = {getattr(m, "id", None) for m in shown}
    shown += [_Known(rid, _remedy_title(rid)) for rid in (rec.remedies or []) if rid not in matched]
    for m in shown:
        title = getattr(m, "title", "")
        console.print(f"  known problem: {m.id}" + (f" — {title}" if title else ""), markup=False, soft_wrap=True)
        if rec.log_path:
            console.print(f"    details: {hints.command('explain', rec.log_path)}", markup=False, soft_wrap=True)
        console.print(f"    fix: {hints.command('fix', m.id)}", markup=False, soft_wrap=True)
    console.print(f"log: {rec.log_path}", style="dim", markup=False, soft_wrap=True)
    console.print(f"re-run with: {hints.command('run', stage.id)}", style="bold", markup=False, soft_wrap=True)


class _Known:
    """A remedy id an action step reported (`StageRecord.remedies`), shown like a matcher's match."""

    def __init__(self, rid: str, title: str):
        self.id = rid
        self.title = title


def _remedy_title(rid: str) -> str:
    """The catalogue title of a remedy id ("" when the catalogue cannot say)."""
    try:
        from wizard.remedies import load_catalogue

        return load_catalogue()[rid].title
    except Exception:  # noqa: BLE001 - the id alone is still useful
        return ""
