"""`pi05-wizard plan` on a `--root` simulated host: real commands for every stage, odd paths kept whole."""

from __future__ import annotations

import json
import shlex

import pytest
import tomli_w

from tests.recipe_fixtures import isolated, run_cli  # noqa: F401
from wizard.stages.registry import STAGE_IDS


@pytest.fixture
def sim_root(isolated):
    """A folder standing for `/` (the simulated host; `build_sim_host` when it can run here)."""
    root = isolated / "sim host"
    try:
        from wizard.simhost import build_sim_host, teardown_sim_host

        build_sim_host(root)
    except Exception:  # no simhost module, or no privilege for device nodes here: an empty root plans too
        root.mkdir(exist_ok=True)
        yield root
        return
    yield root
    teardown_sim_host(root)


@pytest.fixture
def no_container(monkeypatch):
    """Docker says the container is absent, whatever this machine runs."""
    import wizard.cli.plan_cmd as plan_cmd

    monkeypatch.setattr(plan_cmd, "container_state", lambda name: (False, f"container not running: no {name!r}"))


def _plan(monkeypatch, root, *args):
    code, out, err = run_cli(["--root", str(root), "--state-dir", str(root.parent / "state"), "plan", *args],
                             monkeypatch)
    assert code == 0, err
    return out


def test_plan_json_lists_every_stage_with_real_steps(sim_root, monkeypatch, no_container):
    data = json.loads(_plan(monkeypatch, sim_root, "--json"))
    stages = data["stages"]
    assert [s["id"] for s in stages] == list(STAGE_IDS)
    by_id = {s["id"]: s for s in stages}
    for s in stages:
        assert s["steps"] and s["error"] is None, s["id"]
        assert s["done"] in (True, False, None)
        for step in s["steps"]:
            assert step["where"] in ("host", "container")
            if step["kind"] == "command":
                # the shell-quoted text reads back as the very argv that runs
                words = shlex.split(step["command"])
                assert words[-len(step["argv"]):] == step["argv"]
    for sid in ("cann", "system-packages", "torch", "model-code", "dependencies", "weights", "train"):
        assert by_id[sid]["done"] is None and "container not running" in by_id[sid]["done_reason"], sid
    cmds = {sid: [st["command"] for st in by_id[sid]["steps"]] for sid in by_id}
    assert "python3 -m pip install torch==2.7.1" in cmds["torch"]
    assert "git checkout dcddb970176382c0fcf4521b0c0e6fc15894dfe0" in cmds["model-code"]
    assert any(c.startswith("wget -c https://ascend-repo.obs.cn-east-2.myhuaweicloud.com/CANN/CANN%208.3.RC1/")
               for c in cmds["cann"])
    assert any("apt-get install -y git vim wget gcc cmake curl iproute2 python3-dev python3-venv bc" in c
               for c in cmds["system-packages"])
    assert any(c.startswith("ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 bash -c") and
               c.endswith("bash test/train_performance.sh /data/koch_test /data/pi05_base") for c in cmds["train"])
    assert by_id["train"]["steps"][-1]["timeout_s"] is None


def test_plan_text_shows_done_steps_and_skip_probes(sim_root, monkeypatch, no_container):
    out = _plan(monkeypatch, sim_root, "model-code", "cann")
    assert out.startswith("== model-code: Model code  [container; after torch, system-packages]\n")
    assert "   done: unknown (container not running: no 'pi')" in out
    assert "      $ git apply pi05.patch\n" in out
    assert "skip if already applied (git apply --reverse --check pi05.patch)" in out
    assert "== cann: CANN upgrade" in out and "== torch" not in out  # only the stages asked for, in the order asked


def test_unknown_stage_exits_2(sim_root, monkeypatch, no_container):
    code, out, err = run_cli(["--root", str(sim_root), "plan", "cann", "trian"], monkeypatch)
    assert code == 2 and out == "" and "unknown stage 'trian'" in err


def test_odd_paths_stay_one_argv_element(isolated, monkeypatch, no_container):
    odd_ds = "/data/my data/koch's \"test\""
    odd_w = "/data/weights dir/pi05 base"
    rec = isolated / "odd recipe.toml"
    rec.write_text(tomli_w.dumps({"dataset": {"path": odd_ds, "repo_id": odd_ds}, "weights": {
        "pi05": {"path": odd_w}, "paligemma": {"path": "/root/pali gemma"}},
        "cann": {"toolkit_set_env": "/opt/it's/set_env.sh"}}))
    code, out, err = run_cli(["--recipe", str(rec), "--root", str(isolated), "plan", "--json", "train", "weights"],
                             monkeypatch)
    assert code == 0, err
    stages = {s["id"]: s for s in json.loads(out)["stages"]}
    train = stages["train"]["steps"][-1]
    assert train["argv"][-2:] == [odd_ds, odd_w]
    assert "/opt/it's/set_env.sh" in train["argv"]
    assert shlex.split(train["command"].split(" ", 1)[1]) == train["argv"]  # after the env prefix
    mod = stages["weights"]["steps"][-1]
    assert mod["argv"] == ["bash", "test/paligemma_weights_mod.sh", "/root/pali gemma"]
    assert shlex.split(mod["command"]) == mod["argv"]


def test_plan_probes_a_running_container_through_its_host(isolated, monkeypatch):
    """When the container runs, done() is asked through the container host (a stand-in here)."""
    import wizard.cli.plan_cmd as plan_cmd
    import wizard.session as session_mod
    from tests.recipe_fixtures import FakeHost, ok

    monkeypatch.setattr(plan_cmd, "container_state", lambda name: (True, ""))
    fake = FakeHost(commands=lambda argv: ok("Name: torch\nVersion: 2.7.1\n---\nName: torch_npu\nVersion: 2.7.1\n"))
    monkeypatch.setattr(session_mod.Session, "container_host", lambda self: fake)
    code, out, err = run_cli(["--root", str(isolated), "plan", "--json", "torch"], monkeypatch)
    assert code == 0, err
    (torch,) = json.loads(out)["stages"]
    assert torch["done"] is True and fake.calls[0][:4] == ["python3", "-m", "pip", "show"]


def test_plan_shows_each_stage_verify(sim_root, monkeypatch, no_container):
    """The verify checks (the torch import smoke test the README promises) are part of the plan."""
    from wizard.stages.registry import all_stages

    for stage in all_stages():
        if stage.id != "preflight":  # preflight's steps are its checks; every other stage verifies
            assert stage.verify_describe, stage.id
    out = _plan(monkeypatch, sim_root, "torch", "train")
    torch_part = out.split("== train")[0]
    assert "   verify: " in torch_part and "import smoke test" in torch_part
    assert "   verify: the training log ends with 'End of training'" in out
    data = json.loads(_plan(monkeypatch, sim_root, "--json", "cann", "container", "dataset"))
    verify = {s["id"]: s["verify"] for s in data["stages"]}
    assert "set_env.sh" in verify["cann"] and "inside it" in verify["container"]
    assert "quantile" in verify["dataset"]
