"""`pi05-wizard demo`: simulated 2 TiB disks (or a note why not), always unmounted, honest about Docker."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import screens.app
import wizard.simhost
from wizard.cli import UsageError
from wizard.cli.demo_cmd import DEMO_NOTE, handle, prepare
from wizard.preflight_run import run_preflight
from wizard.session import Session
from wizard.simhost import SimHostError, teardown_sim_host

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _as_if_on_a_terminal(monkeypatch):
    """pytest's stdin/stdout are not terminals; the demo refuses those (tested in test_tui_no_terminal)."""
    monkeypatch.setattr(screens.app, "has_terminal", lambda: True)


def _mounted_under(path: Path) -> list[str]:
    """Mount points under `path` (/proc/self/mounts escapes spaces and such as octal, e.g. `\\040`)."""
    lines = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    points = [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), ln.split()[1]) for ln in lines]
    return [p for p in points if p.startswith(str(path))]


def _dead_pid() -> int:
    """The pid of a process that has exited (and was reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _can_mount(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe)], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", str(probe)], capture_output=True)
    return ok


def test_prepare_mounts_the_disks_the_disk_check_measures(tmp_path):
    if not _can_mount(tmp_path):
        pytest.skip("tmpfs cannot be mounted here")
    notes: list[str] = []
    try:
        args = prepare(tmp_path / "demo base", note=notes.append)
        assert notes == [] and len(_mounted_under(tmp_path / "demo base")) == 2
        (disk,) = run_preflight(Session.from_args(args), only=["disk"], offline=True)
        assert disk.status.value == "ok" and disk.summary == "2048 GiB free for /var/lib/docker + /data"
    finally:
        teardown_sim_host(tmp_path / "demo base" / "host")
    assert _mounted_under(tmp_path / "demo base") == []


def test_prepare_without_mount_permission_goes_on_with_a_note(tmp_path, monkeypatch):
    real = wizard.simhost.build_sim_host

    def no_mount(root, variant="healthy", disks=False, **kw):
        if disks:
            raise SimHostError("cannot mount a 2T tmpfs at /x (permission denied); needs root with CAP_SYS_ADMIN")
        return real(root, variant, disks=False, **kw)

    monkeypatch.setattr(wizard.simhost, "build_sim_host", no_mount)
    notes: list[str] = []
    args = prepare(tmp_path, note=notes.append)
    assert Path(args.root, "usr/local/sbin/npu-smi").exists()
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "no simulated 2 TiB disks" in notes[0] and "this machine's disks" in notes[0]


def test_prepare_that_cannot_build_at_all_is_a_usage_error(tmp_path, monkeypatch):
    def never(root, variant="healthy", disks=False, **kw):
        raise SimHostError("cannot create character device (not root)")

    monkeypatch.setattr(wizard.simhost, "build_sim_host", never)
    with pytest.raises(UsageError, match="cannot build the simulated host"):
        prepare(tmp_path, note=lambda _: None)


def test_unknown_variant_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="unknown sim host variant"):
        prepare(tmp_path, "no-such-variant", note=lambda _: None)
    assert _mounted_under(tmp_path) == []


@pytest.mark.parametrize("keep", [False, True])
def test_disks_are_unmounted_on_ctrl_c(tmp_path, monkeypatch, capsys, keep):
    if not _can_mount(tmp_path):
        pytest.skip("tmpfs cannot be mounted here")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: dict[str, object] = {}

    def app_interrupted(args, demo=False):
        seen["root"], seen["mounts"], seen["demo"] = Path(args.root), _mounted_under(Path(args.root)), demo
        raise KeyboardInterrupt

    monkeypatch.setattr(screens.app, "run_app", app_interrupted)
    with pytest.raises(KeyboardInterrupt):
        handle(argparse.Namespace(variant="healthy", keep=keep, recipe=None))
    root = seen["root"]
    assert seen["demo"] is True and len(seen["mounts"]) == 2  # the app ran with the disks mounted
    assert root.exists() is keep
    err = capsys.readouterr().err
    assert err.count(DEMO_NOTE) == 1  # said once, after the TUI closes (not hidden under it, not twice)
    if not keep:
        assert _mounted_under(root) == []
        return
    # --keep keeps the disks mounted and says how to undo it; --cleanup does, once the owner is gone.
    assert _mounted_under(root) == seen["mounts"]
    assert "tmpfs disks stay mounted (2)" in err and "pi05-wizard demo --cleanup" in err and "umount " in err
    base = root.parent
    (base / "pid").write_text(f"{_dead_pid()}\n")
    assert handle(argparse.Namespace(cleanup=True)) == 0
    assert not base.exists() and _mounted_under(base) == []


def test_exit_code_is_the_apps_and_the_folder_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(screens.app, "run_app", lambda args, demo=False: 7)
    assert handle(argparse.Namespace(variant="healthy", keep=False, recipe=None)) == 7
    assert not any(p.name.startswith("pi05-wizard-demo-") for p in tmp_path.iterdir())


def test_help_says_which_stages_use_the_real_docker_engine():
    proc = subprocess.run([sys.executable, "-m", "wizard", "demo", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=30)
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0
    assert "container stage and every stage after it use this machine's real Docker engine" in text
    assert "real Docker engine" in DEMO_NOTE and "network" in DEMO_NOTE


def test_help_lists_every_variant_with_its_meaning_and_how_to_pick_one():
    from wizard.simhost import VARIANT_MEANINGS, VARIANTS

    proc = subprocess.run([sys.executable, "-m", "wizard", "demo", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=30)
    assert proc.returncode == 0 and "--variant NAME" in proc.stdout and "--cleanup" in proc.stdout
    assert set(VARIANT_MEANINGS) == set(VARIANTS)
    for v in VARIANTS:
        assert any(ln.split()[:1] == [v] and VARIANT_MEANINGS[v] in ln for ln in proc.stdout.splitlines()), v
    assert "pi05-wizard demo --variant tiny-shm" in proc.stdout


def test_start_removes_stale_demo_folders_but_not_live_or_kept_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale, live, kept = (tmp_path / f"pi05-wizard-demo-{n}" for n in ("stale", "live", "kept"))
    for d, pid in ((stale, _dead_pid()), (live, os.getppid()), (kept, _dead_pid())):
        d.mkdir()
        (d / "pid").write_text(f"{pid}\n")
    (kept / "kept").write_text("")
    mounted = _can_mount(tmp_path)
    try:
        if mounted:
            wizard.simhost.build_sim_host(stale / "host", "healthy", disks=True)
            assert len(_mounted_under(stale)) == 2
        monkeypatch.setattr(screens.app, "run_app", lambda args, demo=False: 0)
        assert handle(argparse.Namespace(variant="healthy", keep=False, recipe=None)) == 0
        assert not stale.exists() and live.exists() and kept.exists()
        assert _mounted_under(tmp_path) == []
    finally:  # the stale disks stay mounted if handle() failed before removing them
        wizard.simhost.teardown_sim_host(stale / "host")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_unmount_and_remove_the_demo_folder(tmp_path, sig):
    if not _can_mount(tmp_path):
        pytest.skip("tmpfs cannot be mounted here")
    # The demo with the TUI replaced by a wait, so the test can signal it while the disks are mounted.
    script = ("import sys, time, screens.app, argparse\n"
              "def app(args, demo=False):\n"
              "    print(args.root, flush=True)\n"
              "    time.sleep(60)\n"
              "    return 0\n"
              "screens.app.run_app = app\n"
              "screens.app.has_terminal = lambda: True\n"
              "from wizard.cli.demo_cmd import handle\n"
              "sys.exit(handle(argparse.Namespace(variant='healthy', keep=False, recipe=None)))\n")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        root = Path(proc.stdout.readline().strip())
        assert len(_mounted_under(root)) == 2
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == 128 + sig
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _mounted_under(tmp_path) == [] and not root.parent.exists()
    assert not any(p.name.startswith("pi05-wizard-demo-") for p in tmp_path.iterdir() if p.name != "probe")
