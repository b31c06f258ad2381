"""The default recipe loads with the report's values; overrides merge with per-field provenance."""

from __future__ import annotations

import json

from pydantic import BaseModel

from tests.recipe_fixtures import isolated, run_cli, user_recipe_path  # noqa: F401
from wizard.locations import Locations
from wizard.recipe import DEFAULT_SOURCE, Recipe, load_recipe, requirements


def _load(tmp_path, override=None):
    return load_recipe(Locations.under(tmp_path), override)


def test_default_recipe_holds_the_reports_values(tmp_path):
    r = _load(tmp_path)
    assert r.image.base == "swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:8.1.rc1-910b-ubuntu22.04-py3.10"
    assert r.image.platform == "linux/arm64"
    c = r.container
    assert (c.name, c.user, c.privileged, c.network_mode, c.shm_size) == ("pi", "root", True, "host", "500g")
    assert c.shm_size_bytes() == 500 * 1024**3
    assert c.devices == [f"/dev/davinci{i}" for i in range(8)] + ["/dev/davinci_manager", "/dev/hisi_hdc",
                                                                  "/dev/devmm_svm"]
    targets = {m.target for m in c.mounts}
    for t in ("/usr/local/Ascend/driver", "/usr/local/Ascend/firmware", "/usr/local/sbin/npu-smi", "/usr/local/sbin",
              "/etc/hccn.conf", "/etc/localtime", "/usr/local/Ascend/driver/lib64", "/usr/local/dcmi",
              "/usr/local/bin/npu-smi", "/etc/ascend_install.info", "/usr/local/Ascend/driver/version.info"):
        assert t in targets
    assert {m.target for m in c.qemu_mounts} == {"/usr/bin/qemu-aarch64-static", "/etc/timezone", "/etc/localtime"}
    assert (c.data.host_path, c.data.container_path) == ("/data", "/data")
    assert r.cann.version == "8.3.RC1"
    assert list(r.cann.runfiles) == ["toolkit", "kernels", "nnal"]
    tk, kn, nn = r.cann.runfiles.values()
    assert tk.install_flags == ["--upgrade", "--install-for-all", "-q"]
    assert kn.install_flags == ["--install", "--install-for-all", "-q"]
    assert nn.install_flags == ["--upgrade", "--install-for-all", "-q"]
    for rf in (tk, kn, nn):
        assert rf.url.startswith("https://ascend-repo.obs.cn-east-2.myhuaweicloud.com/CANN/CANN%208.3.RC1/")
        assert rf.url.endswith("/" + rf.file)
        # Only the .zip packages have published checksums: never recorded as the .run's.
        assert rf.sha256 is None
    assert tk.zip_sha256 == "659adc6cea68c6ed60783c3b7af54b4221b113151c476f4f190796e9764d8c19"
    assert kn.zip_sha256 == "426368a6f77273b9dbf88383408817d15f871c8b169291f638c7f3ab5b5e744d"
    assert tk.zip_file.endswith(".zip") and nn.zip_sha256 is None
    assert r.apt.packages == ["git", "vim", "wget", "gcc", "cmake", "curl", "iproute2", "python3-dev",
                              "python3-venv", "bc"]
    assert (r.python.torch, r.python.torch_npu) == ("2.7.1", "2.7.1")
    repos = r.model_code.repos
    assert list(repos) == ["drivingsdk", "lerobot", "transformers", "mindspeed"]
    assert repos["lerobot"].commit == "b954337ac7c8db5ea592c0d59dfb435845d9d380"
    assert repos["transformers"].branch == "fix/lerobot_openpi"
    assert repos["transformers"].commit == "dcddb970176382c0fcf4521b0c0e6fc15894dfe0"
    assert repos["mindspeed"].commit == "c357f9d2fd6f35365c9dc86f4792b8779420b667"
    assert {(b.package, b.requirement) for b in r.dependencies.benign} == {
        ("opencv-python-headless", "numpy"), ("rerun-sdk", "numpy"), ("te", "ml-dtypes"), ("te", "tornado")}
    assert r.weights.paligemma.path == "/root/paligemma-3b-pt-224"
    assert r.weights.pi05.repo_id == "lerobot/pi05_base"
    assert r.train.world_size == 8 and r.train.visible_devices == "0,1,2,3,4,5,6,7"
    assert r.train.modes["full"].script == "test/train_full.sh"
    assert [x.samples_per_s for x in r.train.reference] == [70.8, 155.1]
    assert r.archive.file.format(date="20250228") == "pi-8.3.rc1-910b-ubuntu22.04-py3.10-20250228.tar.gz"
    assert "ascend-repo.obs.cn-east-2.myhuaweicloud.com" in r.network.hosts


