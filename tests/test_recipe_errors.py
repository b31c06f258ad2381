"""Each kind of bad recipe gives one clear RecipeError naming file, field and expectation, and exit 2."""

from __future__ import annotations

import pytest

from tests.recipe_fixtures import isolated, run_cli, user_recipe_path  # noqa: F401
from wizard.locations import Locations
from wizard.recipe import RecipeError, load_recipe

CASES = [
    # (name, file content, expected field, words the message must hold)
    ("syntax", b'[cann\nversion = "8.3.RC1"\n', "", ["not valid TOML", "line 1"]),
    ("unterminated", b'[cann]\nversion = "8.3.RC1\n', "", ["not valid TOML"]),
    ("binary", b"\x00\xff\xfe\x00garbage", "", ["not a TOML file"]),
    ("unknown-field", b'[cann]\nversoin = "8.3.RC1"\n', "cann.versoin",
     ["`versoin` is not a field of `cann`", "did you mean `version`"]),
    ("unknown-table", b'[cnan]\nversion = "8.3.RC1"\n', "cnan", ["`cnan` is not a field of the top level",
                                                                 "did you mean `cann`"]),
    ("wrong-type-int", b'[train]\nworld_size = "eight"\n', "train.world_size", ["expected an integer", "'eight'"]),
    ("wrong-type-list", b'[apt]\npackages = "git vim"\n', "apt.packages", ["expected a list"]),
    ("wrong-type-table", b"cann = 5\n", "cann", ["expected a table"]),
    ("bad-cann-version", b'[cann]\nversion = "8.3"\n', "cann.version", ["expected a CANN version like 8.3.RC1"]),
    ("bad-torch-version", b'[python]\ntorch = "two point seven"\n', "python.torch", ["expected a version like 2.7.1"]),
    ("bad-commit", b'[model_code.repos.lerobot]\ncommit = "b954337"\n', "model_code.repos.lerobot.commit",
     ["40-digit"]),
    ("bad-sha", b'[cann.runfiles.toolkit]\nsha256 = "xyz"\n', "cann.runfiles.toolkit.sha256", ["64 hexadecimal"]),
    ("bad-url", b'[cann.runfiles.toolkit]\nurl = "http://example.com/a.run"\n', "cann.runfiles.toolkit.url",
     ["https://"]),
    ("relative-path", b'[dataset]\npath = "data/koch_test"\n', "dataset.path", ["absolute path"]),
    ("bad-shm", b'[container]\nshm_size = "lots"\n', "container.shm_size", ["500g"]),
    ("bad-arch", b'[target]\narch = "arm"\n', "target.arch", ["'aarch64'", "'arm'"]),
    ("world-size-mismatch", b'[train]\nvisible_devices = "4,5,6,7"\n', "train",
     ["world_size (8) must equal the number of visible_devices (4)"]),
    ("unknown-mode", b'[train]\nmode = "fast"\n', "train", ["'fast' is not one of the modes"]),
    ("bad-mount", b'[[container.mounts]]\nsource = "relative"\ntarget = "/x"\n', "container.mounts.0.source",
     ["absolute path"]),
]


@pytest.mark.parametrize("name,content,field,words", CASES, ids=[c[0] for c in CASES])
def test_bad_override_gives_one_clear_error(tmp_path, name, content, field, words):
    bad = tmp_path / "bad recipe.toml"
    bad.write_bytes(content)
    with pytest.raises(RecipeError) as info:
        load_recipe(Locations.under(tmp_path), bad)
    err = info.value
    text = str(err)
    assert err.file == str(bad) and text.startswith(str(bad) + ":")
    assert err.field == field
    if field:
        assert f"field `{field}`" in text
    for w in words:
        assert w in text, text
    assert "\n" not in text and "Traceback" not in text


def test_error_names_the_user_file_not_the_flag_file(tmp_path):
    locs = Locations.under(tmp_path)
    locs.config_dir.mkdir(parents=True)
    locs.user_recipe.write_text('[python]\ntorch = "seven"\n')
    good = tmp_path / "good.toml"
    good.write_text('[cann]\nversion = "8.5.0"\n')
    with pytest.raises(RecipeError) as info:
        load_recipe(locs, good)
    assert info.value.file == str(locs.user_recipe)


def test_several_problems_name_the_first_and_count_the_rest(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[python]\ntorch = "x"\ntorch_npu = "y"\n[cann]\nversion = "z"\n')
    with pytest.raises(RecipeError, match=r"\(and 2 more problems\)"):
        load_recipe(Locations.under(tmp_path), bad)


def test_missing_recipe_flag_file(tmp_path):
    with pytest.raises(RecipeError, match="no such file"):
        load_recipe(Locations.under(tmp_path), tmp_path / "nope.toml")


def test_huge_garbage_line_is_a_short_error(tmp_path):
    bad = tmp_path / "huge.toml"
    bad.write_text('[dataset]\nname = ' + "x" * 2_000_000 + "\n")
    with pytest.raises(RecipeError) as info:
        load_recipe(Locations.under(tmp_path), bad)
    assert len(str(info.value)) < 400


def test_overlong_value_is_cut_in_the_message(tmp_path):
    bad = tmp_path / "long.toml"
    bad.write_text('[cann]\nversion = "' + "9" * 5000 + '"\n')
    with pytest.raises(RecipeError) as info:
        load_recipe(Locations.under(tmp_path), bad)
    assert len(str(info.value)) < 5200  # names the value once; the file path and field are there
    assert "cann.version" in str(info.value)


@pytest.mark.parametrize("command", [["config"], ["plan", "cann"]])
def test_cli_exits_2_on_a_bad_recipe_flag(isolated, monkeypatch, command):
    bad = isolated / "bad.toml"
    bad.write_text('[cann]\nversion = "8.3"\n')
    code, out, err = run_cli(["--recipe", str(bad), *command], monkeypatch)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "bad recipe" in err and str(bad) in err and "cann.version" in err


def test_cli_exits_2_on_a_bad_user_config(isolated, monkeypatch):
    user = user_recipe_path(isolated)
    user.parent.mkdir(parents=True)
    user.write_text("[[[")
    code, _, err = run_cli(["config"], monkeypatch)
    assert code == 2 and str(user) in err and "not valid TOML" in err
