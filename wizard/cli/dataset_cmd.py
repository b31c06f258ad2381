"""Provides `pi05-wizard dataset inspect PATH [--json]` and `pi05-wizard dataset stats PATH [...]`.

Exit codes: 0 all good; 1 the dataset has a problem (v2.1, missing files, NaN values, stats
missing for `inspect`); 2 usage (PATH is not a folder, an unknown or camera feature asked for).
With `--root DIR`, PATH is a host path read under DIR, like every other command.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from wizard.cli import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, UsageError
from wizard.dataset.layout import PI05_QUANTILE_FEATURES, QUANTILE_KEYS, DatasetError


def register(subparsers: Any) -> None:
    """Add the `dataset` subcommand with its `inspect` and `stats` actions."""
    p = subparsers.add_parser("dataset", help="inspect a LeRobot dataset, compute its quantile statistics",
                              description="Inspect a LeRobot dataset or compute the quantile statistics pi05 needs.")
    sub = p.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)
    ins = sub.add_parser("inspect", help="format, episodes, features, cameras, tasks, size, problems",
                         description="Describe a LeRobot dataset folder (v2.1 or v3.0) and list its problems.")
    ins.add_argument("path", metavar="PATH", help="the dataset folder (holding meta/info.json)")
    ins.add_argument("--json", action="store_true", help="print JSON instead of text")
    ins.set_defaults(func=handle_inspect)
    st = sub.add_parser("stats", help="compute min/max/mean/std/count and q01..q99 into meta/stats.json",
                        description="Compute statistics of the non-camera features of a v3.0 dataset the way "
                                    "lerobot's augment_dataset_quantile_stats.py does (per-episode 5000-bin "
                                    "histograms), and merge them into meta/stats.json (camera entries kept, a "
                                    "backup beside it, written atomically). Never pushes anywhere.")
    st.add_argument("path", metavar="PATH", help="the dataset folder (holding meta/info.json)")
    st.add_argument("--features", nargs="+", metavar="NAME", default=None,
                    help="only these features (default: every numeric non-camera feature)")
    st.add_argument("--exact", action="store_true",
                    help="true quantiles over all frames instead of lerobot's per-episode histograms")
    st.add_argument("--dry-run", action="store_true", help="compute and print, write nothing")
    st.add_argument("--json", action="store_true", help="print JSON instead of text")
    st.set_defaults(func=handle_stats)


def _local_path(args: argparse.Namespace) -> Path:
    from wizard import hints

    hints.remember(args)
    path = args.path
    root = getattr(args, "root", None)
    if root:
        from wizard.hosts.local import LocalHost

        path = LocalHost(root).real_path(path)
    p = Path(path)
    if not p.exists():
        raise UsageError(f"No dataset at {args.path}")
    if not p.is_dir():
        raise UsageError(f"{args.path} is not a folder")
    return p


#: Advice texts in `wizard.dataset` messages that `advise` rewrites for the path actually given.
_STATS_ADVICE = "pi05-wizard dataset stats PATH"
_CONVERT_ADVICE = ("`pi05-wizard run dataset` runs lerobot's convert_dataset_v21_to_v30 with --push-to-hub=false.",
                   "pi05-wizard run dataset, or lerobot's convert_dataset_v21_to_v30 with --push-to-hub=false")


def convert_advice(args: argparse.Namespace) -> str:
    """How to convert the dataset at `args.path`: the stage when it is the recipe's dataset, else what to set first.

    `pi05-wizard run dataset` converts only the recipe's `[dataset] path` (seen from the host through
    the data mount), so for another folder the advice names the recipe field to set, or the move
    to make when the folder is outside the data mount.
    """
    import posixpath

    from wizard import hints
    from wizard.session import Session
    from wizard.stages.dataset import PathNotMapped, host_dataset_path, not_mapped_text

    run = hints.command("run", "dataset")
    try:
        session = Session.from_args(args)
        mount = session.recipe.container.data
        try:
            recipe_host = host_dataset_path(session.context())
        except PathNotMapped:
            recipe_host = None
    except Exception:  # noqa: BLE001 - a bad recipe: fall back to the generic advice
        return f"`{run}` converts the recipe's dataset ([dataset] path) with --push-to-hub=false."
    given = posixpath.normpath(posixpath.join("/", str(args.path))) if Path(args.path).is_absolute() \
        else posixpath.normpath(str(Path(args.path).absolute()))
    if recipe_host is not None and given == posixpath.normpath(recipe_host):
        return f"`{run}` runs lerobot's convert_dataset_v21_to_v30 with --push-to-hub=false."
    base = posixpath.normpath(mount.host_path)
    if given == base or given.startswith(base.rstrip("/") + "/"):
        inside = posixpath.join(mount.container_path, given[len(base):].lstrip("/")).rstrip("/")
        return (f"`{run}` converts only the recipe's dataset ({session.recipe.dataset.path}): set [dataset] "
                f"path = \"{inside}\" in the recipe, then `{run}`.")
    return not_mapped_text(given, mount.container_path, mount.host_path, on_host=True) + f" Then `{run}` converts it."


def advise(text: str, args: argparse.Namespace) -> str:
    """A `wizard.dataset` message with its generic advice made exact for `args.path` (quoted, global options kept)."""
    from wizard import hints

    if _STATS_ADVICE in text:
        text = text.replace(_STATS_ADVICE, hints.command("dataset", "stats", args.path))
    for generic in _CONVERT_ADVICE:
        if generic in text:
            text = text.replace(generic, convert_advice(args))
    return text


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


def handle_inspect(args: argparse.Namespace) -> int:
    """Print what the dataset holds; exit 0 when nothing is a problem, 1 otherwise, 2 when PATH is not a folder."""
    from wizard.dataset.inspect import inspect_dataset

    report = inspect_dataset(_local_path(args))
    code = EXIT_FAILED if report.problems else EXIT_OK
    if args.json:
        data = report.model_dump(mode="json")
        data["training_ready"] = report.training_ready
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return code
    print(f"{report.path}")
    if report.format is not None:
        disk = "" if report.disk_format in (None, report.format) else f" (files on disk: {report.disk_format})"
        print(f"  format     {report.format}{disk}")
        print(f"  robot      {report.robot_type or '-'}   fps {report.fps:g}")
        print(f"  episodes   {report.episodes}   frames {report.frames}   size {_size(report.size_bytes)}")
        print("  features")
        for f in report.features:
            kind = " (camera, video)" if f.video else " (camera)" if f.camera else ""
            print(f"    {f.name:<32} {f.dtype:<8} {tuple(f.shape)}{kind}")
        print(f"  tasks      {len(report.tasks)}")
        for t in report.tasks[:10]:
            print(f"    - {t}")
        q = ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in report.quantiles.items())
        print(f"  q01/q99    {q}")
    else:
        print("  No LeRobot dataset here: meta/info.json is missing or unreadable.")
    for r in report.results:
        print(f"{r.status.mark} {r.title}: {r.summary}")
        for m in r.messages:
            print(f"    {advise(m.text, args)}")
    return code


def handle_stats(args: argparse.Namespace) -> int:
    """Compute (and unless --dry-run, write) statistics; exit 0, 1 for dataset problems, 2 for usage."""
    from wizard.dataset.stats import FeatureSelectionError, StatsCancelled, compute_stats, write_stats

    root = _local_path(args)
    try:
        run = compute_stats(root, features=args.features, exact=args.exact)
    except FeatureSelectionError as exc:
        raise UsageError(str(exc)) from exc
    except StatsCancelled:
        return EXIT_CANCELLED
    except DatasetError as exc:
        return _fail(args, advise(str(exc), args))
    written = backup = None
    error = None
    if run.ok and not args.dry_run:
        try:
            out = write_stats(root, run.stats)
            written, backup = str(out.path), (str(out.backup) if out.backup else None)
        except DatasetError as exc:
            error = str(exc)
    problems = run.problems() + ([error] if error else [])
    code = EXIT_FAILED if problems else EXIT_OK
    if args.json:
        print(json.dumps({
            "path": str(root), "mode": run.mode, "dry_run": args.dry_run, "features": run.features,
            "episodes": run.episodes, "frames": run.frames, "duration_s": round(run.duration_s, 4),
            "stats": run.stats, "problems": problems, "skipped": run.skipped, "notes": run.notes,
            "empty_episodes": run.empty_episodes, "written": written, "backup": backup,
        }, indent=2))
        return code
    print(f"{run.mode} statistics of {len(run.stats)} feature(s) over {run.episodes} episodes, "
          f"{run.frames} frames in {run.duration_s:.2f} s")
    for name, entry in run.stats.items():
        mark = "*" if name in PI05_QUANTILE_FEATURES else " "
        print(f" {mark}{name}  (D={len(entry['min'])})")
        for key in ("min", *QUANTILE_KEYS[:1], *QUANTILE_KEYS[-1:], "max"):
            print(f"     {key:<4} {_fmt(entry[key])}")
    for name, why in run.skipped.items():
        print(f"  skipped {name}: {why}")
    if run.empty_episodes:
        print(f"  empty episodes left out: {', '.join(map(str, run.empty_episodes))}")
    for note in run.notes:
        print(f"  note: {note}")
    for p in problems:
        print(f"✗ {p}")
    if problems:
        print("meta/stats.json was not changed")
    elif args.dry_run:
        print("dry run: meta/stats.json was not changed")
    else:
        print(f"✓ wrote {written}" + (f" (previous file kept as {Path(backup).name})" if backup else ""))
    return code


def _fmt(values: list) -> str:
    return "[" + ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in values) + "]"


def _fail(args: argparse.Namespace, text: str) -> int:
    if args.json:
        print(json.dumps({"path": args.path, "problems": [text], "written": None}, indent=2))
    else:
        print(f"✗ {text}")
    return EXIT_FAILED
