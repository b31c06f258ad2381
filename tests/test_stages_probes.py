"""done()/verify() probes of the stages against a fake container host with canned files and outputs."""

from __future__ import annotations

import pytest

from checks.result import Status
from tests.recipe_fixtures import CASES, SAMPLES, FakeHost, ok
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.stages.base import StageContext
from wizard.stages.common import ProbeUnavailable
from wizard.stages.model_code import parse_pip_check
from wizard.stages.packages import pip_show_versions
from wizard.stages.registry import get_stage

CFG = "/usr/local/Ascend/ascend-toolkit/latest/version.cfg"
NNAL = "/usr/local/Ascend/nnal/atb/latest/version.info"


def make_ctx(tmp_path, container: FakeHost | None) -> StageContext:
    locs = Locations.under(tmp_path)
    factory = (lambda: container) if container is not None else None
    return StageContext(recipe=load_recipe(locs), host=LocalHost(tmp_path / "root"), locations=locs,
                        container=factory)


def upgraded_cfg() -> str:
    """The real sample after an 8.3.RC1 upgrade: every running version's CANN part replaced."""
    return (SAMPLES / "version.cfg_8.1.RC1_with_install_history.txt").read_text().replace(
        "B210:8.1.RC1]", "B210:8.3.RC1]")


def test_cann_done_on_an_upgraded_container(tmp_path):
    files = {CFG: upgraded_cfg(), NNAL: "Ascend-cann-atb : 8.3.RC1\nPlatform : aarch64\n",
             "/root/.bashrc": "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
                              "source /usr/local/Ascend/nnal/atb/set_env.sh\n"}
    ctx = make_ctx(tmp_path, FakeHost(files=files))
    cann = get_stage("cann")
    assert cann.done(ctx) is True
    assert all(r.status is Status.OK for r in cann.verify(ctx))


@pytest.mark.parametrize("change", ["base-image", "no-nnal", "no-bashrc", "bashrc-one-line"])
def test_cann_not_done(tmp_path, change):
    files = {CFG: upgraded_cfg(), NNAL: "Ascend-cann-atb : 8.3.RC1\n",
             "/root/.bashrc": "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
                              "source /usr/local/Ascend/nnal/atb/set_env.sh\n"}
    if change == "base-image":
        files[CFG] = (SAMPLES / "version.cfg_8.1.RC1_with_install_history.txt").read_text()
    elif change == "no-nnal":
        del files[NNAL]
    elif change == "no-bashrc":
        del files["/root/.bashrc"]
    else:
        files["/root/.bashrc"] = "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
    ctx = make_ctx(tmp_path, FakeHost(files=files))
    assert get_stage("cann").done(ctx) is False
    assert any(r.status is Status.FAIL for r in get_stage("cann").verify(ctx))


def test_install_step_skipped_when_already_at_version(tmp_path):
    ctx = make_ctx(tmp_path, FakeHost(files={CFG: upgraded_cfg()}))
    installs = [s for s in get_stage("cann").steps(ctx) if s.skip_if is not None]
    assert [s.skip_if(ctx) for s in installs] == [True, True, False]  # toolkit, kernels yes; nnal missing


def test_container_probes_are_unknown_without_a_container(tmp_path):
    ctx = make_ctx(tmp_path, None)
    for sid in ("cann", "system-packages", "torch", "model-code", "dependencies", "weights", "train"):
        with pytest.raises(ProbeUnavailable, match="^The Docker engine is not reachable"):
            get_stage(sid).done(ctx)
        results = get_stage(sid).verify(ctx)
        assert results and all(r.status is Status.ERROR for r in results), sid
        assert all("Error" not in r.summary and "Docker engine is not reachable" in r.summary for r in results), sid


