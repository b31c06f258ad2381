"""`build_sim_host(disks=True)`: the demo's simulated host passes `check` on this machine too."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wizard.simhost import SimHostError, build_sim_host, teardown_sim_host


@pytest.fixture
def healthy_with_disks(tmp_path):
    try:
        root = build_sim_host(tmp_path / "host with 'quotes' and spaces", "healthy", disks=True)
    except SimHostError as exc:  # not root / no CAP_SYS_ADMIN: tmpfs cannot be mounted
        pytest.skip(f"cannot mount the simulated disks here: {exc}")
    yield root
    teardown_sim_host(root)


def test_disk_check_measures_the_simulated_disks(healthy_with_disks, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "wizard", "--root", str(healthy_with_disks), "--state-dir", str(tmp_path / "state"),
         "check", "--offline", "--json", "--only", "disk"],
        capture_output=True, text=True, timeout=60)
    doc = json.loads(proc.stdout)
    (disk,) = [r for r in doc["results"] if r["id"] == "disk"]
    assert disk["status"] == "ok", disk
    assert disk["summary"] == "2048 GiB free for /var/lib/docker + /data"
    assert proc.returncode == 0


def test_whole_check_of_healthy_sim_host_exits_0(healthy_with_disks, tmp_path):
    # docker still asks this machine's engine: without one the check fails and so does the run.
    proc = subprocess.run(
        [sys.executable, "-m", "wizard", "--root", str(healthy_with_disks), "--state-dir", str(tmp_path / "state"),
         "check", "--offline", "--json"], capture_output=True, text=True, timeout=60)
    doc = json.loads(proc.stdout)
    problems = {r["id"]: r["status"] for r in doc["results"] if r["status"] in ("fail", "error")}
    if set(problems) == {"docker"}:
        pytest.skip("no Docker engine reachable: the docker check fails as it should")
    assert problems == {} and proc.returncode == 0, problems


def test_teardown_unmounts(tmp_path):
    try:
        root = build_sim_host(tmp_path / "h", "healthy", disks=True)
    except SimHostError as exc:
        pytest.skip(f"cannot mount the simulated disks here: {exc}")
    teardown_sim_host(root)
    mounts = open("/proc/self/mounts", encoding="utf-8").read()
    assert str(root / "data") not in mounts and str(root / "var/lib/docker") not in mounts


def test_a_failed_mount_undoes_the_earlier_ones(tmp_path, monkeypatch):
    """All or nothing: tiny-shm with disks, the last disk failing, leaves no tmpfs behind (callers that skip
    or retry on SimHostError, like the demo's fallback without disks, have nothing to tear down)."""
    import wizard.simhost as simhost

    real = simhost._mount_tmpfs
    made: list[str] = []

    def flaky(root, rel, size):
        if rel == "data":
            raise SimHostError("cannot mount a 2T tmpfs at data (simulated failure)")
        try:
            real(root, rel, size)
        except SimHostError as exc:  # a real mount failed: not root here (the earlier ones are undone too)
            pytest.skip(f"cannot mount tmpfs here: {exc}")
        made.append(rel)

    monkeypatch.setattr(simhost, "_mount_tmpfs", flaky)
    root = tmp_path / "host"
    try:
        with pytest.raises(SimHostError, match="simulated failure"):
            build_sim_host(root, "tiny-shm", disks=True)
    finally:
        mounts = open("/proc/self/mounts", encoding="utf-8").read()
        leftover = [ln for ln in mounts.splitlines() if str(tmp_path) in ln]
        teardown_sim_host(root)
    assert made == ["dev/shm", "var/lib/docker"]
    assert leftover == [] and simhost.mounted_points(root) == []
