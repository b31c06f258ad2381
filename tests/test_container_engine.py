"""The container stage on a real Docker engine, against a simulated 910B host (`--root`).

The image is a busybox test image (see `container_fixtures`), already present, so the pull step is
skipped. Device nodes are real character devices made with `os.mknod` under the simulated root.

This sandbox's engine cannot start privileged containers (it lacks CAP_SYS_RESOURCE in its bounding
set: "unable to apply caps"); there, the running-container tests use a recipe with
`privileged = false` and `test_privileged_flag_reaches_the_engine` checks the privileged
configuration on a created (not started) container. On an engine that can, everything runs privileged.
"""

from __future__ import annotations

import threading
import uuid

import pytest

from container_fixtures import (sim_host, busybox_image, can_privileged, container_name,  # noqa: F401
                                docker_client, recipe_for_test)
from wizard.container.lifecycle import Outcome, create_and_start, ensure_container
from wizard.container.spec import docker_create_kwargs, real_path_of
from wizard.hosts.container import ContainerHost
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.sinks import LineMatcher  # noqa: F401  (the runner's sink type; lines collected below)
from wizard.stages.base import StageContext
from wizard.stages.container import STAGE, container_config_result, container_spec
from wizard.state import StageStatus, StateStore
from wizard.events import Sink

pytestmark = pytest.mark.docker


class Collect(Sink):
    """Keeps every line and step outcome of a run."""

    def __init__(self):
        self.lines = []
        self.outcomes = {}

    def line(self, line):
        self.lines.append(line)

    def step_finished(self, index, step, outcome):
        self.outcomes[index] = outcome

    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


@pytest.fixture
def world(tmp_path, docker_client, busybox_image, container_name, can_privileged):  # noqa: F811
    root = sim_host(tmp_path / "sim host")
    recipe = recipe_for_test(busybox_image, container_name, privileged=can_privileged)

    def make(**options):
        opts = {"docker_client": docker_client, **options}
        return StageContext(recipe=recipe, host=LocalHost(root), locations=Locations.under(tmp_path / "state"),
                            container=lambda: ContainerHost(container_name, docker_client), options=opts)
    return make


def run(ctx, sink=None):
    sink = sink or Collect()
    rec = run_stage(STAGE, ctx, [sink], threading.Event(), StateStore(ctx.locations), force=True)
    return rec, sink


def test_stage_creates_the_container_field_by_field(world, docker_client, container_name, can_privileged):  # noqa: F811
    ctx = world()
    rec, sink = run(ctx)
    assert rec.status is StageStatus.SUCCEEDED, sink.text()
    # verify ran the in-container checks through the ContainerHost and showed them.
    for check_id in ("container-config", "shm", "devices", "driver", "npu-smi"):
        assert f"✓ {check_id}: " in sink.text()
    assert "✓ shm: 500 GiB" in sink.text()
    assert sink.outcomes[1].skipped, "the test image is present: the pull is skipped"
    root = ctx.host.root
    c = docker_client.containers.get(container_name)
    hc = c.attrs["HostConfig"]
    assert c.name == container_name and c.status == "running"
    assert hc["Privileged"] is can_privileged
    assert hc["NetworkMode"] == "host"
    assert hc["ShmSize"] == 500 * 1024**3
    assert c.attrs["Config"]["User"] == "root" and c.attrs["Config"]["Tty"] is True
    want_devices = [f"/dev/davinci{n}" for n in range(8)] + ["/dev/davinci_manager", "/dev/hisi_hdc", "/dev/devmm_svm"]
    assert [(d["PathOnHost"], d["PathInContainer"], d["CgroupPermissions"]) for d in hc["Devices"]] == \
        [(f"{root}{d}", d, "rwm") for d in want_devices]
    mounts = {m["Destination"]: (m["Source"], m["RW"]) for m in c.attrs["Mounts"]}
    want = {m.target: (f"{root}{m.source}", not m.read_only) for m in ctx.recipe.container.mounts}
    want["/data"] = (f"{root}/data/pi05", True)
    assert mounts == want
    # From inside: /dev/shm is 500 GiB, every device node is a character device, the mounts are there.
    out = c.exec_run(["sh", "-c", "df -k /dev/shm | tail -1; for d in " + " ".join(want_devices)
                      + "; do test -c $d && echo char $d; done; cat /etc/hccn.conf /usr/local/Ascend/driver/version.info"])
    assert out.exit_code == 0, out.output
    text = out.output.decode()
    assert text.split()[1] == str(500 * 1024 * 1024)  # 1K-blocks of /dev/shm
    for d in want_devices:
        assert f"char {d}" in text
    assert "address_0=192.168.100.101" in text and "Version=25.3.rc1" in text
    config = container_config_result(ctx)
    assert config.status.value == "ok", config


