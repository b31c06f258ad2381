"""Provides `pi05-wizard fix ID [--yes] [--dry-run] [--revert]`: run a remedy's fix (or print its instructions).

Exit codes: 0 fixed (or harmless), 1 not fixed (instructions printed), 2 unknown id or bad configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `fix` subcommand."""
    p = subparsers.add_parser("fix", help="apply the fix of a known problem",
                              description="Apply the fix of a remedy catalogue entry (see `explain`). Fixes that "
                                          "edit files keep a backup and can be undone with --revert. A fix that "
                                          "needs confirmation asks on a terminal; elsewhere pass --yes.")
    p.add_argument("id", metavar="ID", help="remedy id, e.g. hub-push-local-path")
    p.add_argument("--yes", "-y", action="store_true",
                   help="answer yes to confirmations (container recreation, pins) without asking")
    p.add_argument("--dry-run", action="store_true", help="print what the fix would do; change nothing")
    p.add_argument("--revert", action="store_true", help="undo a file-editing fix")
    p.add_argument("--log", metavar="FILE", default=None,
                   help="output to classify (numpy-conflict; default: the last dependencies log)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=handle)


class Confirmer:
    """The `confirm` callback of a CLI fix: --yes says yes, a terminal is asked (y/N), else no.

    Attributes:
        yes: `--yes` was given.
        unanswered: questions that got "no" because there was no terminal to ask on.
    """

    def __init__(self, yes: bool):
        self.yes = yes
        self.unanswered: list[str] = []

    def __call__(self, question: str) -> bool:
        if self.yes:
            return True
        try:
            tty = sys.stdin.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not tty:
            self.unanswered.append(question)
            return False
        try:
            answer = input(f"{question} [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")


def handle(args: argparse.Namespace) -> int:
    """Run the fix; print what it did. Never a traceback: every error is one message and an exit code."""
    from wizard.cli import EXIT_FAILED, UsageError
    from wizard.hosts.container import ContainerUnavailable

    try:
        return _handle(args)
    except UsageError:
        raise
    except ContainerUnavailable as exc:
        _say_failure(args, str(exc))
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: a message, not a traceback
        _say_failure(args, f"the fix could not run: {type(exc).__name__}: {exc}")
        return EXIT_FAILED


def _say_failure(args: argparse.Namespace, message: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps({"id": args.id, "ok": False, "changed": False, "message": message, "rerun": "",
                          "details": [], "automatic": True}, indent=2, ensure_ascii=False))
    else:
        print(f"pi05-wizard fix {args.id}: {message}")


def _handle(args: argparse.Namespace) -> int:
    from wizard import hints
    from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError
    from wizard.recipe import RecipeError
    from wizard.remedies.catalogue import load_catalogue
    from wizard.remedies.dryrun import dry_run_fix
    from wizard.remedies.fixes import FixError, apply_fix, context_from_session, fix_host, revert_fix
    from wizard.session import Session

    hints.remember(args)
    cat = load_catalogue()
    if args.id not in cat:
        raise UsageError(f"unknown remedy id {args.id!r}; known: {', '.join(cat.ids)}")
    try:
        session = Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from exc
    host = fix_host(session, args.id)
    if host is not session.host:
        host.stat("/")  # a missing or stopped container raises ContainerUnavailable (its one sentence) now
    confirm = Confirmer(args.yes)
    ctx = context_from_session(session, yes=args.yes, host=host, confirm=confirm)
    if args.log:
        from wizard.cli.explain_cmd import read_input

        ctx.log_text = read_input(args.log)
    elif args.id == "numpy-conflict":
        rec = session.store.last("dependencies")
        if rec is not None and rec.log_path:
            try:
                with open(rec.log_path, encoding="utf-8", errors="replace") as fh:
                    ctx.log_text = fh.read(64 << 20)
            except OSError:
                pass
    try:
        if args.dry_run:
            result = dry_run_fix(args.id, ctx, cat, revert=args.revert)
        else:
            result = revert_fix(args.id, ctx) if args.revert else apply_fix(args.id, ctx, cat)
    except KeyError as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    except FixError as exc:
        _say_failure(args, str(exc))
        return EXIT_FAILED
    if confirm.unanswered and not result.ok:
        result.message = ("Not confirmed: there is no terminal to ask on; re-run with --yes to confirm. "
                          + result.message.removeprefix("Not confirmed. "))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        mark = "✓" if result.ok else ("!" if not result.automatic else "✗")
        print(f"{mark} {args.id}: {result.message}")
        for d in result.details:
            print(f"    {d}")
        if result.rerun and not args.dry_run:
            print(f"  Then re-run: {hints.command('run', result.rerun)}")
    return EXIT_OK if result.ok else EXIT_FAILED
