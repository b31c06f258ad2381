"""Shared helpers for the preflight tests: sample access, case raw text, a canned fixture host, sim hosts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import pytest

from checks.host import CommandResult, DiskUsage, PathInfo

SHARED = Path("/work/shared")
SAMPLES = SHARED / "samples"
CASES = SHARED / "cases"
ASSET_SAMPLES = Path(__file__).resolve().parents[1] / "assets" / "samples"


def sample(name: str) -> str:
    """Text of a shared sample, or of the project copy in assets/samples when /work/shared is absent."""
    path = SAMPLES / name
    if not path.exists():
        path = ASSET_SAMPLES / name
    if not path.exists():
        pytest.skip(f"sample {name} not available here")
    return path.read_text(encoding="utf-8")


def case_raw(prefix: str) -> str:
    """The raw text (between the BEGIN/END markers) of the case file whose name starts with `prefix`."""
    found = sorted(CASES.glob(f"{prefix}*")) if CASES.exists() else []
    if not found:
        pytest.skip(f"case {prefix} not available here")
    text = found[0].read_text(encoding="utf-8")
    return text.split("--- RAW TEXT BEGIN ---", 1)[1].split("--- RAW TEXT END ---", 1)[0]


_TITLE = re.compile(r"^\| npu-smi \S+\s+Version:")


def npu_tables(text: str) -> list[str]:
    """Split text holding several `npu-smi info` tables into one string per table (from its title row)."""
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if _TITLE.match(ln)]
    return ["\n".join(lines[max(0, s - 1): (starts[k + 1] - 1 if k + 1 < len(starts) else len(lines))])
            for k, s in enumerate(starts)]


def fenced_blocks(text: str, after: str) -> str:
    """The first ``` fenced block after the line containing `after`."""
    tail = text.split(after, 1)[1]
    return tail.split("```", 2)[1].split("\n", 1)[1]


@dataclass
class FakeHost:
    """A fixture host with canned files, device nodes, disk usage and command outputs (no real filesystem).

    files: path -> text; dirs: extra folder paths; chars: character-device paths;
    commands: argv[0] -> CommandResult or a callable(argv) -> CommandResult.
    """

    files: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    chars: set[str] = field(default_factory=set)
    commands: dict[str, object] = field(default_factory=dict)
    disks: dict[str, DiskUsage] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    name: str = "fake"

    def _all_dirs(self) -> set[str]:
        out = set(self.dirs) | {"/"}
        for p in list(self.files) + list(self.chars) + list(self.dirs):
            parts = p.rstrip("/").split("/")
            for i in range(1, len(parts)):
                out.add("/".join(parts[:i]) or "/")
        return out

    def read_text(self, path: str, max_bytes: int = 1 << 20) -> str:
        if path in self.files:
            return self.files[path][:max_bytes]
        if path in self._all_dirs():
            raise IsADirectoryError(path)
        raise FileNotFoundError(path)

    def stat(self, path: str) -> PathInfo | None:
        if path in self.files:
            return PathInfo(path, "file", len(self.files[path]))
        if path in self.chars:
            return PathInfo(path, "char")
        if path in self._all_dirs():
            return PathInfo(path, "dir")
        return None

    def listdir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/")[0] for p in [*self.files, *self.chars, *self._all_dirs()]
                 if p.startswith(prefix) and len(p) > len(prefix)}
        return sorted(names)

    def disk_usage(self, path: str) -> DiskUsage | None:
        best = max((p for p in self.disks if path == p or path.startswith(p.rstrip("/") + "/")), key=len, default=None)
        return self.disks.get(best) if best else None

    def which(self, name: str) -> str | None:
        return f"/usr/local/sbin/{name}" if name in self.commands else None

    def run(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
            cwd: str | None = None) -> CommandResult:
        cmd = self.commands.get(argv[0])
        if cmd is None:
            return CommandResult(tuple(argv), None, not_found=True)
        if callable(cmd):
            return cmd(argv)
        return cmd  # type: ignore[return-value]

    def environ(self) -> Mapping[str, str]:
        return self.env


def ran(stdout: str = "", stderr: str = "", rc: int | None = 0, timed_out: bool = False) -> CommandResult:
    """A canned CommandResult."""
    return CommandResult(("x",), rc, stdout, stderr, timed_out=timed_out)


def sim_root(tmp_path: Path, variant: str) -> Path:
    """Build a simulated host under a folder with a space in its name; skip when it cannot be built here.

    Skipped (with the builder's reason) where `os.mknod` or `mount -t tmpfs` is not permitted, i.e. when
    the tests do not run as root with CAP_MKNOD / CAP_SYS_ADMIN.
    """
    from wizard.simhost import SimHostError, build_sim_host

    try:
        return build_sim_host(tmp_path / f"sim {variant}", variant)
    except SimHostError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def make_sim(tmp_path: Path) -> Callable[[str], Path]:
    """Factory fixture: `make_sim(variant)` builds a sim host and unmounts it after the test."""
    from wizard.simhost import teardown_sim_host

    built: list[Path] = []

    def make(variant: str) -> Path:
        root = sim_root(tmp_path, variant)
        built.append(root)
        return root

    yield make
    for root in built:
        teardown_sim_host(root)
