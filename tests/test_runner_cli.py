"""`pi05-wizard run/status/logs` end to end in subprocesses, with test stages from the dev hook."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from runner_fixtures import pid_exists
from runner_stages import HERE

ROOT = str(Path(HERE).parent)


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PI05_WIZARD_EXTRA_STAGES": "runner_stages:stages",
                "PYTHONPATH": os.pathsep.join([ROOT, HERE]), "XDG_CONFIG_HOME": str(tmp / "xdg"),
                "COLUMNS": "200"}, **extra)
    return env


def _cli(tmp: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wizard", "--state-dir", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=_env(tmp), cwd=ROOT, timeout=60, **kw)


def _spawn(tmp: Path, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "wizard", "--state-dir", str(tmp / "state"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(tmp, **env),
                            cwd=ROOT)


def _wait_for(pred, within: float = 20.0):
    end = time.monotonic() + within
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def _child_pid(tmp: Path) -> int | None:
    logs = list((tmp / "state" / "logs").glob("t-sleep-*.log")) if (tmp / "state" / "logs").exists() else []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if " out  child pid " in line:
                return int(line.rsplit(" ", 1)[1])
    return None


def _status(tmp: Path) -> dict:
    res = _cli(tmp, "status", "--json")
    assert res.returncode == 0, res.stderr
    return {s["id"]: s for s in json.loads(res.stdout)["stages"]}


def test_run_status_logs_and_failure(tmp_path):
    res = _cli(tmp_path, "run", "t-fail")  # its dependency has not run
    assert res.returncode == 1 and "t-fail needs t-ok first" in res.stdout
    res = _cli(tmp_path, "run", "t-ok", "t-fail")
    assert res.returncode == 1, res.stdout + res.stderr
    out = res.stdout
    assert "▶ [1/1] say hello" in out and "hello from t-ok" in out and "✓ stage t-ok succeeded" in out
    assert '✗ stage t-fail failed at step 1 "fail": exit code 3' in out
    assert f"re-run with: pi05-wizard --state-dir {tmp_path / 'state'} run t-fail" in out
    st = _status(tmp_path)
    assert st["t-ok"]["status"] == "succeeded" and st["t-fail"]["status"] == "failed"
    assert st["t-fail"]["record"]["exit_code"] == 3 and st["t-sleep"]["status"] == "pending"
    assert st["cann"]["status"] == "pending"  # the registry's stages are listed too
    assert "known problems" in _cli(tmp_path, "status").stdout
    logs = _cli(tmp_path, "logs", "t-ok")
    assert logs.returncode == 0 and " out  hello from t-ok" in logs.stdout
    assert _cli(tmp_path, "logs", "t-sleep").returncode == 1
    assert _cli(tmp_path, "logs", "nope").returncode == 2
    assert _cli(tmp_path, "run", "nope").returncode == 2
    assert _cli(tmp_path, "run").returncode == 2


def test_kill_9_mid_stage_reads_interrupted_and_leaves_no_orphan(tmp_path):
    wiz = _spawn(tmp_path, "run", "t-sleep")
    try:
        child = _wait_for(lambda: _child_pid(tmp_path))
        assert _status(tmp_path)["t-sleep"]["status"] == "running"
        # A second wizard that would run stages is refused, naming the holder; read-only commands work.
        second = _cli(tmp_path, "run", "t-ok")
        assert second.returncode == 2 and f"pid {wiz.pid}" in second.stderr
        assert _cli(tmp_path, "logs", "t-sleep").returncode == 0
        os.kill(wiz.pid, signal.SIGKILL)
        wiz.wait(10)
    finally:
        if wiz.poll() is None:
            wiz.kill()
    st = _status(tmp_path)["t-sleep"]
    assert st["status"] == "interrupted" and st["record"]["pid"] == wiz.pid
    raw = json.loads((tmp_path / "state" / "stages" / "t-sleep.json").read_text())
    assert raw["status"] == "running"  # the file parses; the reader resolves the dead pid
    _wait_for(lambda: not pid_exists(child), within=5)
    # The lock died with the wizard: the stage can be re-run right away.
    res = subprocess.run([sys.executable, "-m", "wizard", "--state-dir", str(tmp_path / "state"), "run", "t-sleep"],
                         capture_output=True, text=True, env=_env(tmp_path, SLEEP_S="0"), cwd=ROOT, timeout=60)
    assert res.returncode == 0 and "woke up" in res.stdout
    assert _status(tmp_path)["t-sleep"]["status"] == "succeeded"


def test_ctrl_c_cancels_and_exits_130(tmp_path):
    wiz = _spawn(tmp_path, "run", "t-sleep")
    try:
        child = _wait_for(lambda: _child_pid(tmp_path))
        follow = _spawn(tmp_path, "logs", "t-sleep", "--follow")
        time.sleep(0.3)
        wiz.send_signal(signal.SIGINT)
        out, err = wiz.communicate(timeout=20)
        f_out, _ = follow.communicate(timeout=20)
    finally:
        for p in (wiz,):
            if p.poll() is None:
                p.kill()
    assert wiz.returncode == 130, out + err
    assert "cancelled" in out and f"re-run with: pi05-wizard --state-dir {tmp_path / 'state'} run t-sleep" in out
    assert _status(tmp_path)["t-sleep"]["status"] == "cancelled"
    assert not pid_exists(child)
    assert follow.returncode == 0 and " out  child pid " in f_out and "stage t-sleep cancelled" in f_out
