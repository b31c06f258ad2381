"""Provides `pi05-wizard status [--json]`: each stage's last run, read from the state folder.

Read-only: never takes the wizard lock, and does not need a valid recipe or Docker. A run whose
wizard died (kill -9) shows `interrupted`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.markup import escape

from wizard.cli import EXIT_OK, UsageError
from wizard.locations import Locations
from wizard.stage_lookup import StageLookupError, find_stage, stage_ids
from wizard.state import StateStore, WizardLock
from wizard.training.snapshot import progress_text, read_metrics

_STYLE = {"succeeded": "green", "failed": "bold red", "interrupted": "bold yellow", "cancelled": "yellow",
          "running": "cyan", "skipped": "dim", "pending": "dim"}


def register(subparsers: Any) -> None:
    """Add the `status` subcommand."""
    p = subparsers.add_parser("status", help="show each stage's last run",
                              description="Show each stage's last run: status, times, exit code, failed step, log.")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=handle)


def collect(locations: Locations) -> dict[str, Any]:
    """Status as plain data: `{"lock_holder": pid|None, "stages": [{"id", "title", "status", "record"}...]}`.

    A stage that keeps training metrics (`train`) also has `"metrics"`: the last run's progress
    snapshot (`wizard.training.snapshot.snapshot_dict`).

    Stages that never ran are `pending` with `record` None. Raises UsageError for a broken stage hook.
    """
    store = StateStore(locations)
    records = store.all()
    try:
        ids = stage_ids()
        titles = {}
        for sid in ids:
            try:
                titles[sid] = find_stage(sid).title
            except Exception:  # noqa: BLE001 - a broken declaration must not hide the status
                titles[sid] = sid
    except StageLookupError as exc:
        raise UsageError(str(exc)) from None
    ids += [sid for sid in records if sid not in ids]  # records of stages no longer declared
    stages = []
    for sid in ids:
        rec = records.get(sid)
        entry = {"id": sid, "title": titles.get(sid, sid), "status": rec.status.value if rec else "pending",
                 "record": json.loads(rec.model_dump_json()) if rec else None}
        metrics = read_metrics(locations.stages_dir, sid) if rec else None
        if metrics is not None:
            entry["metrics"] = metrics
        stages.append(entry)
    return {"lock_holder": WizardLock(locations).holder(), "state_dir": str(locations.state_dir), "stages": stages}


def _local(iso: str | None, short: bool = False) -> str:
    """A record's UTC time as local `YYYY-MM-DD HH:MM:SS`, or `MM-DD HH:MM` when `short` (empty when unknown)."""
    if not iso:
        return ""
    from datetime import datetime

    return datetime.fromisoformat(iso).astimezone().strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M:%S")


def _took(rec: dict[str, Any]) -> str:
    if not (rec.get("started") and rec.get("finished")):
        return ""
    from datetime import datetime

    secs = (datetime.fromisoformat(rec["finished"]) - datetime.fromisoformat(rec["started"])).total_seconds()
    return f"{secs:.0f} s" if secs < 120 else f"{secs / 60:.0f} min"


def build_table(data: dict[str, Any], width: int = 80) -> Any:
    """The status as a Rich table that fits `width` columns (the terminal's; 80 at least is assumed).

    Stage ids, statuses and remedy ids are never cut (their columns take their longest value; remedy
    ids wrap between ids, and when the longest does not fit beside the failed step they are listed
    under the table, "<stage> known problems: a, b"); the failed step's title (or the reason) gets
    what is left, on one line, shortened with an ellipsis.
    The full text is in `status --json`.
    """
    from rich.table import Table

    table = Table(title=f"Stages ({data['state_dir']})", title_justify="left", box=None, padding=(0, 2, 0, 0),
                  pad_edge=False, header_style="bold underline")
    rows = []
    for st in data["stages"]:
        rec = st["record"] or {}
        failed = rec.get("failed_step")
        stopped = ""
        if st["status"] not in ("succeeded", "pending"):
            stopped = f"{failed['index'] + 1}. {failed['title']}" if failed else (rec.get("reason") or "")
        rows.append((st["id"], st["status"], _local(rec.get("finished") or rec.get("started"), short=True),
                     _took(rec), "" if rec.get("exit_code") is None else str(rec["exit_code"]),
                     " ".join(stopped.split()), rec.get("remedies") or []))
    heads = ("stage", "status", "finished", "took", "exit", "stopped at", "known problems")
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(heads[:6])]
    longest_id = max([0, *(len(i) + (k < len(r[6]) - 1) for r in rows for k, i in enumerate(r[6]))])  # with its comma
    widths.append(max(len(heads[6]), *(len(", ".join(r[6])) for r in rows)))
    # "stopped at" gives way (one line, ellipsis), then "known problems" (wrapped between ids, never
    # inside one: its column is at least as wide as the longest id); the other columns always get
    # their widest value. Two spaces follow each column but the last.
    spare = width - sum(widths[:5]) - 2 * (len(heads) - 1)
    least = len(heads[5])  # "stopped at" gets 12 columns, fewer (down to its header's width) for a long id
    widths[6] = min(widths[6], max(len(heads[6]), longest_id, spare - 12))
    below = widths[6] > spare - least  # an id would not fit beside "stopped at": list the ids under the table
    if below:
        heads, widths = heads[:6], widths[:6]
        spare += 2
    widths[5] = min(widths[5], max(least, spare - (0 if below else widths[6])))
    for head, w in zip(heads, widths):
        table.add_column(head, no_wrap=True, overflow="fold", width=w,
                         justify="right" if head in ("took", "exit") else "left")
    for r in rows:
        stopped = r[5] if len(r[5]) <= widths[5] else r[5][: widths[5] - 1].rstrip() + "…"
        cells = (*r[2:5], stopped) if below else (*r[2:5], stopped, wrap_ids(r[6], widths[6]))
        table.add_row(r[0], f"[{_STYLE.get(r[1], '')}]{r[1]}[/]", *(escape(x) for x in cells))
    if not below:
        return table
    from rich.console import Group
    from rich.text import Text

    # Rich wraps a Text at spaces only, so an id is never split.
    notes = [Text(f"{r[0]} known problems: {', '.join(r[6])}") for r in rows if r[6]]
    return Group(table, *notes)


def wrap_ids(ids: list[str], width: int) -> str:
    """`ids` joined by ", ", broken into lines of at most `width` characters only between ids.

    An id longer than `width` gets a line of its own (never split).
    """
    lines: list[str] = []
    for i, rid in enumerate(ids):
        word = rid + ("," if i < len(ids) - 1 else "")
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    """Print the status table (or JSON); always exit 0."""
    data = collect(Locations.from_args(args))
    if args.json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    from rich.console import Console

    console = Console(highlight=False, emoji=False)
    console.print(build_table(data, console.width))
    for st in data["stages"]:
        if st.get("metrics") is not None:
            console.print(f"{st['id']} progress (last run): {progress_text(st['metrics'])}", markup=False)
    if data["lock_holder"]:
        console.print(f"a wizard (pid {data['lock_holder']}) is running stages now", markup=False)
    return EXIT_OK
