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

    Stage ids, statuses and remedy ids are never cut (their columns take their longest value); the
    failed step's title (or the reason) gets what is left, on one line, shortened with an ellipsis.
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
                     " ".join(stopped.split()), ", ".join(rec.get("remedies") or [])))
    heads = ("stage", "status", "finished", "took", "exit", "stopped at", "known problems")
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(heads)]
    # "stopped at" gives way (one line, ellipsis), then "known problems" (wrapped after a comma);
    # the other columns always get their widest value. Two spaces follow each column but the last.
    spare = width - sum(widths[:5]) - 2 * (len(heads) - 1)
    widths[6] = min(widths[6], max(len("known problems"), spare - 12))
    widths[5] = min(widths[5], max(12, spare - widths[6]))
    for head, w in zip(heads, widths):
        table.add_column(head, no_wrap=head != "known problems", overflow="fold", width=w,
                         justify="right" if head in ("took", "exit") else "left")
    for r in rows:
        stopped = r[5] if len(r[5]) <= widths[5] else r[5][: widths[5] - 1].rstrip() + "…"
        table.add_row(r[0], f"[{_STYLE.get(r[1], '')}]{r[1]}[/]", *(escape(x) for x in (*r[2:5], stopped, r[6])))
    return table


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
