"""Provides `pi05-wizard explain FILE|-`: what the remedy catalogue recognizes in a log or pasted error.

Exit codes: 0 nothing at `error` severity matched, 1 something did, 2 the file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from wizard.cli.output import quiet_broken_pipe
from wizard.remedies.catalogue import CatalogueError, load_catalogue
from wizard.remedies.matcher import match_text

#: Read at most this much of the input (bytes); a log larger than that is explained on its start.
MAX_INPUT = 256 << 20


def register(subparsers: Any) -> None:
    """Add the `explain` subcommand."""
    p = subparsers.add_parser("explain", help="explain the known problems in a log or pasted error text",
                              description="Match a log file (or standard input with '-') against the remedy "
                                          "catalogue. Exit 0 when nothing at error severity matched, 1 otherwise.")
    p.add_argument("file", metavar="FILE|-", help="a log file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=handle)


def read_input(name: str) -> str:
    """The text of FILE or stdin ('-'), decoded as UTF-8 with errors replaced.

    Raises:
        UsageError: the file cannot be read.
    """
    from wizard.cli import UsageError

    try:
        if name == "-":
            if _is_tty(sys.stdin):
                print("Paste the log or error text, then press Ctrl-D", file=sys.stderr, flush=True)
            data = sys.stdin.buffer.read(MAX_INPUT)
        else:
            with open(name, "rb") as fh:
                data = fh.read(MAX_INPUT)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    return data.decode("utf-8", errors="replace")


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed stdin
        return False


def fix_text(instructions: str, remedy_id: str, has_fix: bool) -> str:
    """The "Fix:" text: the instructions naming `pi05-wizard fix ID` once, with this run's global options.

    The catalogue's instructions often name the command already (in backticks); it is then
    rewritten in place with the global options, else appended in parentheses.
    """
    from wizard import hints

    if hints.command("fix", remedy_id, options=()) in instructions or not has_fix:
        return hints.fill(instructions, "fix", remedy_id)
    return f"{instructions} ({hints.command('fix', remedy_id)})"


@quiet_broken_pipe
def handle(args: argparse.Namespace) -> int:
    """Print the matches; exit 1 when one is at error severity."""
    from wizard import hints
    from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError

    hints.remember(args)
    text = read_input(args.file)
    try:
        cat = load_catalogue()
    except CatalogueError as exc:
        raise UsageError(str(exc)) from None
    matches = match_text(text, cat)
    failed = any(m.severity == "error" for m in matches)
    if args.json:
        out = []
        for m in matches:
            r = cat[m.id]
            d = m.to_dict()
            d.update({"explain": r.explanation, "fix": r.fix or None, "instructions": r.instructions,
                      "rerun": r.rerun or None})
            out.append(d)
        print(json.dumps({"matches": out, "error": failed}, indent=2, ensure_ascii=False))
        return EXIT_FAILED if failed else EXIT_OK
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, emoji=False)
    if not matches:
        console.print("No known problem recognized.")
        return EXIT_OK
    style = {"error": "bold red", "warn": "yellow", "info": "dim"}
    for m in matches:
        r = cat[m.id]
        more = f" (+{m.count - 1} more)" if m.count > 1 else ""
        console.print(f"[{style[m.severity]}]{m.severity.upper():5}[/] [bold]{m.id}[/]  line {m.line_no}{more}: "
                      f"{escape(r.title)}")
        console.print(f"      [dim]{escape(m.line.strip()[:200])}[/]")
        console.print(f"      {escape(r.explanation)}")
        for text, cls in m.numpy_lines[:20]:
            console.print(f"      [dim]{cls:8}[/] {escape(text.strip()[:160])}")
        console.print(f"      Fix: {escape(fix_text(r.instructions, m.id, bool(r.fix)))}")
        if r.rerun:
            console.print(f"      Then re-run: {hints.command('run', r.rerun)}", markup=False, soft_wrap=True)
    return EXIT_FAILED if failed else EXIT_OK
