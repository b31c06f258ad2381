"""Provides `pi05-wizard demo`: the wizard on a simulated 910B host, in a temporary folder.

Builds the host with `wizard.simhost.build_sim_host` (sample files shipped with the project, device
nodes, fake `npu-smi`, and 2 TiB tmpfs "disks" so the disk check measures the simulated host; where
mounting is not allowed the demo goes on without them and says so), points the state folder at the
same temporary folder (`/tmp/pi05-wizard-demo-*`, holding the demo's pid in `pid`), and opens the
TUI with DEMO in its header. The preflight reads only the temporary folder, except its `docker` and
`network` checks; the Container stage and every stage after it use this machine's real Docker engine
and the network (`DEMO_NOTE`, printed once, when the demo ends, so it is the last thing on the terminal).

Cleanup: on exit, an error, Ctrl-C, SIGTERM or SIGHUP (the terminal closed) the tmpfs disks are
unmounted and the folder removed. `--keep` keeps both (and says how to unmount later). At start,
and with `--cleanup`, demo folders whose owner process is dead are torn down (kept ones only by
`--cleanup`).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

#: What the demo does on this machine for real, said when it starts and when it ends.
DEMO_NOTE = ("pi05-wizard demo: the host is simulated in a temporary folder, but the Container stage and every "
             "stage after it use this machine's real Docker engine (they pull and create the recipe's images and "
             "container) and the network; the preflight's docker and network checks ask this machine too.")

#: Prefix of the demo's temporary folders (under `tempfile.gettempdir()`).
DEMO_PREFIX = "pi05-wizard-demo-"
_PID_FILE = "pid"
_KEPT_FILE = "kept"
#: A demo folder without a pid file younger than this (seconds) may be a demo starting right now.
_YOUNG_S = 60.0


def _variants_epilog() -> str:
    from wizard.simhost import variants_table

    return (f"variants (--variant NAME, default healthy):\n{variants_table()}\n\n"
            "example: pi05-wizard demo --variant tiny-shm\n"
            "stale demo folders and their tmpfs mounts: pi05-wizard demo --cleanup")


def register(subparsers: Any) -> None:
    """Add the `demo` subcommand."""
    from wizard.simhost import VARIANTS

    p = subparsers.add_parser(
        "demo", help="try the wizard on a simulated 910B host (no NPU needed)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build a simulated Ascend 910B host in a temporary folder and open the wizard on it,\n"
                    "with its state in the same folder. The preflight reads the simulated host; the\n"
                    "container stage and every stage after it use this machine's real Docker engine and\n"
                    "the network.",
        epilog=_variants_epilog())
    p.add_argument("--variant", default="healthy", choices=VARIANTS, metavar="NAME",
                   help="which simulated host to build: healthy, or one with a known problem (listed below)")
    p.add_argument("--keep", action="store_true",
                   help="keep the temporary folder and its tmpfs mounts, and print how to remove them")
    p.add_argument("--cleanup", action="store_true",
                   help="unmount and remove demo folders left behind (owner process gone), then exit")
    p.set_defaults(func=handle)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


def prepare(base: Path, variant: str = "healthy", note: Callable[[str], None] = _stderr) -> argparse.Namespace:
    """Build the simulated host under `base/host` and return arguments for `Session.from_args`.

    The host gets 2 TiB tmpfs disks (`build_sim_host(..., disks=True)`); when they cannot be
    mounted here (not root, no CAP_SYS_ADMIN) it is built without them and `note` gets one line
    saying the disk check measures this machine's disks instead. Call `teardown(base)` when done.

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