def test_second_run_reuses_the_running_container(world, docker_client, container_name):  # noqa: F811
    ctx = world()
    run(ctx)
    first = docker_client.containers.get(container_name).id
    rec, sink = run(world())
    assert sink.outcomes[2].ok
    assert "reusing the running container" in sink.text()
    assert docker_client.containers.get(container_name).id == first
    assert STAGE.done(world()) is True


def test_stopped_container_is_started(world, docker_client, container_name):  # noqa: F811
    run(world())
    c = docker_client.containers.get(container_name)
    c.kill()
    rec, sink = run(world())
    assert "started the existing container" in sink.text()
    c.reload()
    assert c.status == "running"


def _drifted(world, docker_client, container_name):  # noqa: F811
    """A container of the right name with a 64 MiB /dev/shm and without davinci7 and the data mount."""
    ctx = world()
    spec = container_spec(ctx)
    kwargs = docker_create_kwargs(spec, real_path_of(ctx.host))
    kwargs["shm_size"] = 64 << 20
    kwargs["devices"] = [d for d in kwargs["devices"] if d["PathInContainer"] != "/dev/davinci7"]
    kwargs["mounts"] = [m for m in kwargs["mounts"] if m["Target"] != "/data"]
    c = docker_client.containers.create(**kwargs)
    c.start()
    return c.id


def test_drift_is_shown_and_not_recreated_without_confirmation(world, docker_client, container_name):  # noqa: F811
    old = _drifted(world, docker_client, container_name)
    asked = []
    rec, sink = run(world(confirm=lambda diffs: asked.append(list(diffs)) or False))
    assert rec.status is StageStatus.FAILED
    text = sink.text()
    assert "shm_size: wanted 500.0 GiB, container has 64.0 MiB" in text
    assert "device: wanted /dev/davinci7 mapped" in text
    assert "mount: wanted /data/pi05 -> /data" in text
    assert "re-run with --yes" in text
    assert [d.field for d in asked[0]] == ["shm_size", "device", "mount"]
    assert docker_client.containers.get(container_name).id == old, "never removed silently"


def test_drift_recreated_when_confirmed(world, docker_client, container_name):  # noqa: F811
    old = _drifted(world, docker_client, container_name)
    rec, sink = run(world(yes=True))
    assert sink.outcomes[2].ok, sink.text()
    c = docker_client.containers.get(container_name)
    assert c.id != old and c.attrs["HostConfig"]["ShmSize"] == 500 * 1024**3
    assert "recreated container" in sink.text()


def test_privileged_flag_reaches_the_engine(world, docker_client, container_name):  # noqa: F811
    """Created from the full recipe (privileged); inspected without starting (see the module docstring)."""
    ctx = world()
    spec = container_spec(ctx)
    assert spec.privileged is ctx.recipe.container.privileged
    from dataclasses import replace

    spec = replace(spec, privileged=True)
    c = docker_client.containers.create(**docker_create_kwargs(spec, real_path_of(ctx.host)))
    assert c.attrs["HostConfig"]["Privileged"] is True
    # A non-privileged container is a difference that matters.
    c.remove(force=True)
    unpriv = replace(spec, privileged=False)
    c = docker_client.containers.create(**docker_create_kwargs(unpriv, real_path_of(ctx.host)))
    from wizard.container.lifecycle import compare

    assert [d.field for d in compare(spec, c.attrs, real_path_of(ctx.host))] == ["privileged"]


def test_missing_device_fails_before_docker(tmp_path, docker_client, busybox_image, container_name):  # noqa: F811
    root = sim_host(tmp_path / "sim", missing=("/dev/davinci2",))
    ctx = StageContext(recipe=recipe_for_test(busybox_image, container_name), host=LocalHost(root),
                       locations=Locations.under(tmp_path / "state"), options={"docker_client": docker_client})
    rec, sink = run(ctx)
    assert rec.status is StageStatus.FAILED and rec.failed_step.index == 0
    assert "missing NPU device(s): /dev/davinci2" in sink.text()
    with pytest.raises(Exception):
        docker_client.containers.get(container_name)
