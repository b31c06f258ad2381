"""The desired container built from the recipe and a simulated host (no Docker engine needed)."""

from __future__ import annotations

import os
import tempfile

import pytest

from container_fixtures import sim_host
from wizard.container.lifecycle import compare, human_bytes
from wizard.container.spec import (MANAGER_DEVICES, ContainerSettings, SpecError, build_spec, docker_create_kwargs,
                                   docker_size, real_path_of, settings_from_recipe)
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe


@pytest.fixture(scope="module")
def recipe():
    with tempfile.TemporaryDirectory() as d:
        return load_recipe(Locations.under(d))


@pytest.fixture
def settings(recipe):
    return settings_from_recipe(recipe).model_copy(update={"data_dir": "/data/pi05"})


def test_settings_from_default_recipe(recipe):
    s = settings_from_recipe(recipe)
    assert s.name == "pi" and s.privileged and s.network_mode == "host"
    assert s.shm_size == 500 * 1024**3
    assert s.platform == "linux/arm64" and s.image.endswith("cann:8.1.rc1-910b-ubuntu22.04-py3.10")
    assert s.npu_count == 8 and s.extra_devices == MANAGER_DEVICES
    targets = [m.target for m in s.mounts]
    for t in ("/usr/local/Ascend/driver", "/usr/local/Ascend/firmware", "/usr/local/sbin/npu-smi", "/usr/local/sbin",
              "/etc/hccn.conf", "/etc/localtime", "/usr/local/Ascend/driver/lib64", "/usr/local/dcmi",
              "/etc/ascend_install.info", "/usr/local/Ascend/driver/version.info"):
        assert t in targets
    assert [m.target for m in s.qemu_mounts] == ["/usr/bin/qemu-aarch64-static", "/etc/timezone", "/etc/localtime"]


def test_native_spec_on_healthy_sim_host(tmp_path, settings):
    root = sim_host(tmp_path / "sim host")
    spec = build_spec(settings, LocalHost(root))
    assert spec.variant == "native"
    assert spec.devices == tuple(f"/dev/davinci{n}" for n in range(8)) + MANAGER_DEVICES
    assert {m.target for m in spec.mounts} == {m.target for m in settings.mounts} | {"/data"}
    assert spec.warnings == ()
    text = spec.run_command()
    assert "--privileged" in text and "--net=host" in text and "--shm-size 500g" in text
    assert "--device=/dev/davinci7" in text and "-v /data/pi05:/data" in text


def test_sixteen_npus_are_all_passed(tmp_path, settings):
    root = sim_host(tmp_path / "sim", npus=16)
    spec = build_spec(settings, LocalHost(root))
    assert spec.devices[:16] == tuple(f"/dev/davinci{n}" for n in range(16))


def test_missing_mount_source_is_left_out_with_a_warning(tmp_path, settings):
    root = sim_host(tmp_path / "sim", missing=("/usr/local/dcmi", "/etc/hccn.conf"))
    spec = build_spec(settings, LocalHost(root))
    targets = {m.target for m in spec.mounts}
    assert "/usr/local/dcmi" not in targets and "/etc/hccn.conf" not in targets
    assert len(spec.warnings) == 2
    assert any("/usr/local/dcmi" in w and "does not exist" in w for w in spec.warnings)
    assert any("/etc/hccn.conf" in w for w in spec.warnings)


@pytest.mark.parametrize("missing,needle", [
    (("/dev/davinci3",), "/dev/davinci3"),
    (("/dev/devmm_svm",), "/dev/devmm_svm"),
    (("/dev/hisi_hdc", "/dev/davinci_manager"), "/dev/hisi_hdc"),
    (tuple(f"/dev/davinci{n}" for n in range(8)), "no NPU device"),
])
def test_missing_npu_device_is_an_error(tmp_path, settings, missing, needle):
    root = sim_host(tmp_path / "sim", missing=missing)
    with pytest.raises(SpecError) as info:
        build_spec(settings, LocalHost(root))
    assert any(needle in p for p in info.value.problems)


def test_fewer_chips_than_the_recipe_wants_is_an_error(tmp_path, settings):
    root = sim_host(tmp_path / "sim", npus=4)
    with pytest.raises(SpecError) as info:
        build_spec(settings, LocalHost(root))
    assert "/dev/davinci4" in str(info.value) and "/dev/davinci7" in str(info.value)


def test_device_that_is_not_a_char_device_is_an_error(tmp_path, settings):
    root = sim_host(tmp_path / "sim", missing=("/dev/davinci5",))
    (root / "dev/davinci5").write_text("not a device")
    with pytest.raises(SpecError) as info:
        build_spec(settings, LocalHost(root))
    assert "/dev/davinci5 is not a character device (file)" in str(info.value)


