"""Provides `pi05-wizard demo`: the wizard on a simulated healthy 910B host, in a temporary folder.

Builds the host with `wizard.simhost.build_sim_host` (sample files shipped with the project, device
nodes, fake `npu-smi`), points the state folder at the same temporary folder, and opens the TUI
with DEMO in its header. Nothing outside the temporary folder is read or written by the stages'
checks; the folder is removed when the wizard closes (unless `--keep`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `demo` subcommand."""
    p = subparsers.add_parser(
        "demo", help="try the wizard on a simulated healthy 910B host (no NPU needed)",
        description="Build a simulated healthy Ascend 910B host in a temporary folder and open the wizard on it, "
                    "with its state in the same folder. Nothing on this machine is changed.")
    p.add_argument("--variant", default="healthy",
                   help="which simulated host to build (healthy, or one with a known problem, e.g. tiny-shm)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    p.set_defaults(func=handle)


def prepare(base: Path, variant: str = "healthy") -> argparse.Namespace:
    """Build the simulated host under `base/host` and return arguments for `Session.from_args`.

    Raises:
        wizard.cli.UsageError: unknown variant, or the host cannot be built here.
    """
    from wizard.cli import UsageError
    from wizard.simhost import SimHostError, build_sim_host

    try:
        root = build_sim_host(base / "host", variant)
    except (ValueError, SimHostError, OSError) as exc:
        raise UsageError(f"cannot build the simulated host: {exc}") from exc
    return argparse.Namespace(root=str(root), state_dir=str(base / "state"), recipe=None)


def handle(args: argparse.Namespace) -> int:
    """Build the simulated host, run the TUI on it, clean up; returns the app's exit code."""
    from screens.app import run_app  # lazy: the headless engine never imports textual
    from wizard.simhost import teardown_sim_host

    base = Path(tempfile.mkdtemp(prefix="pi05-wizard-demo-"))
    try:
        demo_args = prepare(base, args.variant)
        demo_args.recipe = getattr(args, "recipe", None)
        return run_app(demo_args, demo=True)
    finally:
        if args.keep:
            print(f"pi05-wizard demo: kept {base}", file=sys.stderr)
        else:
            try:
                teardown_sim_host(base / "host")
            except Exception:  # noqa: BLE001 - cleanup must not mask the app's exit code
                pass
            shutil.rmtree(base, ignore_errors=True)
