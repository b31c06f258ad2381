"""A host without the NPU driver is told to install the HDK; `driver-not-mounted` (the container's
bind-mount fix) fires only for the container view and for case 08's real error text."""

from __future__ import annotations

import shutil

from checks.context import CheckContext, Requirements
from checks.npu import check_driver
from checks.registry import run_checks
from tests.preflight_fixtures import case_raw, make_sim  # noqa: F401  (fixture)
from wizard.cli import main
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.remedies.matcher import match_text
from wizard.state import StateStore


def _bare_x86(make_sim):
    root = make_sim("x86-no-qemu")
    shutil.rmtree(root / "usr/local/Ascend/driver")
    return root


def test_bare_host_preflight_does_not_name_driver_not_mounted(make_sim, tmp_path, capsys):
    root = _bare_x86(make_sim)
    state = tmp_path / "state"
    assert main(["--root", str(root), "--state-dir", str(state), "run", "preflight", "--offline"]) == 1
    out = capsys.readouterr().out
    assert "Install the Ascend HDK driver" in out
    rec = StateStore(Locations(config_dir=tmp_path / "cfg", state_dir=state)).last("preflight")
    assert rec is not None and "driver-not-mounted" not in rec.remedies
    assert "known problem: driver-not-mounted" not in out


def test_host_view_messages_match_no_container_remedy(make_sim):
    root = _bare_x86(make_sim)
    ctx = CheckContext(host=LocalHost(root=root), requirements=Requirements(), offline=True, inside_container=False)
    results = run_checks(ctx, timeout_s=20)
    driver = next(r for r in results if r.id == "driver")
    assert driver.status.is_problem and "HDK" in driver.messages[0].text and driver.remedies == []
    printed = "\n".join(f"{r.summary}\n" + "\n".join(m.text for m in r.messages) for r in results)
    assert "driver-not-mounted" not in [m.id for m in match_text(printed)]


def test_container_view_still_names_driver_not_mounted(make_sim):
    root = _bare_x86(make_sim)
    ctx = CheckContext(host=LocalHost(root=root), requirements=Requirements(), offline=True, inside_container=True)
    r = check_driver(ctx)
    assert r.remedies == ["driver-not-mounted"] and "bind-mounted" in r.messages[0].text
    # case 08: the loader's error inside a container without the driver mounts
    assert "driver-not-mounted" in [m.id for m in match_text(case_raw("08"))]
