"""Without a terminal (output piped, input redirected) the wizard refuses at once with one line, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from screens.app import NO_TERMINAL, has_terminal

ROOT = Path(__file__).resolve().parent.parent


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    env.update(XDG_STATE_HOME=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "config"), **extra)
    return env


@pytest.mark.parametrize("argv", [[], ["demo"]], ids=["wizard", "demo"])
def test_piped_output_is_refused_with_one_line_and_exit_2(tmp_path, argv):
    proc = subprocess.run([sys.executable, "-m", "wizard", "--state-dir", str(tmp_path / "wiz"), *argv],
                          cwd=ROOT, env=_env(tmp_path, TMPDIR=str(tmp_path)), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""  # no escape codes written into the pipe
    assert proc.stderr.strip() == NO_TERMINAL
    assert not any(p.name.startswith("pi05-wizard-demo-") for p in tmp_path.iterdir())  # the demo built nothing


def test_textual_serve_driver_counts_as_a_terminal(monkeypatch):
    # textual-serve starts `python -m wizard` with pipes and TEXTUAL_DRIVER=...WebDriver (serve_cmd.app_command).
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert has_terminal() is True
    monkeypatch.delenv("TEXTUAL_DRIVER")
    assert has_terminal() is False  # pytest captures stdout: not a terminal
