"""Provides `dry_run_fix`: what a remedy's fix would change, with nothing changed.

The fix runs for real against a Host that reads through to the real one and records, instead of
doing, every write, removal and command that is not read-only; its recorded decisions go to a
scratch copy of the state's `remedies/` folder. File writes are shown as a unified diff of the
file as it is and as it would be.
"""

from __future__ import annotations

import dataclasses
import difflib
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

from checks.host import CommandResult, Host
from wizard.remedies.catalogue import Catalogue

#: Diff lines shown per file before "... (N more lines)".
MAX_DIFF_LINES = 60


def _read_only(argv: Sequence[str]) -> bool:
    """Commands the fixes run that change nothing (`git apply --check`, with or without --reverse)."""
    return bool(argv) and Path(argv[0]).name == "git" and "--check" in argv


class DryRunHost:
    """A Host that reads through to `inner` and records what would change in `planned` (one line each)."""

    def __init__(self, inner: Host, planned: list[str]):
        self._inner = inner
        self.planned = planned
        self.name = getattr(inner, "name", "host")

    def __getattr__(self, attr: str) -> Any:
        if attr == "real_path":  # no direct file access: writes come through run(), which records them
            raise AttributeError(attr)
        return getattr(self._inner, attr)

    def _diff(self, path: str, new: str) -> list[str]:
        try:
            old = self._inner.read_text(path, max_bytes=16 << 20)
        except OSError:
            old = ""
        lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"{path} (now)",
                                          f"{path} (after the fix)", lineterm="", n=1))
        if len(lines) > MAX_DIFF_LINES:
            lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more lines)"]
        return ["  " + ln for ln in lines]

    def run(self, argv: Sequence[str], timeout: float | None = None, env: dict | None = None,
            cwd: str | None = None) -> CommandResult:
        """Read-only commands run; writes and everything else are recorded and reported as done."""
        from wizard.remedies.fixes import _REMOVE_PROG, _WRITE_PROG, BACKUP_SUFFIX

        argv = list(argv)
        if len(argv) >= 5 and argv[1] == "-c" and argv[2] == _WRITE_PROG and argv[3].endswith(BACKUP_SUFFIX):
            self.planned.append(f"would keep a backup of the file as it is now: {argv[3]}")
        elif len(argv) >= 5 and argv[1] == "-c" and argv[2] == _WRITE_PROG:
            self.planned.append(f"would write {argv[3]}:")
            self.planned += self._diff(argv[3], argv[4])
        elif len(argv) >= 4 and argv[1] == "-c" and argv[2] == _REMOVE_PROG:
            self.planned.append(f"would remove {argv[3]}")
        elif _read_only(argv):
            return self._inner.run(argv, timeout=timeout, env=env, cwd=cwd)
        else:
            self.planned.append(f"would run: {shlex.join(argv)}" + (f" (in {cwd})" if cwd else ""))
        return CommandResult(tuple(argv), 0)


def dry_run_fix(remedy_id: str, ctx: Any, catalogue: Catalogue | None = None, revert: bool = False):
    """Run a fix (or its revert) without changing anything; returns its FixResult describing the plan.

    Args:
        remedy_id: the catalogue id.
        ctx: the `FixContext` the real fix would get (its host, locations, confirm, recreate callable).
        catalogue: the catalogue (default: the shipped one).
        revert: describe `--revert` instead.

    Returns:
        A FixResult with `changed=False`, the message "Dry run: nothing was changed. ..." and one
        detail line per change it would make (a diff for each file).

    Raises:
        KeyError, FixError: as `apply_fix` / `revert_fix`.
    """
    from wizard.remedies.fixes import apply_fix, revert_fix

    planned: list[str] = []
    asked: list[str] = []

    def confirm(question: str) -> bool:
        asked.append(question)
        return True

    def recreate(_confirm) -> str:
        planned.append(f"would remove container and create it again (shm size {ctx.shm_size})")
        return "would be recreated"

    scratch = Path(tempfile.mkdtemp(prefix="pi05-wizard-dry-"))
    try:
        real_remedies = Path(ctx.locations.state_dir) / "remedies"
        if real_remedies.is_dir():
            shutil.copytree(real_remedies, scratch / "remedies")
        before = {p.name: p.read_bytes() for p in (scratch / "remedies").glob("*.json")} \
            if (scratch / "remedies").is_dir() else {}
        dry = dataclasses.replace(
            ctx, host=DryRunHost(ctx.host, planned), confirm=confirm,
            locations=dataclasses.replace(ctx.locations, state_dir=scratch),
            recreate_container=recreate if ctx.recreate_container is not None else None)
        result = revert_fix(remedy_id, dry) if revert else apply_fix(remedy_id, dry, catalogue)
        after = {p.name: p.read_bytes() for p in (scratch / "remedies").glob("*.json")} \
            if (scratch / "remedies").is_dir() else {}
        for name in sorted(set(before) | set(after)):
            if name not in after:
                planned.append(f"would remove the record {real_remedies / name}")
            elif before.get(name) != after[name]:
                planned.append(f"would record {real_remedies / name}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    plan = [f"would ask: {q}" for q in asked] + planned
    if not plan:
        plan = ["no change: " + result.message]
    return dataclasses.replace(result, changed=False, message="Dry run: nothing was changed. " + result.message,
                               details=plan)
