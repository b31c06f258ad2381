"""`pi05-wizard fix`: no traceback when the container is missing, asking on a terminal, --dry-run."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from tests.remedies_fixtures import TRAIN_SCRIPT, write_train_scripts
from wizard.cli import main
from wizard.cli.output import EXIT_BROKEN_PIPE, quiet_broken_pipe
from wizard.hosts.container import ContainerUnavailable, container_problem

MISSING = container_problem("pi")


class _AbsentContainer:
    """Stand-in for a ContainerHost whose container does not exist: every use raises its sentence."""

    name = "container pi"

    def __getattr__(self, attr):
        def fail(*_a, **_k):
            raise ContainerUnavailable(MISSING, "missing")
        return fail


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_container_fix_without_container_says_the_sentence(tmp_path, monkeypatch, capsys, json_flag):
    from wizard.session import Session

    monkeypatch.setattr(Session, "container_host", lambda self: _AbsentContainer())
    code = main(["--state-dir", str(tmp_path / "state"), "fix", "hub-push-local-path", *json_flag])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    if json_flag:
        doc = json.loads(out)
        assert doc["ok"] is False and doc["message"] == MISSING
    else:
        assert MISSING in out and "run the container stage first" in out


def test_unexpected_error_in_a_fix_is_a_message(tmp_path, monkeypatch, capsys):
    import wizard.remedies.fixes as fixes

    def boom(*_a, **_k):
        raise RuntimeError("engine went away")

    monkeypatch.setattr(fixes, "apply_fix", boom)
    root = tmp_path / "root"
    write_train_scripts(root)
    code = main(["--root", str(root), "--state-dir", str(tmp_path / "s"), "fix", "world-size-mismatch"])
    out = capsys.readouterr().out
    assert code == 1 and "RuntimeError: engine went away" in out


@pytest.fixture
def shm_fix(tmp_path, monkeypatch):
    """`fix shm-too-small` on a --root host, with a recorded recreation and a 64 MiB container."""
    import wizard.remedies.fixes as fixes

    real = fixes.context_from_session
    recreated: list[str] = []

    def ctx_from(session, **kw):
        ctx = real(session, **kw)
        ctx.recreate_container = lambda _c: recreated.append("x") or "recreated"
        ctx.container_shm = lambda: (64 << 20, False)
        return ctx

    monkeypatch.setattr(fixes, "context_from_session", ctx_from)
    (tmp_path / "root").mkdir()
    return ["--root", str(tmp_path / "root"), "--state-dir", str(tmp_path / "s"), "fix", "shm-too-small"], recreated


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_fix_asks_on_a_terminal(shm_fix, monkeypatch, capsys):
    argv, recreated = shm_fix
    asked: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Tty())
    monkeypatch.setattr("builtins.input", lambda q: asked.append(q) or "n")
    assert main(argv) == 1 and not recreated
    assert "64.0 MiB" in asked[0] and "500g" in asked[0] and asked[0].endswith("[y/N] ")
    assert "re-run with --yes" not in capsys.readouterr().out
    monkeypatch.setattr("builtins.input", lambda q: asked.append(q) or "y")
    assert main(argv) == 0 and recreated == ["x"]
    assert "recreated with --shm-size 500g" in capsys.readouterr().out


def test_fix_without_terminal_says_rerun_with_yes(shm_fix, monkeypatch, capsys):
    argv, recreated = shm_fix
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr("builtins.input", lambda q: pytest.fail("asked without a terminal"))
    assert main(argv) == 1 and not recreated
    out = capsys.readouterr().out
    assert "re-run with --yes to confirm" in out
    # what the container has next to the recipe's value, not "after setting container.shm_size"
    assert "has /dev/shm of 64.0 MiB" in out and "container.shm_size is 500g" in out
    assert "after setting" not in out
    assert main(argv + ["--yes"]) == 0 and recreated == ["x"]


def test_dry_run_changes_nothing(shm_fix, tmp_path, capsys):
    argv, recreated = shm_fix
    assert main(argv + ["--dry-run"]) == 0 and not recreated
    out = capsys.readouterr().out
    assert "Dry run: nothing was changed" in out and "would remove container and create it again" in out

    root = tmp_path / "root2"
    scripts = write_train_scripts(root)
    base = ["--root", str(root), "--state-dir", str(tmp_path / "s2"), "fix", "world-size-mismatch"]
    assert main(base + ["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert (scripts / "train_full.sh").read_text() == TRAIN_SCRIPT
    assert not list(scripts.glob("*.orig")) and not (tmp_path / "s2" / "remedies").exists()
    assert "would write" in out and "+world_size=8" in out.replace(" ", "").replace("export", "")


def test_broken_pipe_is_quiet(capsys):
    @quiet_broken_pipe
    def handler():
        raise BrokenPipeError

    assert handler() == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("cmd", [["config"], ["explain", "-"]])
def test_closed_pipe_no_traceback(cmd, tmp_path):
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first line is written
    try:
        proc = subprocess.run([sys.executable, "-m", "wizard", "--state-dir", str(tmp_path), *cmd],
                              stdout=w, stderr=subprocess.PIPE, input=b"error: patch failed: a.py:3\n",
                              timeout=60, cwd=os.path.dirname(os.path.dirname(__file__)))
    finally:
        os.close(w)
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr
    # config's handler is wrapped (EXIT_BROKEN_PIPE, 0); Rich (explain's text output) raises SystemExit(1) from the broken
    # pipe itself, which main() turns into its quiet exit 0
    assert proc.returncode == 0 == EXIT_BROKEN_PIPE
