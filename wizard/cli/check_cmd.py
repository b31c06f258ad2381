"""Provides `pi05-wizard check`: the preflight as a Rich table (or `--json`), with exit codes a script can trust.

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed or broke, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from checks.context import detect_inside_container
from checks.registry import CHECK_IDS, DEFAULT_TIMEOUT_S, run_checks
from checks.result import CheckResult, Level, Status

_STYLES = {Status.OK: "green", Status.WARN: "yellow", Status.FAIL: "red", Status.SKIP: "dim", Status.ERROR: "magenta"}
_LEVEL_MARK = {Level.INFO: "·", Level.WARN: "!", Level.ERROR: "✗"}


def register(subparsers: Any) -> None:
    """Add the `check` subcommand."""
    p = subparsers.add_parser("check", help="run the host preflight checks",
                              description="Run every preflight check at once and show what to do about each problem. "
                                          "Exit 0 when nothing failed, 1 when something failed, 2 for usage errors.")
    p.add_argument("--json", action="store_true", help="print one JSON document with every result")
    p.add_argument("--verbose", "-v", action="store_true", help="also show info lines, durations and details")
    p.add_argument("--only", nargs="+", metavar="ID", default=None,
                   help=f"run only these checks (ids: {', '.join(CHECK_IDS)}); commas also separate")
    p.add_argument("--offline", action="store_true", help="do not probe the download hosts")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"abandon checks still running after this long (default {DEFAULT_TIMEOUT_S:g})")
    p.set_defaults(func=handle)


def _only(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def _build_context(args: argparse.Namespace):
    from wizard.cli import UsageError
    from wizard.recipe import RecipeError
    from wizard.session import Session

    try:
        session = Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from exc
    return session.check_context(offline=args.offline, inside_container=detect_inside_container(session.host))


def remedy_sentence(remedy_id: str) -> str:
    """One sentence about the fix for `remedy_id`, from the remedy catalogue when it is available."""
    from wizard.hints import command

    hint = f"`{command('fix', remedy_id)}`"
    try:
        from wizard.remedies import load_catalogue  # written by another part of the project

        catalogue = load_catalogue()
        entry = catalogue.get(remedy_id) if hasattr(catalogue, "get") else None
        if entry is None and isinstance(catalogue, (list, tuple)):
            entry = next((e for e in catalogue if getattr(e, "id", None) == remedy_id), None)
        title = getattr(entry, "title", None) if entry is not None else None
        if title:
            return f"{str(title).rstrip('.')} ({hint})."
    except Exception:  # noqa: BLE001 - the catalogue is optional for this command
        pass
    return f"Known fix: {hint}."


def document(results: list[CheckResult], ctx: Any, duration_s: float) -> dict[str, Any]:
    """The `--json` document: host facts, overall verdict and every result in the fixed order."""
    failed = any(r.status.is_problem for r in results)
    return {
        "host": getattr(ctx.host, "name", "?"),
        "inside_container": ctx.inside_container,
        "offline": ctx.offline,
        "ok": not failed,
        "exit_code": 1 if failed else 0,
        "duration_s": round(duration_s, 4),
        "counts": {s.value: sum(r.status is s for r in results) for s in Status},
        "results": [r.model_dump(mode="json") for r in results],
    }


def summary_line(results: list[CheckResult], duration_s: float) -> str:
    """One line such as "15 ok, 1 warning, 2 failed, 0 skipped in 0.21 s"."""
    n = {s: sum(r.status is s for r in results) for s in Status}
    parts = [f"{n[Status.OK]} ok", f"{n[Status.WARN]} warning{'s' if n[Status.WARN] != 1 else ''}",
             f"{n[Status.FAIL]} failed", f"{n[Status.SKIP]} skipped"]
    if n[Status.ERROR]:
        parts.append(f"{n[Status.ERROR]} could not run")
    return ", ".join(parts) + f" in {duration_s:.2f} s"


def _cell(r: CheckResult, verbose: bool) -> Any:
    """The result column of one row: summary, then messages, remedies and details indented under it
    (continuation lines keep their indent when the terminal wraps them)."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    parts: list[Any] = [Text(r.summary)]
    for m in r.messages:
        if m.level is Level.INFO and not verbose:
            continue
        style = "yellow" if m.level is Level.WARN else ("red" if m.level is Level.ERROR else "dim")
        parts.append(Padding(Text(f"{_LEVEL_MARK[m.level]} {m.text}", style=style), (0, 0, 0, 2)))
        if m.remedy:
            parts.append(Padding(Text(f"→ {remedy_sentence(m.remedy)}", style="cyan"), (0, 0, 0, 4)))
    if verbose and r.details:
        for k, v in r.details.items():
            shown = json.dumps(v, default=str)
            parts.append(Padding(Text(f"{k}: {shown[:160]}{'…' if len(shown) > 160 else ''}", style="dim",
                                      overflow="fold"), (0, 0, 0, 4)))
    return Group(*parts)


def render(results: list[CheckResult], verbose: bool, duration_s: float, console: Any) -> None:
    """Print the results table, problems with their remedies, and the summary line.

    The mark, id and (with `verbose`) seconds columns get exact widths and the result column the
    rest of `console.width`, so Rich never shrinks the seconds to make room (seen at 80 columns).
    """
    from rich.table import Table
    from rich.text import Text

    times = [f"{r.duration_s:.2f}" for r in results]
    id_w = max([len("check"), *(len(r.id) for r in results)])
    time_w = max([1, *(len(t) for t in times)]) if verbose else 0
    gaps = 2 * (3 if verbose else 2)  # padding (0, 1) on each side of every inner edge, pad_edge off
    result_w = max(10, console.width - 1 - id_w - time_w - gaps)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False, expand=False)
    table.add_column("", no_wrap=True, width=1)
    table.add_column("check", no_wrap=True, width=id_w)
    table.add_column("result", overflow="fold", width=result_w)
    if verbose:
        table.add_column("s", justify="right", no_wrap=True, width=time_w)
    for r, shown in zip(results, times):
        style = _STYLES[r.status]
        row = [Text(r.status.mark, style=style), Text(r.id, style=style), _cell(r, verbose)]
        if verbose:
            row.append(Text(shown))
        table.add_row(*row)
    console.print(table)
    failed = any(r.status.is_problem for r in results)
    console.print(Text(summary_line(results, duration_s), style="bold red" if failed else "bold green"))


def handle(args: argparse.Namespace) -> int:
    """Run the checks and print them; returns 0, 1 (something failed) or raises UsageError (exit 2)."""
    from rich.console import Console

    from wizard import hints
    from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError

    hints.remember(args)
    ctx = _build_context(args)
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    if ctx.requirements.command_timeout_s >= args.timeout:
        # Keep each command's own timeout inside the run's, so a hung command is killed, not orphaned.
        ctx.requirements = ctx.requirements.model_copy(update={"command_timeout_s": max(0.2, args.timeout * 0.8)})
    start = time.monotonic()
    try:
        results = run_checks(ctx, only=_only(args.only), timeout_s=args.timeout)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    duration = time.monotonic() - start
    if args.json:
        sys.stdout.write(json.dumps(document(results, ctx, duration), indent=2, ensure_ascii=False) + "\n")
    else:
        plain = bool(os.environ.get("NO_COLOR"))  # https://no-color.org: no colour, and we drop bold too
        console = Console(no_color=plain, color_system=None if plain else "auto", highlight=False, soft_wrap=False)
        render(results, args.verbose, duration, console)
    return EXIT_FAILED if any(r.status.is_problem for r in results) else EXIT_OK