def test_every_field_has_a_docstring():
    seen = set()

    def walk(model):
        if model in seen:
            return
        seen.add(model)
        for name, f in model.model_fields.items():
            assert f.description, f"{model.__name__}.{name} has no docstring"
            for cand in (f.annotation, *getattr(f.annotation, "__args__", ())):
                if isinstance(cand, type) and issubclass(cand, BaseModel):
                    walk(cand)

    walk(Recipe)
    assert len(seen) > 15


def test_default_provenance_is_default(tmp_path):
    r = _load(tmp_path)
    assert r.source_of("cann.version") == DEFAULT_SOURCE
    assert r.source_of("cann.runfiles.nnal.sha256") == DEFAULT_SOURCE  # not in the file: pydantic default


def test_user_file_then_recipe_flag_merge_with_provenance(tmp_path):
    locs = Locations.under(tmp_path)
    locs.config_dir.mkdir(parents=True)
    locs.user_recipe.write_text('[cann]\nversion = "8.5.0"\n[cann.runfiles.nnal]\nsha256 = "' + "ab" * 32 + '"\n'
                                '[python]\ntorch_npu = "2.7.1.post2"\n')
    over = tmp_path / "my recipe.toml"
    over.write_text('[python]\ntorch_npu = "2.7.1.post4"\n[container]\nmounts = []\n')
    r = load_recipe(locs, over)
    assert r.cann.version == "8.5.0" and r.source_of("cann.version") == str(locs.user_recipe)
    assert r.cann.runfiles["nnal"].sha256 == "ab" * 32
    assert r.source_of("cann.runfiles.nnal.sha256") == str(locs.user_recipe)
    # untouched siblings keep the default, key by key
    assert r.cann.runfiles["nnal"].file == "Ascend-cann-nnal_8.3.RC1_linux-aarch64.run"
    assert r.source_of("cann.runfiles.nnal.file") == DEFAULT_SOURCE
    assert list(r.cann.runfiles) == ["toolkit", "kernels", "nnal"]
    # --recipe wins over the user file
    assert r.python.torch_npu == "2.7.1.post4" and r.source_of("python.torch_npu") == str(over)
    # lists are replaced whole
    assert r.container.mounts == [] and r.source_of("container.mounts") == str(over)
    assert r.python.torch == "2.7.1" and r.source_of("python.torch") == DEFAULT_SOURCE


def test_empty_override_file_changes_nothing(tmp_path):
    over = tmp_path / "empty.toml"
    over.write_text("")
    assert _load(tmp_path, over) == _load(tmp_path)


def test_requirements_follow_the_recipe(tmp_path):
    over = tmp_path / "o.toml"
    over.write_text('[container]\nshm_size = "64g"\n[cann]\nversion = "8.5.0"\n[target]\nnpu_count = 16\n')
    req = requirements(_load(tmp_path, over))
    assert req.shm_min_bytes == 64 * 1024**3
    assert req.cann_version == "8.5.0" and req.npu_count == 16
    assert req.data_path == "/data"


def test_config_command_shows_sources(isolated, monkeypatch):
    user = user_recipe_path(isolated)
    user.parent.mkdir(parents=True)
    user.write_text('[train]\nmode = "full"\n')
    code, out, err = run_cli(["config", "--json"], monkeypatch)
    assert code == 0, err
    data = json.loads(out)
    rows = {r["field"]: r for r in data["values"]}
    assert rows["train.mode"] == {"field": "train.mode", "value": "full", "source": str(user)}
    assert rows["cann.version"]["source"] == "default"
    assert rows["container.devices"]["value"][0] == "/dev/davinci0"
    assert data["files"]["user_config_exists"] is True
    code, out, _ = run_cli(["config"], monkeypatch)
    assert code == 0
    assert f'train.mode = "full"   # from {user}' in out
    assert 'cann.version = "8.3.RC1"\n' in out
