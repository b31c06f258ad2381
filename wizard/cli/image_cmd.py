"""Provides `pi05-wizard image save [--output FILE] [--force]` and `pi05-wizard image load FILE [--yes]`.

`save` runs the `image` stage (commit the recipe's container, save `pi:<tag>` as a `.tar.gz`), with
its log and state record like `run image`; an existing archive is refused without `--force`.
`load` loads an archive (`.tar` or `.tar.gz`) and starts the recipe's container from the loaded
image with the same flags as the `container` stage; an existing container of that name is replaced
only with `--yes`. Both take the one-wizard lock. `--output` is a path on this machine (with
`--root`, not translated); the default is the recipe's data folder under the host (translated).
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path
from typing import Any

from wizard.cli import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, UsageError


def register(subparsers: Any) -> None:
    """Add the `image` subcommand with `save` and `load`."""
    p = subparsers.add_parser("image", help="save the finished container as an image archive, or load one",
                              description="Reuse the finished environment: save the container as a .tar.gz "
                                          "image archive, or load an archive and start the container from it.")
    sub = p.add_subparsers(dest="image_command", metavar="ACTION", required=True)
    save = sub.add_parser("save", help="commit the container and save it as a .tar.gz archive")
    save.add_argument("--output", metavar="FILE", default=None,
                      help="archive path (default: the recipe's data folder / pi-<tag>.tar.gz)")
    save.add_argument("--force", action="store_true", help="overwrite an existing archive")
    save.set_defaults(func=handle_save)
    load = sub.add_parser("load", help="load an archive and start the container from it with the recipe's flags")
    load.add_argument("file", metavar="FILE", help="the .tar.gz (or .tar) image archive")
    load.add_argument("--yes", action="store_true",
                      help="replace an existing container of the same name that differs (it is removed)")
    load.set_defaults(func=handle_load)


def _session(args: argparse.Namespace):
    from wizard.recipe import RecipeError
    from wizard.session import Session

    try:
        return Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from None


def _locked(session):
    from wizard.state import LockHeld, WizardLock

    lock = WizardLock(session.locations)
    try:
        lock.acquire()
    except LockHeld as exc:
        raise UsageError(str(exc)) from None
    return lock


def _in_thread(fn) -> tuple[Any, bool]:
    """Run fn(cancel_event) in a worker so Ctrl-C in the main thread becomes a clean cancel."""
    cancel = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(cancel)
        except BaseException as exc:  # handed back to the main thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="pi05-image", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        cancel.set()
        worker.join()
        return box.get("value"), True
    if "error" in box:
        raise box["error"]
    return box.get("value"), cancel.is_set()


def handle_save(args: argparse.Namespace) -> int:
    """`image save`: run the image stage. Exit 0 saved, 1 failed (or archive exists), 130 cancelled."""
    from wizard.runner import run_stage
    from wizard.sinks import ConsoleSink
    from wizard.stages.image import STAGE
    from wizard.state import StageStatus

    session = _session(args)
    options: dict[str, object] = {"force": bool(args.force)}
    if args.output:
        options["output"] = os.path.abspath(args.output)
    ctx = session.context(options)
    lock = _locked(session)
    try:
        rec, cancelled = _in_thread(lambda cancel: run_stage(STAGE, ctx, [ConsoleSink()], cancel, session.store,
                                                             force=True))
    finally:
        lock.release()
    if cancelled or (rec is not None and rec.status is StageStatus.CANCELLED):
        return EXIT_CANCELLED
    return EXIT_OK if rec is not None and rec.status is StageStatus.SUCCEEDED else EXIT_FAILED


def handle_load(args: argparse.Namespace) -> int:
    """`image load FILE`: load, then start the container. Exit 0 running, 1 failed, 130 cancelled."""
    from wizard.events import Line
    from wizard.sinks import ConsoleSink
    from wizard.stages.base import ActionIO
    from wizard.stages.image import load_and_run

    archive = Path(args.file)
    if not archive.is_file():
        raise UsageError(f"no image archive at {archive}")
    session = _session(args)
    ctx = session.context({"yes": bool(args.yes)})
    console = ConsoleSink()

    def emit(text: str, stream: str = "stdout", progress: bool = False) -> None:
        console.line(Line(text=str(text), stream=stream, time=time.time(), progress=progress))  # type: ignore[arg-type]

    lock = _locked(session)
    try:
        code, cancelled = _in_thread(lambda cancel: load_and_run(ctx, archive, ActionIO(emit=emit, cancelled=cancel.is_set)))
    finally:
        lock.release()
    if cancelled:
        return EXIT_CANCELLED
    return EXIT_OK if code == 0 else EXIT_FAILED
