"""`build_sim_host` options the container tests use: chip count, machine, QEMU stub, left-out paths,
and an npu-smi that answers from where the container mounts it."""

from __future__ import annotations

import shutil
import subprocess

from container_fixtures import SIM_DATA, sim_host
from wizard.hosts.local import LocalHost


def test_npus_machine_qemu_and_missing(tmp_path):
    root = sim_host(tmp_path / "sim host", npus=16, machine="x86_64", qemu=True,
                    missing=("/usr/local/dcmi", "/dev/davinci15", "/etc/timezone"))
    host = LocalHost(root)
    assert host.stat("/dev/davinci14").kind == "char"
    assert host.stat("/dev/davinci15") is None and host.stat("/usr/local/dcmi") is None
    assert host.stat("/etc/timezone") is None and host.stat("/etc/localtime").kind == "file"
    assert host.run(["uname", "-m"], timeout=10).stdout.strip() == "x86_64"
    assert host.stat("/usr/bin/qemu-aarch64-static").kind == "file"
    assert host.stat(SIM_DATA).kind == "dir"


def test_default_has_every_container_mount_source(tmp_path):
    from wizard.container.spec import build_spec, settings_from_recipe
    from wizard.recipe import default_recipe

    root = sim_host(tmp_path / "sim")
    settings = settings_from_recipe(default_recipe())
    spec = build_spec(settings, LocalHost(root))
    assert spec.warnings == () and spec.variant == "native" and len(spec.devices) == 11
    assert LocalHost(root).stat("/usr/bin/qemu-aarch64-static") is None


def test_npu_smi_answers_from_a_mounted_copy(tmp_path):
    root = sim_host(tmp_path / "sim")
    # what the container sees: /usr/local/sbin and /usr/local/bin/npu-smi mounted elsewhere, no /.sim
    other = tmp_path / "container"
    shutil.copytree(root / "usr/local/sbin", other / "usr/local/sbin", symlinks=True)
    (other / "usr/local/bin").mkdir(parents=True)
    shutil.copy2(root / "usr/local/bin/npu-smi", other / "usr/local/bin/npu-smi")
    for cmd in (other / "usr/local/sbin/npu-smi", other / "usr/local/bin/npu-smi"):
        out = subprocess.run([str(cmd), "info"], capture_output=True, text=True, timeout=10)
        assert out.returncode == 0 and "910B3" in out.stdout, out.stderr
