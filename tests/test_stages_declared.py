"""Every stage is declared in order with real steps from the recipe; argv builders keep paths whole."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.recipe_fixtures import SAMPLES
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.hosts.local import LocalHost
from wizard.stages.base import StageContext, Where
from wizard.stages.cann import PERSIST_SCRIPT
from wizard.stages.common import key_value_version, running_version, sourced
from wizard.stages.registry import STAGE_IDS, UnknownStage, all_stages, get_stage


@pytest.fixture
def ctx(tmp_path):
    locs = Locations.under(tmp_path / "wiz")
    return StageContext(recipe=load_recipe(locs), host=LocalHost(tmp_path / "root"), locations=locs)


def test_ids_and_order_exactly():
    assert STAGE_IDS == ("preflight", "container", "cann", "system-packages", "torch", "model-code",
                         "dependencies", "dataset", "weights", "train", "image")
    assert [s.id for s in all_stages()] == list(STAGE_IDS)
    with pytest.raises(UnknownStage, match="unknown stage 'nope'"):
        get_stage("nope")


def test_every_stage_is_described_and_depends_only_on_earlier_stages(ctx):
    for i, stage in enumerate(all_stages()):
        assert stage.title
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", stage.description.strip()) if s]
        assert 1 <= len(sentences) <= 3, (stage.id, stage.description)
        for dep in stage.depends_on:
            assert dep in STAGE_IDS[:i], (stage.id, dep)
        steps = stage.steps(ctx)
        assert steps, stage.id
        for step in steps:
            if step.argv is not None:
                assert all(isinstance(a, str) and a for a in step.argv), (stage.id, step.argv)


def _argvs(ctx, stage_id):
    return [s.argv for s in get_stage(stage_id).steps(ctx) if s.argv is not None]


def test_cann_steps_download_on_the_host_and_install_with_the_recipes_flags(ctx):
    steps = get_stage("cann").steps(ctx)
    downloads = [s for s in steps if s.action is not None]
    assert [s.where for s in downloads] == [Where.HOST] * 3
    assert all(s.describe.startswith("wget -c https://ascend-repo.obs.cn-east-2.myhuaweicloud.com/CANN/CANN%208.3.RC1/")
               for s in downloads)
    argvs = [" ".join(a) for a in _argvs(ctx, "cann")]
    assert any(a.endswith("/data/cann/8.3.RC1/Ascend-cann-toolkit_8.3.RC1_linux-aarch64.run --upgrade --install-for-all -q")
               for a in argvs)
    kernels = next(a for a in argvs if "kernels-910b" in a and "--install " in a)
    assert "/usr/local/Ascend/ascend-toolkit/set_env.sh" in kernels  # sourced first, as in the report
    assert any("nnal_8.3.RC1_linux-aarch64.run --upgrade --install-for-all -q" in a for a in argvs)
    assert steps[-1].argv[-2:] == ["/usr/local/Ascend/ascend-toolkit/set_env.sh", "/usr/local/Ascend/nnal/atb/set_env.sh"]


def test_other_stages_carry_the_reports_commands(ctx):
    assert ["apt-get", "install", "-y", "git", "vim", "wget", "gcc", "cmake", "curl", "iproute2", "python3-dev",
            "python3-venv", "bc"] in _argvs(ctx, "system-packages")
    assert _argvs(ctx, "torch") == [["python3", "-m", "pip", "install", "torch==2.7.1"],
                                    ["python3", "-m", "pip", "install", "torch_npu==2.7.1"]]
    mc = _argvs(ctx, "model-code")
    assert ["git", "checkout", "b954337ac7c8db5ea592c0d59dfb435845d9d380"] in mc
    assert mc.index(["git", "checkout", "fix/lerobot_openpi"]) + 1 == mc.index(
        ["git", "checkout", "dcddb970176382c0fcf4521b0c0e6fc15894dfe0"])
    assert ["git", "checkout", "c357f9d2fd6f35365c9dc86f4792b8779420b667"] in mc
    assert ["git", "apply", "pi05.patch"] in mc
    assert mc.count(["python3", "-m", "pip", "install", "-e", "."]) == 3
    apply = next(s for s in get_stage("model-code").steps(ctx) if s.argv == ["git", "apply", "pi05.patch"])
    assert "git apply --reverse --check" in apply.skip_if.describe
    assert ["bash", "test/paligemma_weights_mod.sh", "/root/paligemma-3b-pt-224"] in _argvs(ctx, "weights")
    train = get_stage("train").steps(ctx)[-1]
    assert train.timeout_s is None and train.env == {"ASCEND_RT_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"}
    assert train.argv[-3:] == ["test/train_performance.sh", "/data/koch_test", "/data/pi05_base"]
    assert train.cwd == "/root/DrivingSDK/model_examples/Pi-0.5/lerobot"


def test_full_mode_runs_train_full(tmp_path):
    over = tmp_path / "o.toml"
    over.write_text('[train]\nmode = "full"\nworld_size = 4\nvisible_devices = "4,5,6,7"\n')
    locs = Locations.under(tmp_path)
    c = StageContext(recipe=load_recipe(locs, over), host=LocalHost(tmp_path), locations=locs)
    sed, train = get_stage("train").steps(c)
    assert "world_size=4" in sed.argv[3] and sed.argv[-1] == "test/train_full.sh"
    assert "test/train_full.sh" in train.argv and train.env["ASCEND_RT_VISIBLE_DEVICES"] == "4,5,6,7"


def test_world_size_sed_rewrites_the_scripts_line(tmp_path, ctx):
    script = tmp_path / "train_performance.sh"
    script.write_text("#!/bin/bash\nworld_size=16\nbatch_size=8\n  world_size=16 # indented\n")
    sed = get_stage("train").steps(ctx)[0]
    subprocess.run([*sed.argv[:-1], str(script)], check=True)
    assert script.read_text() == "#!/bin/bash\nworld_size=8\nbatch_size=8\n  world_size=8 # indented\n"


def test_sourced_keeps_odd_paths_one_argument(tmp_path):
    env_dir = tmp_path / "it's a dir"
    env_dir.mkdir()
    env_file = env_dir / 'set "env".sh'
    env_file.write_text("export PI_TEST_VAR='from env file'\n")
    argv = sourced([str(env_file)], [sys.executable, "-c", "import os,sys; print(os.environ['PI_TEST_VAR']); "
                                     "print(sys.argv[1:])", "a b", "c'd", "--"])
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["from env file", "['a b', \"c'd\", '--']"]


def test_sourced_stops_when_an_env_file_is_missing(tmp_path):
    argv = sourced([str(tmp_path / "missing.sh")], ["true"])
    assert subprocess.run(argv, capture_output=True).returncode != 0


def test_persist_env_is_idempotent_and_quotes_paths(tmp_path):
    rc = tmp_path / "home dir" / ".bashrc"
    rc.parent.mkdir()
    rc.write_text("alias ll='ls -l'\n")
    files = ["/usr/local/Ascend/ascend-toolkit/set_env.sh", "/opt/it's here/set_env.sh"]
    for _ in range(2):
        subprocess.run(["bash", "-c", PERSIST_SCRIPT, "persist-env", str(rc), *files], check=True)
    lines = rc.read_text().splitlines()
    assert lines[0] == "alias ll='ls -l'"
    assert lines[1] == "source /usr/local/Ascend/ascend-toolkit/set_env.sh"
    assert len(lines) == 3 and lines[2].startswith("source /opt/it")
    # the written line really sources the odd path
    odd = tmp_path / "it's here"
    odd.mkdir()
    (odd / "set_env.sh").write_text("echo sourced-ok\n")
    line = subprocess.run(["bash", "-c", 'printf "source %q" "$1"', "_", str(odd / "set_env.sh")],
                          capture_output=True, text=True).stdout
    assert subprocess.run(["bash", "-c", line], capture_output=True, text=True).stdout == "sourced-ok\n"


def test_running_version_reads_the_running_key_not_the_history():
    text = (SAMPLES / "version.cfg_8.1.RC1_with_install_history.txt").read_text()
    assert running_version(text, "toolkit_running_version") == "8.1.RC1"
    assert running_version(text, "opp_kernel_running_version") == "8.1.RC1"
    assert running_version(text, "nope_running_version") is None
    assert running_version("toolkit_running_version=[7.7.T9.0.B057:8.1.T6][7.7.T20.0.B210:8.3.RC1]\n",
                           "toolkit_running_version") == "8.3.RC1"
    for broken in ("", "toolkit_running_version=", "toolkit_running_version=[]", "\x00\xff" * 100,
                   "toolkit_running_version=[7.7.T20"):
        assert running_version(broken, "toolkit_running_version") is None


def test_key_value_versions_on_real_samples():
    nnal = (SAMPLES / "nnal_atb_version.info_8.0.T63.txt").read_text()
    assert key_value_version(nnal, ["Ascend-cann-atb"]) == "8.0.T63"
    drv = (SAMPLES / "driver_version.info_25.3.rc1.txt").read_text()
    assert key_value_version(drv, ["Version"]) == "25.3.rc1"
    assert key_value_version("", ["Version"]) is None
