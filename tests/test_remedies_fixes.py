"""Fix actions on real files in tmp: the patch, idempotence (twice = once), reversal."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.remedies_fixtures import QUANTILE_SCRIPT, TRAIN_SCRIPT, raw_text
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.remedies.fixes import (BACKUP_SUFFIX, FixContext, FixError, apply_fix, patch_quantile_script,
                                   read_record, revert_fix, stage_env_sources)

LEROBOT = "/root/lerobot"
SCRIPT = "src/lerobot/datasets/v30/augment_dataset_quantile_stats.py"


@pytest.fixture
def world(tmp_path):
    root = tmp_path / "root"
    (root / "root/lerobot/src/lerobot/datasets/v30").mkdir(parents=True)
    (root / "root/lerobot" / SCRIPT).write_text(QUANTILE_SCRIPT)
    (root / "root/lerobot/test").mkdir()
    for name in ("train_full.sh", "train_performance.sh"):
        (root / "root/lerobot/test" / name).write_text(TRAIN_SCRIPT)
    ds = root / "data/koch_test/meta"
    ds.mkdir(parents=True)
    shutil.copy("/work/shared/datasets/tiny_v30/meta/info.json", ds / "info.json")
    shutil.copy("/work/shared/datasets/tiny_v30/meta/stats.json", ds / "stats.json")
    host = LocalHost(root, env={"PATH": "/usr/bin:/bin"})
    ctx = FixContext(host=host, locations=Locations.under(tmp_path / "wiz"), dataset_path="/data/koch_test",
                     lerobot_dir=LEROBOT, quantile_script=SCRIPT, run_converter=False)
    return root, ctx


def test_quantile_patch_idempotent_and_reversible(world):
    root, ctx = world
    path = root / "root/lerobot" / SCRIPT
    first = apply_fix("hub-push-local-path", ctx)
    assert first.ok and first.changed and first.rerun == "dataset"
    patched = path.read_text()
    assert "pi05-wizard: hub-push-local-path" in patched and (root / f"root/lerobot/{SCRIPT}{BACKUP_SUFFIX}").exists()
    compile(patched, "x", "exec")
    # the return sits right before the push, same indentation
    lines = patched.split("\n")
    i = next(n for n, ln in enumerate(lines) if "dataset.push_to_hub()" in ln)
    assert lines[i - 1].startswith("    return  # pi05-wizard")
    second = apply_fix("hub-push-local-path", ctx)
    assert not second.changed and path.read_text() == patched
    back = revert_fix("hub-push-local-path", ctx)
    assert back.changed and path.read_text() == QUANTILE_SCRIPT
    assert not (root / f"root/lerobot/{SCRIPT}{BACKUP_SUFFIX}").exists()
    assert not revert_fix("hub-push-local-path", ctx).changed


def test_patched_script_really_stops_before_the_push(world, tmp_path):
    root, ctx = world
    apply_fix("hub-push-local-path", ctx)
    script = (root / "root/lerobot" / SCRIPT).read_text().replace(
        "def write_stats(stats, root):", "def write_stats(stats, root):\n    print('SAVED')")
    f = tmp_path / "s.py"
    f.write_text(script)
    res = subprocess.run(["python3", str(f), "--repo-id=/data/koch_test"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert res.returncode == 0, res.stderr  # push_to_hub (undefined `dataset` here) is never reached
    assert "SAVED" in res.stdout


def test_saved_state_is_reported_first(world):
    root, ctx = world
    res = apply_fix("hub-push-local-path", ctx)
    assert any("is already in format v3.0" in d for d in res.details)
    assert any("are not yet saved" in d for d in res.details)  # the converter's stats have no quantiles
    shutil.copy("/work/shared/datasets/tiny_v30.stats.lerobot.json", root / "data/koch_test/meta/stats.json")
    res = apply_fix("hub-push-local-path", ctx)
    assert res.message.startswith("The work was already saved locally")


def test_module_level_push_is_commented_and_restored():
    text = "import x\nds.push_to_hub()\n"
    new, changed = patch_quantile_script(text)
    assert changed and new.startswith("import x\n# pi05-wizard: hub-push-local-path | ds.push_to_hub()")
    from wizard.remedies.fixes import unpatch_quantile_script
    assert unpatch_quantile_script(new) == (text, True)


def test_script_without_push_is_refused():
    with pytest.raises(FixError, match="no push_to_hub"):
        patch_quantile_script("print('hi')\n")


def test_world_size_set_to_visible_npus(world):
    root, ctx = world
    ctx.visible_npus = 8
    res = apply_fix("world-size-mismatch", ctx)
    assert res.ok and res.changed
    for name in ("train_full.sh", "train_performance.sh"):
        text = (root / "root/lerobot/test" / name).read_text()
        assert "world_size=8\n" in text and "--num_processes=${world_size}" in text
    again = apply_fix("world-size-mismatch", ctx)
    assert again.ok and not again.changed
    revert_fix("world-size-mismatch", ctx)
    assert (root / "root/lerobot/test/train_full.sh").read_text() == TRAIN_SCRIPT


def test_world_size_counts_visible_devices_from_env(world):
    root, ctx = world
    ctx.host = LocalHost(root, env={"ASCEND_RT_VISIBLE_DEVICES": "4,5,6,7"})
    apply_fix("world-size-mismatch", ctx)
    assert "world_size=4\n" in (root / "root/lerobot/test/train_full.sh").read_text()


def test_world_size_without_scripts_fails_plainly(world, tmp_path):
    root, ctx = world
    ctx.train_scripts = ["test/none.sh"]
    ctx.visible_npus = 8
    res = apply_fix("world-size-mismatch", ctx)
    assert not res.ok and "No training script" in res.message


@pytest.mark.parametrize("rid, lines", [
    ("cann-env-not-sourced", ["source /usr/local/Ascend/ascend-toolkit/set_env.sh"]),
    ("nnal-missing", ["source /usr/local/Ascend/ascend-toolkit/set_env.sh", "source /usr/local/Ascend/nnal/atb/set_env.sh"]),
])
def test_env_fix_profile_idempotent_and_reversible(world, rid, lines):
    root, ctx = world
    for f in ("usr/local/Ascend/ascend-toolkit/set_env.sh", "usr/local/Ascend/nnal/atb/set_env.sh"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("export X=1\n")
    profile = root / "root/.bashrc"
    profile.write_text("alias ll='ls -l'\n")
    res = apply_fix(rid, ctx)
    assert res.ok and res.changed
    text = profile.read_text()
    for ln in lines:
        assert text.count(ln) == 1
    assert stage_env_sources(ctx.locations) == [ln.split(" ", 1)[1] for ln in lines]
    apply_fix(rid, ctx)
    assert profile.read_text() == text  # twice = once
    revert_fix(rid, ctx)
    assert profile.read_text() == "alias ll='ls -l'\n" and stage_env_sources(ctx.locations) == []


def test_env_fix_without_cann_says_install(world):
    root, ctx = world
    res = apply_fix("cann-env-not-sourced", ctx)
    assert not res.ok and res.rerun == "cann" and "not installed" in res.message
    assert not (root / "root/.bashrc").exists()


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"})


def test_patch_already_applied_reverse_check(tmp_path):
    repo = tmp_path / "lerobot"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    _git("init", "-q", cwd=repo)
    _git("add", "a.py", cwd=repo)
    _git("commit", "-qm", "base", cwd=repo)
    (repo / "a.py").write_text("x = 2\n")
    diff = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True).stdout
    (tmp_path / "pi05.patch").write_text(diff)
    ctx = FixContext(host=LocalHost(), locations=Locations.under(tmp_path / "wiz"), lerobot_dir=str(repo),
                     patch_file=str(tmp_path / "pi05.patch"))
    res = apply_fix("patch-already-applied", ctx)  # the change is in the tree: applied
    assert res.ok and read_record(ctx.locations, "patch-applied")["patch"].endswith("pi05.patch")
    assert not apply_fix("patch-already-applied", ctx).changed
    (repo / "a.py").write_text("x = 1\n")  # not applied any more
    res = apply_fix("patch-already-applied", ctx)
    assert not res.ok and "patch-does-not-apply" in res.message


def test_numpy_benign_recorded_blocking_offers_pin(world):
    root, ctx = world
    ctx.log_text = ("te 0.4.0 requires ml-dtypes, which is not installed.\n"
                    "opencv-python-headless 4.12.0.88 requires numpy<2.3.0,>=2; python_version >= \"3.9\", "
                    "but you have numpy 1.26.0 which is incompatible.\n")
    res = apply_fix("numpy-conflict", ctx)
    assert res.ok and read_record(ctx.locations, "numpy-conflict")["decision"] == "benign"
    ctx.log_text = raw_text("12-numpy2-vs-cann-500001-and-pip-conflict.txt")
    res = apply_fix("numpy-conflict", ctx)  # confirm says no by default: nothing is run
    assert not res.ok and not res.changed and "numpy<2" in res.message
    assert any(d.startswith("blocking") for d in res.details)


def test_shm_fix_confirms_first(world):
    root, ctx = world
    calls = []
    ctx.recreate_container = lambda confirm: calls.append(1) or "recreated"
    res = apply_fix("shm-too-small", ctx)
    assert not res.ok and calls == [] and "--shm-size 500g" in res.message
    ctx.confirm = lambda q: True
    res = apply_fix("shm-too-small", ctx)
    assert res.ok and calls == [1]
    ctx.recreate_container = None
    res = apply_fix("shm-too-small", ctx)
    assert not res.automatic and "docker" in res.message


def test_instruction_only_remedies(world):
    root, ctx = world
    res = apply_fix("driver-not-mounted", ctx)
    assert not res.automatic and res.rerun == "container" and "/usr/local/Ascend/driver" in res.message
    with pytest.raises(KeyError):
        apply_fix("no-such-id", ctx)