def test_system_packages_done_via_dpkg_query(tmp_path):
    recipe_pkgs = ["git", "vim", "wget", "gcc", "cmake", "curl", "iproute2", "python3-dev", "python3-venv", "bc"]

    def dpkg(installed):
        def run(argv):
            assert argv[:2] == ["dpkg-query", "-W"] and argv[3:] == recipe_pkgs
            out = "".join(f"{p}\tinstall ok installed\n" for p in installed)
            return ok(out, code=0 if len(installed) == len(recipe_pkgs) else 1,
                      stderr="dpkg-query: no packages found matching bc\n")
        return run

    stage = get_stage("system-packages")
    assert stage.done(make_ctx(tmp_path, FakeHost(commands=dpkg(recipe_pkgs)))) is True
    ctx = make_ctx(tmp_path, FakeHost(commands=dpkg(recipe_pkgs[:-1])))
    assert stage.done(ctx) is False
    (res,) = stage.verify(ctx)
    assert res.status is Status.FAIL and res.summary == "missing: bc"
    with pytest.raises(ProbeUnavailable, match="dpkg-query not found"):
        stage.done(make_ctx(tmp_path, FakeHost()))


PIP_SHOW = """Name: torch
Version: 2.7.1
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
---
Name: torch-npu
Version: 2.7.1
Summary: NPU bridge for PyTorch
"""


def test_pip_show_parse():
    assert pip_show_versions(PIP_SHOW) == {"torch": "2.7.1", "torch-npu": "2.7.1"}
    assert pip_show_versions("") == {}
    assert pip_show_versions("Version: 1\nName: x\n") == {}
    assert pip_show_versions("WARNING: Package(s) not found: torch_npu\nName: torch\nVersion: 2.6.0\n") == {"torch": "2.6.0"}


def test_torch_done_and_smoke_verify(tmp_path):
    def run(argv):
        if argv[1:4] == ["-m", "pip", "show"]:
            return ok(PIP_SHOW)
        assert argv[0] == "bash" and "import torch, torch_npu" in argv[-1]
        return ok("", code=1, stderr="ImportError: libhccl.so: cannot open shared object file\n")

    ctx = make_ctx(tmp_path, FakeHost(commands=run))
    stage = get_stage("torch")
    assert stage.done(ctx) is True
    versions, smoke = stage.verify(ctx)
    assert versions.status is Status.OK
    assert smoke.status is Status.FAIL and "libhccl.so" in smoke.summary
    old = make_ctx(tmp_path, FakeHost(commands=lambda a: ok(PIP_SHOW.replace("2.7.1", "2.6.0", 1))))
    assert stage.done(old) is False


REPORT_PIP_CHECK = """te 0.4.0 requires ml-dtypes, which is not installed.
te 0.4.0 requires tornado, which is not installed.
opencv-python-headless 4.12.0.88 has requirement numpy<2.3.0,>=2; python_version >= "3.9", but you have numpy 1.26.0.
rerun-sdk 0.22.1 has requirement numpy>=2, but you have numpy 1.26.0.
"""


def test_pip_check_classifies_the_reports_conflicts_as_benign(tmp_path):
    recipe = load_recipe(Locations.under(tmp_path))
    found = parse_pip_check(REPORT_PIP_CHECK, recipe.dependencies.benign)
    assert [(c.package, c.requirement, c.benign) for c in found] == [
        ("te", "ml-dtypes", True), ("te", "tornado", True), ("opencv-python-headless", "numpy", True),
        ("rerun-sdk", "numpy", True)]
    assert all(c.reason for c in found)


def test_pip_check_on_the_real_case_flags_opencv_python_not_benign(tmp_path):
    recipe = load_recipe(Locations.under(tmp_path))
    text = (CASES / "12-numpy2-vs-cann-500001-and-pip-conflict.txt").read_text()
    found = parse_pip_check(text, recipe.dependencies.benign)
    assert ("opencv-python", "numpy", False) in [(c.package, c.requirement, c.benign) for c in found]
    assert ("opencv-python-headless", "numpy", True) in [(c.package, c.requirement, c.benign) for c in found]


@pytest.mark.parametrize("text", ["", "No broken requirements found.\n", "\x00\xff garbage\n" * 1000,
                                  "WARNING: Ignoring invalid distribution -umpy\n"])
