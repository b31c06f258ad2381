"""One plain sentence for a missing or stopped container, wherever it shows: the ContainerHost,
done() probes, `plan`, a failed step, and verify (real engine, a name that does not exist and a
created-but-never-started container)."""

from __future__ import annotations

import threading

import pytest

from container_fixtures import busybox_image, docker_client, recipe_for_test  # noqa: F401 - fixtures
from docker_fixtures import labels_for_test, unique_name
from wizard import hints
from wizard.cli.plan_cmd import build_plan, render_text
from wizard.hosts.container import ContainerHost, ContainerUnavailable, container_problem
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.stages.common import ProbeUnavailable, container_state
from wizard.stages.registry import get_stage
from wizard.state import StageStatus, StateStore

pytestmark = pytest.mark.docker


def _missing(name: str) -> str:
    return f"The container '{name}' does not exist yet: run the container stage first (pi05-wizard run container)."


def _ctx(tmp_path, client, name, image) -> StageContext:
    locs = Locations.under(tmp_path)
    return StageContext(recipe=recipe_for_test(image, name), host=LocalHost(tmp_path / "root"), locations=locs,
                        container=lambda: ContainerHost(name=name, client=client))


def test_missing_container_one_sentence_everywhere(tmp_path, docker_client, busybox_image):  # noqa: F811
    hints.forget()
    name = unique_name("pi05-test-absent")
    want = _missing(name)
    assert container_problem(name) == want
    host = ContainerHost(name=name, client=docker_client)
    res = host.run(["python3", "-c", "1"], timeout=300)
    assert res.returncode is None and res.stderr == want and res.duration_s < 30
    with pytest.raises(ContainerUnavailable) as info:
        host.stat("/etc")
    assert str(info.value) == want and info.value.why == "missing"

    ctx = _ctx(tmp_path, docker_client, name, busybox_image)
    for sid in ("cann", "torch", "model-code"):  # done() probes
        with pytest.raises((ProbeUnavailable, ContainerUnavailable)) as probe:
            get_stage(sid).done(ctx)
        assert str(probe.value) == want, sid
        results = get_stage(sid).verify(ctx)  # verify: one error result naming it
        assert results and all(want in r.summary and "Error" not in r.summary for r in results), sid

    assert container_state(name, lambda: docker_client) == (False, want)
    plan = build_plan(ctx, ["cann"])  # plan: "unknown (<the sentence>)"
    assert f"   done: unknown ({want})" in render_text(plan)

    cmd = Stage(id="ct", title="in the container", description="", where=Where.CONTAINER,
                steps=lambda c: [Step("python", argv=["python3", "-c", "1"], timeout_s=300)])
    act = Stage(id="ca", title="action", description="", where=Where.CONTAINER,
                steps=lambda c: [Step("read", action=lambda c, io: int(c.host_for(Where.CONTAINER).stat("/x") is None))])
    for stage in (cmd, act):  # the runner's step failure
        rec = run_stage(stage, ctx, [], threading.Event(), StateStore(ctx.locations))
        assert rec.status is StageStatus.FAILED and rec.reason == want, (stage.id, rec.reason)


def test_stopped_container_says_start_it(tmp_path, docker_client, busybox_image):  # noqa: F811
    hints.forget()
    name = unique_name("pi05-test-stopped")
    container = docker_client.containers.create(busybox_image, ["sleep", "30"], name=name,
                                                labels=labels_for_test())
    try:
        want = (f"The container '{name}' is stopped (created): run the container stage to start it "
                "(pi05-wizard run container).")
        assert container_state(name, lambda: docker_client) == (False, want)
        host = ContainerHost(name=name, client=docker_client)
        assert host.run(["true"], timeout=30).stderr == want
        with pytest.raises((ProbeUnavailable, ContainerUnavailable), match=r"is stopped \(created\)"):
            get_stage("cann").done(_ctx(tmp_path, docker_client, name, busybox_image))
    finally:
        container.remove(force=True)


def test_hint_in_the_sentence_carries_the_global_options():
    class Args:
        root = "/tmp/sim host"
        recipe = None
        state_dir = None

    hints.remember(Args())
    try:
        assert container_problem("pi").endswith("(pi05-wizard --root '/tmp/sim host' run container).")
    finally:
        hints.forget()
