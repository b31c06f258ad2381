"""`pi05-wizard demo`: simulated 2 TiB disks (or a note why not), always unmounted, honest about Docker."""

from __future__ import annotations

import argparse
import re
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


def _mounted_under(path: Path) -> list[str]:
    """Mount points under `path` (/proc/self/mounts escapes spaces and such as octal, e.g. `\\040`)."""
    lines = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    points = [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), ln.split()[1]) for ln in lines]
    return [p for p in points if p.startswith(str(path))]


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
    args = prepare(tmp_path / "demo base", note=notes.append)
    try:
        assert notes == [] and len(_mounted_under(tmp_path / "demo base")) == 2
        (disk,) = run_preflight(Session.from_args(args), only=["disk"], offline=True)
        assert disk.status.value == "ok" and disk.summary == "2048 GiB free for /var/lib/docker + /data"
    finally:
        teardown_sim_host(args.root)
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
    assert _mounted_under(root) == []
    assert root.exists() is keep
    err = capsys.readouterr().err
    assert err.count(DEMO_NOTE) == 2  # said before the TUI opens and after it closes


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
