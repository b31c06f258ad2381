"""Provides `pi05-wizard simulate DIR`: build a simulated 910B host folder to pass as `--root DIR`.

The folder comes from `wizard.simhost.build_sim_host` (sample files shipped with the project,
device nodes, a fake `npu-smi`; with `--disks`, 2 TiB tmpfs "disks" at `DIR/var/lib/docker` and
`DIR/data`; the `tiny-shm` variant mounts a 64 MiB tmpfs at `DIR/dev/shm`). Unlike `demo`, it
stays until removed, so any command can be tried on it: `pi05-wizard --root DIR check`. Each
root gets its own state folder (`wizard.locations.root_state_dir`). `simulate --teardown DIR`
unmounts the tmpfs mounts it made (the folder itself is left for `rm -rf`).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from wizard.cli import EXIT_FAILED, EXIT_OK, UsageError


def register(subparsers: Any) -> None:
    """Add the `simulate` subcommand."""
    from wizard.simhost import VARIANTS, variants_table

    p = subparsers.add_parser(
        "simulate", help="build a simulated 910B host folder for --root (no NPU needed)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build a simulated Ascend 910B host in DIR (created if needed), then try any command on it:\n"
                    "  pi05-wizard --root DIR check | plan | run preflight | status\n"
                    "With --disks (or the tiny-shm variant) tmpfs mounts are made under DIR (needs root);\n"
                    "undo them with: pi05-wizard simulate --teardown DIR",
        epilog=f"variants (--variant NAME):\n{variants_table()}")
    p.add_argument("dir", metavar="DIR", help="the folder that stands for the simulated host's /")
    p.add_argument("--variant", default="healthy", choices=VARIANTS, metavar="NAME",
                   help="healthy (default), or a host with one known problem (listed below)")
    p.add_argument("--disks", action="store_true",
                   help="mount 2 TiB tmpfs disks for DIR/var/lib/docker and DIR/data (needs root)")
    p.add_argument("--teardown", action="store_true",
                   help="unmount the tmpfs mounts a previous `simulate DIR` made, then exit")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Build (or with `--teardown`, unmount) the simulated host; print how to use and remove it.

    Returns:
        0 when built or torn down; 1 when the host cannot be built here (e.g. mounting needs root).

    Raises:
        UsageError: `--teardown` with `--disks`, or DIR exists and is not a folder.
    """
    from wizard.simhost import SimHostError, build_sim_host, mounted_points, teardown_sim_host

    target = Path(args.dir).absolute()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a folder")
    q = shlex.quote(str(target))
    if args.teardown:
        if args.disks:
            raise UsageError("--teardown takes no --disks")
        points = mounted_points(target)
        teardown_sim_host(target)
        left = [p for p in points if p.is_mount()]
        for p in points:
            print(f"{'still mounted' if p in left else 'unmounted'}: {p}")
        if left:
            print(f"pi05-wizard: could not unmount {len(left)} tmpfs (needs root): umount them by hand")
            return EXIT_FAILED
        print(f"no tmpfs mounts left under {target}; remove the folder with: rm -rf {q}")
        return EXIT_OK
    try:
        root = build_sim_host(target, variant=args.variant, disks=args.disks)
    except SimHostError as exc:
        print(f"pi05-wizard: cannot build the simulated host: {exc}")
        if args.disks:
            print("without --disks no mount is needed (the disk check then measures this machine's disks)")
        return EXIT_FAILED
    mounts = mounted_points(root)
    print(f"simulated 910B host ({args.variant}) in {root}")
    print("try it:")
    for words in ("check", "plan", "run preflight", "status"):
        print(f"  pi05-wizard --root {q} {words}")
    print(f"  pi05-wizard --root {q}              (the wizard, TUI)")
    from wizard.locations import root_state_dir

    print(f"its state (records, logs, lock) lives in {root_state_dir(root)} unless you pass --state-dir")
    if mounts:
        print(f"it mounted {len(mounts)} tmpfs; tear down before removing it: "
              f"pi05-wizard simulate --teardown {q} && rm -rf {q}")
    else:
        print(f"remove it with: rm -rf {q}")
    return EXIT_OK