def teardown(base: Path, note: Callable[[str], None] = _stderr) -> bool:
    """Unmount the simulated disks under `base/host` and remove `base`. Safe to call twice.

    Returns:
        True when the folder is gone; False when a mount could not be undone (the folder is then
        left, since removing files under a still-mounted tmpfs would only empty it).
    """
    from wizard.simhost import teardown_sim_host

    try:
        teardown_sim_host(base / "host")
    except Exception as exc:  # noqa: BLE001 - cleanup reports, never raises
        note(f"pi05-wizard demo: could not unmount the simulated disks under {base / 'host'}: {exc}")
        return False
    shutil.rmtree(base, ignore_errors=True)
    return not base.exists()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def stale_demo_folders(tmp: Path | None = None, include_kept: bool = False) -> list[Path]:
    """Demo folders under `tmp` (default: the temp folder) whose owner process is dead.

    The owner is the pid in the folder's `pid` file; a folder without one counts as stale once it is
    older than a minute. Folders kept with `--keep` count only when `include_kept`.
    """
    tmp = Path(tmp or tempfile.gettempdir())
    out = []
    for d in sorted(tmp.glob(DEMO_PREFIX + "*")):
        if not d.is_dir() or d.is_symlink():
            continue
        if (d / _KEPT_FILE).exists() and not include_kept:
            continue
        try:
            pid = int((d / _PID_FILE).read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            try:
                young = time.time() - d.stat().st_mtime < _YOUNG_S
            except OSError:
                continue
            if not young:
                out.append(d)
            continue
        if pid != os.getpid() and not _alive(pid):
            out.append(d)
    return out


def cleanup_stale(include_kept: bool = False, note: Callable[[str], None] = _stderr) -> list[Path]:
    """Tear down every stale demo folder (`stale_demo_folders`); returns those removed."""
    removed = []
    for d in stale_demo_folders(include_kept=include_kept):
        if teardown(d, note):
            removed.append(d)
            note(f"pi05-wizard demo: removed the stale demo folder {d}")
    return removed


def _mounts(base: Path) -> list[str]:
    """Mount points `build_sim_host` recorded under `base/host` (still mounted until teardown)."""
    from wizard.simhost import mounted_points

    return [str(p) for p in mounted_points(base / "host")]


class _Signalled(SystemExit):
    """SIGTERM or SIGHUP arrived: leave through the `finally` that tears the demo down."""


def _on_signal(signum: int, _frame: Any) -> None:
    raise _Signalled(128 + signum)


def handle(args: argparse.Namespace) -> int:
    """Build the simulated host, run the TUI on it, clean up; returns the app's exit code.

    Without `--keep` the simulated disks are unmounted and the folder removed whatever happens (the
    app's exit, an error, Ctrl-C, SIGTERM, SIGHUP). `--cleanup` only removes stale demo folders.
    """
    if getattr(args, "cleanup", False):
        removed = cleanup_stale(include_kept=True)
        print(f"pi05-wizard demo: removed {len(removed)} stale demo folder(s)")
        return 0
    from screens.app import refuse_without_terminal, run_app  # lazy: the headless engine never imports textual

    refused = refuse_without_terminal()  # before the simulated host is built: nothing to tear down
    if refused is not None:
        return refused
    cleanup_stale()
    base = Path(tempfile.mkdtemp(prefix=DEMO_PREFIX))
    (base / _PID_FILE).write_text(f"{os.getpid()}\n", encoding="utf-8")
    keep = bool(getattr(args, "keep", False))
    if keep:
        (base / _KEPT_FILE).write_text("kept with --keep\n", encoding="utf-8")
    previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        demo_args = prepare(base, args.variant)
        demo_args.recipe = getattr(args, "recipe", None)
        return run_app(demo_args, demo=True)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if keep:
            mounts = _mounts(base)
            how = (f"`{shlex.join(['umount', *mounts])}`, then `{shlex.join(['rm', '-r', str(base)])}`" if mounts
                   else f"`{shlex.join(['rm', '-r', str(base)])}`")
            _stderr(f"pi05-wizard demo: kept {base}" + (f"; its tmpfs disks stay mounted ({len(mounts)})" if mounts
                    else "") + f". Remove it with `pi05-wizard demo --cleanup` or {how}.")
        else:
            teardown(base)
        _stderr(DEMO_NOTE)
