"""StateStore records (atomic, interrupted detection, hostile files) and the WizardLock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from wizard.locations import Locations
from wizard.state import (FailedStep, LockHeld, StageRecord, StageStatus, StateStore, WizardLock,
                          atomic_write_text, utcnow)


ROOT = Path(__file__).resolve().parents[1]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_save_last_all_history_roundtrip(tmp_path):
    store = StateStore(Locations.under(tmp_path))
    assert store.last("cann") is None and store.all() == {} and store.history() == []
    t0 = utcnow()
    run = StageRecord(stage_id="cann", status=StageStatus.RUNNING, started=t0, pid=os.getpid(), host="local")
    store.save(run)
    assert store.last("cann").status is StageStatus.RUNNING  # our pid is alive
    done = run.model_copy(update={"status": StageStatus.FAILED, "finished": t0 + timedelta(seconds=90),
                                  "exit_code": 2, "failed_step": FailedStep(index=1, title="Install toolkit"),
                                  "remedies": ["numpy-2"], "log_path": "/tmp/x.log"})
    store.save(done)
    store.save(StageRecord(stage_id="torch", status=StageStatus.SUCCEEDED, started=t0, finished=t0))
    assert store.last("cann") == done and done.duration_s == 90.0
    assert list(store.all()) == ["cann", "torch"]
    assert [r.status for r in store.history("cann")] == [StageStatus.RUNNING, StageStatus.FAILED]
    data = json.loads(store.path("cann").read_text())
    assert data["failed_step"] == {"index": 1, "title": "Install toolkit"} and data["status"] == "failed"
    assert not [p for p in store.locations.stages_dir.iterdir() if p.name.startswith(".")]  # no temp files left


def test_running_with_dead_pid_reads_interrupted(tmp_path):
    store = StateStore(Locations.under(tmp_path))
    store.save(StageRecord(stage_id="torch", status=StageStatus.RUNNING, started=utcnow(), pid=_dead_pid()))
    rec = store.last("torch")
    assert rec.status is StageStatus.INTERRUPTED and "died mid-run" in rec.reason
    assert store.all()["torch"].status is StageStatus.INTERRUPTED
    assert store.history("torch")[0].status is StageStatus.RUNNING  # history keeps what was written


@pytest.mark.parametrize("content", [b"", b"{", b"\x00\xff binary", b'{"stage_id": "x"}', b"[1,2]",
                                     b'{"stage_id":"x","status":"exploded"}', b"9" * 100000])
def test_hostile_state_files_read_as_absent(tmp_path, content):
    loc = Locations.under(tmp_path)
    loc.stages_dir.mkdir(parents=True)
    (loc.stages_dir / "x.json").write_bytes(content)
    (loc.state_dir / "history.jsonl").write_bytes(content + b"\n" + content)
    store = StateStore(loc)
    assert store.last("x") is None and store.all() == {} and store.history() == []


def test_stage_ids_cannot_escape(tmp_path):
    store = StateStore(Locations.under(tmp_path))
    for bad in ("../etc", "", ".hidden", "a/b"):
        with pytest.raises(ValueError):
            store.path(bad)
        assert store.last(bad) is None


def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "sub" / "f.json"
    atomic_write_text(p, "old")
    atomic_write_text(p, "new content")
    assert p.read_text() == "new content" and os.listdir(p.parent) == ["f.json"]


def test_lock_second_holder_is_named(tmp_path):
    loc = Locations.under(tmp_path)
    code = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from wizard.locations import Locations
        from wizard.state import WizardLock
        lock = WizardLock(Locations.under({str(tmp_path)!r}))
        lock.acquire()
        print("held", flush=True)
        time.sleep(60)
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        lock = WizardLock(loc)
        assert lock.holder() == holder.pid
        with pytest.raises(LockHeld) as info:
            lock.acquire()
        assert info.value.pid == holder.pid and f"pid {holder.pid}" in str(info.value)
    finally:
        holder.kill()
        holder.wait()
    # The kernel released the dead holder's lock: we get it, and the pid file names us.
    with WizardLock(loc) as lock:
        assert lock.holder() == os.getpid()
        assert loc.lock_file.read_text().strip() == str(os.getpid())
    assert WizardLock(loc).holder() is None