def test_pip_check_quiet_or_hostile_output_has_no_conflicts(text):
    assert parse_pip_check(text) == []


def test_dependencies_action_fails_on_an_unknown_conflict(tmp_path):
    lines = []
    out = REPORT_PIP_CHECK + "mindspeed 0.12.1 has requirement torch==2.1.0, but you have torch 2.7.1.\n"
    ctx = make_ctx(tmp_path, FakeHost(commands=lambda a: ok(out, code=1)))
    (step,) = get_stage("dependencies").steps(ctx)
    from wizard.stages.base import ActionIO
    code = step.action(ctx, ActionIO(emit=lambda t, **k: lines.append(t), cancelled=lambda: False))
    assert code == 1
    assert any(line.startswith("CONFLICT: mindspeed") for line in lines)
    assert sum(line.startswith("harmless: ") for line in lines) == 4
    benign_only = make_ctx(tmp_path, FakeHost(commands=lambda a: ok(REPORT_PIP_CHECK, code=1)))
    assert get_stage("dependencies").done(benign_only) is True


def test_model_code_done_checks_heads_patch_and_installs(tmp_path):
    recipe = load_recipe(Locations.under(tmp_path))
    heads = {r.dest: r.commit for r in recipe.model_code.repos.values()}

    def run(argv, patch_ok=True):
        if argv[:2] == ["git", "-C"]:
            return ok(heads[argv[2]] + "\n")
        if argv[:2] == ["git", "apply"]:
            return ok(code=0 if patch_ok else 1)
        if "show" in argv:
            return ok("Name: lerobot\nVersion: 0.3\n---\nName: transformers\nVersion: 4\n---\nName: mindspeed\n")
        raise AssertionError(argv)

    files = {"/root/DrivingSDK/.git/HEAD": "ref"}
    stage = get_stage("model-code")
    assert stage.done(make_ctx(tmp_path, FakeHost(files=files, commands=run))) is True
    not_patched = make_ctx(tmp_path, FakeHost(files=files, commands=lambda a: run(a, patch_ok=False)))
    assert stage.done(not_patched) is False
    res = {r.id: r for r in stage.verify(not_patched)}
    assert res["pi05-patch"].status is Status.FAIL and res["pi05-patch"].remedies == ["patch-does-not-apply"]


def test_weights_missing_and_present(tmp_path):
    stage = get_stage("weights")
    empty = make_ctx(tmp_path, FakeHost())
    assert stage.done(empty) is False
    lines = []
    from wizard.stages.base import ActionIO
    code = stage.steps(empty)[1].action(empty, ActionIO(emit=lambda t, **k: lines.append(t), cancelled=lambda: False))
    assert code == 1 and "modelscope.cn" in " ".join(lines) and "/root/paligemma-3b-pt-224" in lines[0]
    files = {"/data/pi05_base/config.json": "{}", "/data/pi05_base/model.safetensors": "",
             "/root/paligemma-3b-pt-224/config.json": "{}", "/root/paligemma-3b-pt-224/model-00001.safetensors": "",
             "/root/paligemma-3b-pt-224/tokenizer.model": "",
             "/root/DrivingSDK/model_examples/Pi-0.5/lerobot/src/lerobot/processor/tokenizer_processor.py":
                 'AutoTokenizer.from_pretrained("/root/paligemma-3b-pt-224")\n'}
    assert stage.done(make_ctx(tmp_path, FakeHost(files=files))) is True


def test_train_done_reads_the_log(tmp_path):
    log = "/root/DrivingSDK/model_examples/Pi-0.5/lerobot/test/output/train_performance_bf16.log"
    stage = get_stage("train")
    assert stage.done(make_ctx(tmp_path, FakeHost(files={log: "step:20 smpl:2K\n"}))) is False
    assert stage.done(make_ctx(tmp_path, FakeHost(files={log: "INFO ... End of training\n"}))) is True
