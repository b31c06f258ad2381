"""Provides `pi05-wizard logs STAGE [--follow]`: print the log file of a stage's last run.

With `--follow`, keeps printing what is appended while that run is still `running`, and stops
when it ends (or on Ctrl-C). Read-only: never takes the wizard lock.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError
from wizard.locations import Locations
from wizard.stage_lookup import StageLookupError, find_stage
from wizard.state import StageStatus, StateStore


def register(subparsers: Any) -> None:
    """Add the `logs` subcommand."""
    p = subparsers.add_parser("logs", help="print the log of a stage's last run",
                              description="Print the log file of a stage's last run.")
    p.add_argument("stage", metavar="STAGE", help="the stage id")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing while the run goes on")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace, poll_s: float = 0.2) -> int:
    """Print the log; exit 1 when the stage never ran or its log is gone, 2 for an unknown stage."""
    try:
        find_stage(args.stage)
    except StageLookupError as exc:
        raise UsageError(str(exc)) from None
    store = StateStore(Locations.from_args(args))
    rec = store.last(args.stage)
    if rec is None or not rec.log_path:
        print(f"pi05-wizard: {args.stage} has not run yet (no log)", file=sys.stderr)
        return EXIT_FAILED
    try:
        fh = open(rec.log_path, "rb")
    except OSError as exc:
        print(f"pi05-wizard: cannot read the log of {args.stage}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    out = sys.stdout.buffer
    with fh:
        while True:
            chunk = fh.read(1 << 16)
            if chunk:
                out.write(chunk)
                continue
            out.flush()
            if not args.follow:
                return EXIT_OK
            now = store.last(args.stage)
            if now is None or now.log_path != rec.log_path or now.status is not StageStatus.RUNNING:
                rest = fh.read()  # what was written just before it ended
                out.write(rest)
                out.flush()
                return EXIT_OK
            time.sleep(poll_s)
