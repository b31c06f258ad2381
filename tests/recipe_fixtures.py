"""Shared helpers for recipe, stage and plan tests: isolated locations, a CLI runner, a fake host."""

from __future__ import annotations

import importlib
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import pytest

from checks.host import CommandResult, PathInfo

SHARED = Path("/work/shared")
SAMPLES = SHARED / "samples"
CASES = SHARED / "cases"


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A tmp folder standing in for the user's config dir (XDG_CONFIG_HOME) and state dir."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    return tmp_path


def user_recipe_path(tmp_path: Path) -> Path:
    """Where the user's override lives under `isolated`."""
    return tmp_path / "xdg-config" / "pi05-wizard" / "recipe.toml"


def run_cli(argv: Sequence[str], monkeypatch) -> tuple[int, str, str]:
    """Run `pi05-wizard ARGV` in-process; (exit code, stdout, stderr).

    Subcommand modules another helper has not delivered yet are left out of the parser, so these
    tests exercise our commands whatever the rest of the tree holds.
    """
    import wizard.cli as cli

    present = []
    for name in cli.COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        present.append(name)
    monkeypatch.setattr(cli, "COMMAND_MODULES", tuple(present))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@dataclass
class FakeHost:
    """A Host with canned files and command outputs (the container, in stage tests).

    Attributes:
        files: path -> text.
        commands: a function argv -> CommandResult (None: command not found).
    """

    files: dict[str, str] = field(default_factory=dict)
    commands: Callable[[list[str]], CommandResult | None] = lambda argv: None
    name: str = "fake"
    calls: list[list[str]] = field(default_factory=list)

    def read_text(self, path: str, max_bytes: int = 1 << 20) -> str:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path][:max_bytes]

    def stat(self, path: str) -> PathInfo | None:
        if path in self.files:
            return PathInfo(path=path, kind="file")
        if any(p.startswith(path.rstrip("/") + "/") for p in self.files):
            return PathInfo(path=path, kind="dir")
        return None

    def listdir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix):].split("/")[0] for p in self.files if p.startswith(prefix)})

    def disk_usage(self, path):  # pragma: no cover - unused by stages
        return None

    def which(self, name: str) -> str | None:  # pragma: no cover - unused by stages
        return None

    def run(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
            cwd: str | None = None) -> CommandResult:
        self.calls.append(list(argv))
        res = self.commands(list(argv))
        if res is None:
            return CommandResult(argv=tuple(argv), returncode=None, not_found=True)
        return res

    def environ(self) -> Mapping[str, str]:  # pragma: no cover
        return dict(os.environ)


def ok(stdout: str = "", code: int = 0, stderr: str = "") -> CommandResult:
    """A finished command."""
    return CommandResult(argv=(), returncode=code, stdout=stdout, stderr=stderr)
