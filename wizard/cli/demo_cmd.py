"""Provides `pi05-wizard demo`: the wizard on a simulated healthy 910B host, in a temporary folder.

Builds the host with `wizard.simhost.build_sim_host` (sample files shipped with the project, device
nodes, fake `npu-smi`, and 2 TiB tmpfs "disks" so the disk check measures the simulated host; where
mounting is not allowed the demo goes on without them and says so), points the state folder at the
same temporary folder, and opens the TUI with DEMO in its header. The preflight reads only the
temporary folder, except its `docker` and `network` checks; the container stage and every stage
after it use this machine's real Docker engine and the network (`DEMO_NOTE`, printed when the demo
starts and again when it ends). The tmpfs disks are always unmounted on exit (also on Ctrl-C); the
folder is removed unless `--keep`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

#: What the demo does on this machine for real, said when it starts and when it ends.
DEMO_NOTE = ("pi05-wizard demo: the host is simulated, but the container stage and every stage after it use "
             "this machine's real Docker engine (they create the recipe's container and images) and the network; "
             "the preflight's docker and network checks ask this machine too.")


def register(subparsers: Any) -> None:
    """Add the `demo` subcommand."""
    p = subparsers.add_parser(
        "demo", help="try the wizard on a simulated healthy 910B host (no NPU needed)",
        description="Build a simulated healthy Ascend 910B host in a temporary folder and open the wizard on it, "
                    "with its state in the same folder. The preflight reads the simulated host; the container "
                    "stage and every stage after it use this machine's real Docker engine and the network.")
    p.add_argument("--variant", default="healthy",
                   help="which simulated host to build (healthy, or one with a known problem, e.g. tiny-shm)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    p.set_defaults(func=handle)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


def prepare(base: Path, variant: str = "healthy", note: Callable[[str], None] = _stderr) -> argparse.Namespace:
    """Build the simulated host under `base/host` and return arguments for `Session.from_args`.

    The host gets 2 TiB tmpfs disks (`build_sim_host(..., disks=True)`); when they cannot be
    mounted here (not root, no CAP_SYS_ADMIN) it is built without them and `note` gets one line
    saying the disk check measures this machine's disks instead. Call
    `wizard.simhost.teardown_sim_host(base / "host")` when done, also after an exception.

    Raises:
        wizard.cli.UsageError: unknown variant, or the host cannot be built here even without disks.
    """
    from wizard.cli import UsageError
    from wizard.simhost import SimHostError, build_sim_host

    try:
        try:
            root = build_sim_host(base / "host", variant, disks=True)
        except SimHostError as exc:
            root = build_sim_host(base / "host", variant, disks=False)  # raises again when disks were not the cause
            note(f"pi05-wizard demo: no simulated 2 TiB disks ({exc}); the disk check measures this machine's disks.")
    except (ValueError, SimHostError, OSError) as exc:
        raise UsageError(f"cannot build the simulated host: {exc}") from exc
    return argparse.Namespace(root=str(root), state_dir=str(base / "state"), recipe=None)


def handle(args: argparse.Namespace) -> int:
    """Build the simulated host, run the TUI on it, clean up; returns the app's exit code.

    The simulated disks are unmounted whatever happens (the app's exit, an error, Ctrl-C); the
    temporary folder is removed unless `--keep`.
    """
    from screens.app import run_app  # lazy: the headless engine never imports textual
    from wizard.simhost import teardown_sim_host

    base = Path(tempfile.mkdtemp(prefix="pi05-wizard-demo-"))
    _stderr(DEMO_NOTE)
    try:
        demo_args = prepare(base, args.variant)
        demo_args.recipe = getattr(args, "recipe", None)
        return run_app(demo_args, demo=True)
    finally:
        try:
            teardown_sim_host(base / "host")
        except Exception as exc:  # noqa: BLE001 - cleanup must not mask the app's exit code
            _stderr(f"pi05-wizard demo: could not unmount the simulated disks under {base / 'host'}: {exc}")
        if args.keep:
            _stderr(f"pi05-wizard demo: kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
        _stderr(DEMO_NOTE)
