"""`pi05-wizard ... | head`: a reader that closes the pipe early ends the command quietly, exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)


def _piped_into_closed_reader(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """Run the CLI with stdout a pipe whose read end is already closed (what `| head` leaves)."""
    read_fd, write_fd = os.pipe()
    os.close(read_fd)  # the reader is gone before the first write
    env = dict(os.environ, PYTHONPATH=ROOT, XDG_CONFIG_HOME=str(tmp_path / "xdg"),
               XDG_STATE_HOME=str(tmp_path / "state"), COLUMNS="80")
    try:
        return subprocess.run([sys.executable, "-m", "wizard", *argv], stdout=write_fd, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=ROOT, timeout=60)
    finally:
        os.close(write_fd)


def test_plan_into_a_closed_pipe_exits_0_without_a_traceback(tmp_path):
    proc = _piped_into_closed_reader(tmp_path, "plan", "--json", "preflight")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no traceback, no "Exception ignored ... BrokenPipeError"


def test_status_into_a_closed_pipe_exits_0_without_a_traceback(tmp_path):
    proc = _piped_into_closed_reader(tmp_path, "status")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_head_reads_the_first_line_and_the_rest_is_dropped_quietly(tmp_path):
    """The real shape: `pi05-wizard plan | head -1` (a long output, the reader stops after one line)."""
    env = dict(os.environ, PYTHONPATH=ROOT, XDG_CONFIG_HOME=str(tmp_path / "xdg"),
               XDG_STATE_HOME=str(tmp_path / "state"))
    writer = subprocess.Popen([sys.executable, "-m", "wizard", "plan", "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, cwd=ROOT)
    first = writer.stdout.readline()
    writer.stdout.close()
    err = writer.stderr.read().decode()
    assert writer.wait(timeout=60) == 0 and first.strip() == b"{"
    assert "Traceback" not in err and "BrokenPipeError" not in err
