"""The runner's timeouts and cancel: SIGTERM to the whole group, SIGKILL after the grace period, no orphans."""

from __future__ import annotations

import threading
import time

from runner_fixtures import Collect, pid_exists, py, run, stage
from wizard.state import StageStatus

# A child that starts a grandchild in the same group, reports both pids, then hangs.
HANG = ("import os,subprocess,sys,time\n"
        "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('pids', os.getpid(), g.pid, flush=True)\n"
        "time.sleep(60)")
STUBBORN = ("import os,signal,subprocess,sys,time\n"
            "signal.signal(signal.SIGTERM, lambda *a: print('ignoring TERM', flush=True))\n"
            "g = subprocess.Popen([sys.executable, '-c', "
            "'import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
            "print('pids', os.getpid(), g.pid, flush=True)\n"
            "while True: time.sleep(0.05)")


def _pids(sink: Collect) -> list[int]:
    line = next(t for t in sink.texts("stdout") if t.startswith("pids "))
    return [int(x) for x in line.split()[1:]]


def _gone(pids, within=3.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not any(pid_exists(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_timeout_terminates_the_group(tmp_path):
    sink = Collect()
    start = time.monotonic()
    rec, store = run(tmp_path, stage(py(HANG, timeout_s=1.0, title="hangs")), [sink])
    took = time.monotonic() - start
    assert rec.status is StageStatus.FAILED and rec.reason.startswith("timed out after")
    assert rec.failed_step.title == "hangs" and rec.exit_code is None
    assert took < 4.0  # SIGTERM was enough: no grace period waited
    assert _gone(_pids(sink))
    assert any(t.startswith("! timed out: sending SIGTERM") for t in sink.texts("wizard"))
    assert store.last("demo").status is StageStatus.FAILED


def test_sigterm_ignored_gets_sigkill_after_grace(tmp_path):
    sink = Collect()
    start = time.monotonic()
    rec, _ = run(tmp_path, stage(py(STUBBORN, timeout_s=1.0)), [sink], grace_s=1.0)
    took = time.monotonic() - start
    assert rec.status is StageStatus.FAILED and "timed out" in rec.reason
    assert 2.0 <= took < 6.0
    assert "ignoring TERM" in sink.texts("stdout")
    assert "! still running after the grace period: sending SIGKILL" in sink.texts("wizard")
    assert _gone(_pids(sink))


def test_cancel_from_another_thread(tmp_path):
    sink = Collect()
    cancel = threading.Event()
    threading.Timer(0.8, cancel.set).start()
    later = py("print('must not run')", title="later")
    rec, store = run(tmp_path, stage(py(HANG, timeout_s=None), later), [sink], cancel=cancel)
    assert rec.status is StageStatus.CANCELLED and rec.failed_step.index == 0
    assert rec.reason == "cancelled by the operator"
    assert "must not run" not in sink.texts("stdout")
    assert _gone(_pids(sink))
    assert store.last("demo").status is StageStatus.CANCELLED
    assert sink.events[-2] == ("stage_finished", "demo", "cancelled")


def test_cancel_before_start_runs_nothing(tmp_path):
    cancel = threading.Event()
    cancel.set()
    sink = Collect()
    rec, _ = run(tmp_path, stage(py("print('x')")), [sink], cancel=cancel)
    assert rec.status is StageStatus.CANCELLED and sink.texts("stdout") == []


def test_leader_exits_while_a_background_child_holds_the_pipe(tmp_path):
    # `sh -c 'sleep 60 & echo done'`: the leader exits at once; the sleeper keeps stdout open.
    code = ("import subprocess,sys\n"
            "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print('pids', g.pid, flush=True)")
    sink = Collect()
    start = time.monotonic()
    rec, _ = run(tmp_path, stage(py(code)), [sink], grace_s=1.0)
    assert rec.status is StageStatus.SUCCEEDED and rec.exit_code == 0
    assert time.monotonic() - start < 5.0
    assert _gone(_pids(sink))  # the straggler was killed with its group


def test_a_sink_exception_in_the_hot_path_still_kills_the_child(tmp_path):
    class Boom(Collect):
        def line(self, line):
            super().line(line)
            if line.text.startswith("pids"):
                raise KeyboardInterrupt  # not an Exception: escapes the sink guard

    sink = Boom()
    try:
        run(tmp_path, stage(py(HANG)), [sink])
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("KeyboardInterrupt was swallowed")
    assert _gone(_pids(sink))
    from wizard.locations import Locations
    from wizard.state import StateStore

    rec = StateStore(Locations.under(tmp_path)).last("demo")
    assert rec.status is StageStatus.CANCELLED and rec.reason == "cancelled (Ctrl-C)"
