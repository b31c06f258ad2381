"""Provides `pi05-wizard fix ID [--yes] [--revert]`: run a remedy's fix (or print its instructions).

Exit codes: 0 fixed (or harmless), 1 not fixed (instructions printed), 2 unknown id or bad configuration.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `fix` subcommand."""
    p = subparsers.add_parser("fix", help="apply the fix of a known problem",
                              description="Apply the fix of a remedy catalogue entry (see `explain`). Fixes that "
                                          "edit files keep a backup and can be undone with --revert.")
    p.add_argument("id", metavar="ID", help="remedy id, e.g. hub-push-local-path")
    p.add_argument("--yes", "-y", action="store_true", help="answer yes to confirmations (container recreation, pins)")
    p.add_argument("--revert", action="store_true", help="undo a file-editing fix")
    p.add_argument("--log", metavar="FILE", default=None,
                   help="output to classify (numpy-conflict; default: the last dependencies log)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the fix; print what it did."""
    from wizard import hints
    from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError
    from wizard.recipe import RecipeError
    from wizard.remedies.catalogue import load_catalogue
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
    ctx = context_from_session(session, yes=args.yes, host=fix_host(session, args.id))
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
        result = revert_fix(args.id, ctx) if args.revert else apply_fix(args.id, ctx, cat)
    except KeyError as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    except FixError as exc:
        print(f"pi05-wizard fix {args.id}: {exc}")
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        mark = "✓" if result.ok else ("!" if not result.automatic else "✗")
        print(f"{mark} {args.id}: {result.message}")
        for d in result.details:
            print(f"    {d}")
        if result.rerun:
            print(f"  Then re-run: {hints.command('run', result.rerun)}")
    return EXIT_OK if result.ok else EXIT_FAILED
