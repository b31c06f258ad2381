"""Session wiring and the preflight stage's single action step."""

from __future__ import annotations

import argparse
import re

import pytest

from checks.result import CheckResult, Level, Message, Status
from tests.recipe_fixtures import isolated, user_recipe_path  # noqa: F401
from wizard.recipe import RecipeError
from wizard.session import Session
from wizard.stages.base import ActionIO, Where
from wizard.stages.registry import get_stage


def _args(root, recipe=None, state=None):
    return argparse.Namespace(root=str(root) if root else None, recipe=recipe, state_dir=str(state) if state else None)


def test_session_builds_its_world_from_the_args(isolated):
    user = user_recipe_path(isolated)
    user.parent.mkdir(parents=True)
    user.write_text('[container]\nname = "pi-test"\n')
    s = Session.from_args(_args(isolated / "root", state=isolated / "state dir"))
    assert s.recipe.container.name == "pi-test"
    assert s.host.name == f"local:{isolated / 'root'}"
    assert s.locations.state_dir == isolated / "state dir"
    ctx = s.context({"yes": True})
    assert ctx.options == {"yes": True} and ctx.host is s.host and ctx.recipe is s.recipe
    assert s.requirements().shm_min_bytes == 500 * 1024**3
    cc = s.check_context(offline=True)
    assert cc.offline is True and cc.inside_container is False and cc.host is s.host


def test_session_raises_recipe_error(isolated):
    bad = isolated / "bad.toml"
    bad.write_text("[python]\ntorch = 3\n")
    with pytest.raises(RecipeError, match="python.torch"):
        Session.from_args(_args(None, recipe=str(bad)))


def test_container_host_is_lazy(isolated, monkeypatch):
    import wizard.hosts.container as container_mod

    made = []
    monkeypatch.setattr(container_mod, "ContainerHost", lambda name: made.append(name) or object())
    s = Session.from_args(_args(isolated))
    assert made == []
    first = s.context().host_for(Where.CONTAINER)
    assert s.container_host() is first and made == ["pi"]


def _run_preflight(monkeypatch, isolated, results):
    import checks.registry

    monkeypatch.setattr(checks.registry, "run_checks", lambda ctx, **kw: results)
    s = Session.from_args(_args(isolated))
    ctx = s.context({"offline": True})
    (step,) = get_stage("preflight").steps(ctx)
    lines: list[str] = []
    code = step.action(ctx, ActionIO(emit=lambda t, **k: lines.append(t), cancelled=lambda: False))
    return code, lines


def test_preflight_fails_on_any_fail_and_passes_otherwise(isolated, monkeypatch):
    good = CheckResult(id="arch", title="Architecture", status=Status.OK, summary="aarch64")
    warn = CheckResult(id="mem", title="Memory", status=Status.WARN, summary="low",
                       messages=[Message(level=Level.WARN, text="only 32 GiB")])
    bad = CheckResult(id="npu", title="NPU devices", status=Status.FAIL, summary="4 of 8",
                      messages=[Message(level=Level.ERROR, text="/dev/davinci4 missing", remedy="driver-not-mounted")])
    code, lines = _run_preflight(monkeypatch, isolated, [good, warn])
    assert code == 0 and re.fullmatch(r"1 ok, 1 warning, 0 failed, 0 skipped in \d+\.\d\d s", lines[-1])
    code, lines = _run_preflight(monkeypatch, isolated, [good, bad, warn, warn])
    assert code == 1
    assert lines[:3] == ["✓ Architecture: aarch64", "✗ NPU devices: 4 of 8",
                         "    /dev/davinci4 missing  [fix: driver-not-mounted]"]
    # the same wording as `check`: fails and warnings counted apart (not "3 problems")
    from wizard.cli.check_cmd import summary_line

    assert lines[-1].startswith("1 ok, 2 warnings, 1 failed, 0 skipped in ")
    assert lines[-1].split(" in ")[0] == summary_line([good, bad, warn, warn], 0.0).split(" in ")[0]


def test_preflight_on_the_simulated_host(isolated):
    """The real checks on a `build_sim_host` root: one line per check, exit 1 exactly when one is a problem."""
    simhost = pytest.importorskip("wizard.simhost")
    try:
        root = simhost.build_sim_host(isolated / "sim")
    except Exception as exc:  # SimHostError: no privilege for device nodes here
        pytest.skip(f"cannot build the simulated host here: {exc}")
    try:
        s = Session.from_args(_args(root))
        ctx = s.context({"offline": True})
        (step,) = get_stage("preflight").steps(ctx)
        lines: list[str] = []
        code = step.action(ctx, ActionIO(emit=lambda t, **k: lines.append(t), cancelled=lambda: False))
    finally:
        simhost.teardown_sim_host(root)
    m = re.fullmatch(r"(\d+) ok, (\d+) warnings?, (\d+) failed, (\d+) skipped(?:, (\d+) could not run)? in [\d.]+ s",
                     lines[-1])
    assert m, lines[-1]
    total = sum(int(g or 0) for g in m.groups())
    assert total >= 10
    assert code == (1 if int(m.group(3)) + int(m.group(5) or 0) else 0)
    assert sum(line[:1] in "✓!✗–?" and not line.startswith(" ") for line in lines[:-1]) == total
