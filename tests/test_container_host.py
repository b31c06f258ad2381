"""ContainerHost against a real container made from a busybox image (`docker_fixtures.busybox_image`)."""

from __future__ import annotations

import threading
import time

import pytest

from docker_fixtures import busybox_image, docker_client_or_skip, remove_image, labels_for_test, unique_name
from wizard.events import Line, Sink
from wizard.hosts.container import ContainerHost, ContainerUnavailable
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageStatus, StateStore

pytestmark = pytest.mark.docker

ODD = "/data/it's a \"file\" with spaces.txt"


@pytest.fixture(scope="module")
def running():
    client = docker_client_or_skip()
    tag = f"{unique_name('pi05-test-bb')}:t"
    busybox_image(client, tag, {
        "/etc/version.info": "Version=8.0.RC1\n",
        ODD: "odd name\n",
        "/data/sub/a.txt": "a", "/data/sub/b.txt": "b", "/data/sub/.hidden": "h",
        "/data/blob.bin": bytes(range(256)) * 8,
    })
    name = unique_name()
    try:
        ct = client.containers.run(tag, ["sleep", "600"], detach=True, name=name, network_mode="none",
                                   labels=labels_for_test())
        yield client, name
    finally:
        try:
            client.containers.get(name).remove(force=True)
        except Exception:  # noqa: BLE001 - never created (a failed start)
            pass
        remove_image(client, tag)


@pytest.fixture
def host(running):
    client, name = running
    return ContainerHost(name=name, client=client)


def test_read_text_stat_listdir_disk(host):
    assert host.name.startswith("container:")
    assert host.read_text("/etc/version.info") == "Version=8.0.RC1\n"
    assert host.read_text(ODD) == "odd name\n"
    assert host.read_text("/etc/version.info", max_bytes=7) == "Version"
    blob = host.read_text("/data/blob.bin")
    assert len(blob) == 2048  # binary decoded with replacement, never a traceback
    with pytest.raises(FileNotFoundError):
        host.read_text("/nope/missing")
    with pytest.raises(IsADirectoryError):
        host.read_text("/data")
    info = host.stat("/etc/version.info")
    assert info is not None and info.kind == "file" and info.size == len("Version=8.0.RC1\n")
    assert host.stat("/data").kind == "dir"
    dev = host.stat("/dev/null")
    assert dev.kind == "char" and dev.extra["rdev"] != 0
    assert host.stat("/nope") is None
    assert host.listdir("/data/sub") == [".hidden", "a.txt", "b.txt"]
    assert host.listdir("/nope") == [] and host.listdir("/etc/version.info") == []
    du = host.disk_usage("/data")
    assert du is not None and du.total > 0 and 0 <= du.free <= du.total and du.used <= du.total
    assert host.disk_usage("/nope") is None


def test_which_environ(host):
    assert host.which("sh") == "/bin/sh"
    assert host.which("no-such-tool") is None
    assert host.environ()["PATH"] == "/bin"


def test_run_streams_exit_env_cwd(host):
    res = host.run(["sh", "-c", 'echo "out $A $(pwd)"; echo err >&2; exit 3'], timeout=20,
                   env={"A": "x y"}, cwd="/data/sub")
    assert res.returncode == 3 and not res.ok
    assert res.stdout == "out x y /data/sub\n" and res.stderr == "err\n"
    nf = host.run(["no-such-tool", "--x"], timeout=20)
    assert nf.not_found and nf.returncode is None


def test_run_timeout_kills_the_group(host):
    start = time.monotonic()
    res = host.run(["sh", "-c", "sleep 40 & sleep 41"], timeout=1.0)
    assert res.timed_out and res.returncode is None
    assert time.monotonic() - start < 10
    time.sleep(0.3)
    ps = host.run(["ps", "-o", "args"], timeout=20).stdout
    assert "sleep 40" not in ps and "sleep 41" not in ps


def test_missing_container_is_a_clear_result(running):
    client, _ = running
    ghost = ContainerHost(name="pi05-test-does-not-exist", client=client)
    res = ghost.run(["true"], timeout=5)
    assert res.returncode is None and res.stderr == ("The container 'pi05-test-does-not-exist' does not exist yet: "
                                                     "run the container stage first (pi05-wizard run container).")
    with pytest.raises(ContainerUnavailable):
        ghost.read_text("/etc/hostname")


class Collect(Sink):
    def __init__(self):
        self.lines: list[Line] = []

    def line(self, line):
        self.lines.append(line)


def _stage(steps, where=Where.CONTAINER):
    return Stage(id="ct", title="in the container", description="", where=where, steps=lambda ctx: steps)


def test_runner_streams_from_the_container(host, tmp_path):
    loc = Locations.under(tmp_path)
    ctx = StageContext(recipe=None, host=None, locations=loc, container=lambda: host)  # type: ignore[arg-type]
    sink = Collect()
    script = "for i in 1 2 3; do echo out$i; echo err$i >&2; done; printf '\\r10%%\\r90%%\\rdone\\n'; printf tail"
    rec = run_stage(_stage([Step("talk", argv=["sh", "-c", script])]), ctx, [sink], threading.Event(),
                    StateStore(loc))
    assert rec.status is StageStatus.SUCCEEDED and rec.exit_code == 0
    got = [(ln.stream, ln.text, ln.progress) for ln in sink.lines if ln.stream != "wizard"]
    assert [t for s, t, p in got if s == "stdout" and not p] == ["out1", "out2", "out3", "done", "tail"]
    assert [t for s, t, p in got if s == "stderr"] == ["err1", "err2", "err3"]
    assert [t for s, t, p in got if p] == ["10%", "90%"]


def test_runner_cancel_in_the_container(host, tmp_path):
    loc = Locations.under(tmp_path)
    ctx = StageContext(recipe=None, host=None, locations=loc, container=lambda: host)  # type: ignore[arg-type]
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    step = Step("stubborn", argv=["sh", "-c", "trap '' TERM; echo ready; sleep 45 & wait"], timeout_s=60)
    start = time.monotonic()
    rec = run_stage(_stage([step]), ctx, [], cancel, StateStore(loc), grace_s=1.0)
    assert rec.status is StageStatus.CANCELLED and rec.failed_step.index == 0
    assert time.monotonic() - start < 15
    time.sleep(0.3)
    assert "sleep 45" not in host.run(["ps", "-o", "args"], timeout=20).stdout
