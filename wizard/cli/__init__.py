"""Provides the `pi05-wizard` command line: global options, subcommand registry, exit codes.

Each subcommand lives in its own module under `wizard/cli/` and exposes
`register(subparsers) -> None`, which adds its parser and sets `func=handler`, where
`handler(args) -> int` returns an exit code. With no subcommand the TUI starts (imported lazily,
so the headless engine never imports textual).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from wizard.recipe import RecipeError

#: Exit codes a script can trust (see DESIGN.md).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CANCELLED = 130

#: Subcommand modules, in the order their commands appear in `--help`.
COMMAND_MODULES: tuple[str, ...] = (
    "wizard.cli.check_cmd",
    "wizard.cli.plan_cmd",
    "wizard.cli.config_cmd",
    "wizard.cli.image_cmd",
    "wizard.cli.dataset_cmd",
    "wizard.cli.run_cmd",
    "wizard.cli.status_cmd",
    "wizard.cli.logs_cmd",
    "wizard.cli.explain_cmd",
    "wizard.cli.fix_cmd",
    "wizard.cli.report_cmd",
    "wizard.cli.demo_cmd",
    "wizard.cli.simulate_cmd",
    "wizard.cli.serve_cmd",
)


class UsageError(Exception):
    """A usage or configuration problem: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options plus every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="pi05-wizard",
        description="Set up and train Pi-0.5 on a Huawei Ascend 910B host. Without a command, opens the wizard.",
    )
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for child in _subparsers_below(parser):
        # Also accept the global options after the command (`check --root DIR`); SUPPRESS keeps a
        # value given before the command from being reset by the subparser's default.
        add_global_options(child, default=argparse.SUPPRESS)
    return parser


def _subparsers_below(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser under `parser`'s subcommands, at any depth (`image save`, `dataset stats`)."""
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:  # argparse offers no public walk over subparsers
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found.append(child)
                found.extend(_subparsers_below(child))
    return found


def add_global_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    """Options every command (and the TUI) shares: --root, --recipe, --state-dir."""
    parser.add_argument("--root", metavar="DIR", default=default,
                        help="treat DIR as the host's / (a simulated host); default: the real machine")
    parser.add_argument("--recipe", metavar="FILE", default=default,
                        help="a recipe override file (TOML), applied after the user's config")
    parser.add_argument("--state-dir", metavar="DIR", default=default,
                        help="where stage state, logs and the lock live (default: the platformdirs state dir; "
                             "with --root, its own folder <state dir>/roots/<hash>-<name> per root)")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code.

    A closed stdout reader (`pi05-wizard plan | head -1`) ends the command quietly with exit code 0
    (handlers wrapped in `wizard.cli.output.quiet_broken_pipe` return their own code, 141).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    func = getattr(args, "func", None)
    try:
        if func is None:
            from wizard.cli import tui_launch  # lazy: keeps textual out of headless runs

            return tui_launch.launch(args)
        code = int(func(args))
        sys.stdout.flush()  # a reader that went away (`| head`) shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        # The reader closed the pipe: stop quietly, like other Unix tools. stdout goes to /dev/null so
        # Python's own flush at exit cannot raise again (the recipe in the Python docs, signal module).
        from wizard.cli.output import silence_stdout

        silence_stdout()
        return EXIT_OK
    except SystemExit as exc:
        # Rich's Console meets a closed pipe by pointing stdout at /dev/null and raising SystemExit(1)
        # from inside its `except BrokenPipeError`: the same quiet end, with our exit code.
        if isinstance(exc.__context__, BrokenPipeError):
            return EXIT_OK
        raise
    except UsageError as exc:
        print(f"pi05-wizard: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RecipeError as exc:
        print(f"pi05-wizard: bad recipe: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("pi05-wizard: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