def test_qemu_variant_on_x86_64(tmp_path, settings):
    root = sim_host(tmp_path / "sim", npus=0, machine="x86_64", qemu=True,
                              missing=MANAGER_DEVICES + ("/etc/timezone",))
    spec = build_spec(settings, LocalHost(root))
    assert spec.variant == "qemu" and spec.devices == ()
    assert [(m.target, m.read_only) for m in spec.mounts] == [
        ("/usr/bin/qemu-aarch64-static", False), ("/etc/localtime", True), ("/data", False)]
    assert spec.warnings and "/etc/timezone" in spec.warnings[0]
    assert "-v /etc/localtime:/etc/localtime:ro" in spec.run_command()


def test_unknown_arch_is_an_error(tmp_path, settings):
    root = sim_host(tmp_path / "sim")
    (root / "usr/bin/uname").write_text("#!/bin/sh\nexit 1\n")
    with pytest.raises(SpecError, match="architecture"):
        build_spec(settings, LocalHost(root))


def test_create_kwargs_translate_paths_under_root(tmp_path, settings):
    root = sim_host(tmp_path / "with space")
    host = LocalHost(root)
    spec = build_spec(settings, host)
    kw = docker_create_kwargs(spec, real_path_of(host))
    assert kw["privileged"] is True and kw["network_mode"] == "host" and kw["shm_size"] == 500 * 1024**3
    dev0 = kw["devices"][0]
    assert dev0 == {"PathOnHost": os.path.join(str(root), "dev/davinci0"), "PathInContainer": "/dev/davinci0",
                    "CgroupPermissions": "rwm"}
    data = [m for m in kw["mounts"] if m["Target"] == "/data"][0]
    assert data["Source"] == os.path.join(str(root), "data/pi05") and data["Type"] == "bind"
    assert kw["command"] == ["bash"] and kw["tty"] and kw["stdin_open"]


def _attrs(spec, real, **over):
    hc = {"ShmSize": spec.shm_size, "Privileged": spec.privileged, "NetworkMode": spec.network_mode,
          "Devices": [{"PathOnHost": real(d), "PathInContainer": d, "CgroupPermissions": "rwm"} for d in spec.devices]}
    hc.update(over.pop("hc", {}))
    mounts = [{"Type": "bind", "Source": real(m.source), "Destination": m.target, "RW": not m.read_only}
              for m in spec.mounts]
    return {"HostConfig": hc, "Mounts": over.pop("mounts", mounts), "Config": {"Image": spec.image}}


def test_compare_on_inspect_shapes(tmp_path, settings):
    """Inspect data shaped as Docker Engine 20.10 returns it; the real-engine tests cover the same on containers."""
    root = sim_host(tmp_path / "sim")
    host = LocalHost(root)
    real = real_path_of(host)
    spec = build_spec(settings, host)
    assert compare(spec, _attrs(spec, real), real) == []
    bigger = _attrs(spec, real, hc={"ShmSize": spec.shm_size * 2})
    assert compare(spec, bigger, real) == []
    small = compare(spec, _attrs(spec, real, hc={"ShmSize": 64 << 20, "Privileged": False}), real)
    assert [d.field for d in small] == ["shm_size", "privileged"]
    assert "500.0 GiB" in small[0].text() and "64.0 MiB" in small[0].text()
    attrs = _attrs(spec, real)
    attrs["HostConfig"]["Devices"] = attrs["HostConfig"]["Devices"][1:]
    attrs["Mounts"] = [m for m in attrs["Mounts"] if m["Destination"] != "/data"]
    diffs = compare(spec, attrs, real)
    assert [(d.field, d.wanted.split()[0]) for d in diffs] == [("device", "/dev/davinci0"), ("mount", os.path.join("/data/pi05"))]
    rw = _attrs(spec, real)
    for m in rw["Mounts"]:
        m["RW"] = True
    assert any(d.field == "mount" and "(rw)" in d.actual for d in compare(spec, rw, real))
    assert compare(spec.with_image("other:1"), _attrs(spec, real), real, check_image=True)[0].field == "image"


def test_sizes_read_like_docker():
    assert docker_size(500 * 1024**3) == "500g" and docker_size(64 << 20) == "64m" and docker_size(1000) == "1000"
    assert ContainerSettings(image="x", shm_size="64m").shm_size == 64 << 20
    with pytest.raises(ValueError):
        ContainerSettings(image="x", shm_size="lots")
    with pytest.raises(ValueError):
        ContainerSettings(image="x", name="-bad name")
    assert human_bytes(0) == "0 B" and human_bytes(1536) == "1.5 KiB"
