"""Dataset path elsewhere: plan says it plainly, inspect/stats advise for the path given, a missing
path is "No dataset at PATH" (real tiny_v21 / tiny_v30 from /work/shared/datasets)."""

from __future__ import annotations

import shlex
import threading

from dataset_fixtures import TINY_V21, TINY_V30, copy_dataset
from runner_fixtures import Collect
from wizard import hints
from wizard.cli import main
from wizard.cli.plan_cmd import build_plan, render_text
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.runner import run_stage
from wizard.stages.base import StageContext
from wizard.stages.dataset import STAGE
from wizard.state import StateStore


def _ctx(tmp_path, dataset_path: str) -> StageContext:
    locs = Locations.under(tmp_path / "state")
    recipe = load_recipe(locs)
    recipe.container.data.host_path = "/srv/data"
    recipe.container.data.container_path = "/data"
    recipe.dataset.path = dataset_path
    return StageContext(recipe=recipe, host=LocalHost(tmp_path / "root"), locations=locs,
                        container=lambda: (_ for _ in ()).throw(AssertionError("no container needed")))


def test_plan_says_outside_the_data_mount_plainly(tmp_path):
    hints.forget()
    ctx = _ctx(tmp_path, "/tmp/elsewhere/tiny_v21")
    text = render_text(build_plan(ctx, ["dataset"], container_probe=lambda: (True, "")))
    want = ("The recipe's [dataset] path /tmp/elsewhere/tiny_v21 is outside the data mount /data (the host's "
            "/srv/data), so the container cannot see it and the wizard has no host folder to map it to: "
            "move the dataset into /srv/data/tiny_v21 on the host and set [dataset] path = \"/data/tiny_v21\" in "
            "the recipe.")
    assert "wizard cannot reach" not in text
    assert f"   done: unknown ({want})" in text
    assert "host side of" not in text and ")_old" not in text
    assert text.count(f"$ cannot run: {want}") == 4  # every host-side step says why


def test_missing_dataset_is_no_dataset_at(tmp_path):
    (tmp_path / "root/srv/data").mkdir(parents=True)
    ctx = _ctx(tmp_path, "/data/absent")
    sink = Collect()
    rec = run_stage(STAGE, ctx, [sink], threading.Event(), StateStore(ctx.locations), force=True)
    lines = [ln.text for ln in sink.lines]
    assert rec.status.value == "failed"
    assert any(t.startswith("No dataset at /srv/data/absent (the recipe's dataset path /data/absent)") for t in lines)
    assert not any("None episodes" in t or "unknown format" in t for t in lines)


def test_cli_missing_path(tmp_path, capsys):
    assert main(["dataset", "inspect", str(tmp_path / "no such")]) == 2
    assert f"No dataset at {tmp_path / 'no such'}" in capsys.readouterr().err


def _recipe(tmp_path, data_host: str) -> str:
    path = tmp_path / "r.toml"
    path.write_text(f'[container.data]\nhost_path = "{data_host}"\ncontainer_path = "/data"\n\n'
                    f'[dataset]\npath = "/data/koch_test"\n')
    return str(path)


def test_inspect_v21_elsewhere_advises_the_recipe_field(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    data = tmp_path / "my data"
    ds = copy_dataset(TINY_V21, data, "tiny v21")
    recipe = _recipe(tmp_path, str(data))
    assert main(["--recipe", recipe, "dataset", "inspect", str(ds)]) == 1
    out = capsys.readouterr().out
    assert "converts only the recipe's dataset (/data/koch_test): set [dataset] path = \"/data/tiny v21\"" in out
    # outside the data mount: the move to make
    other = copy_dataset(TINY_V21, tmp_path / "elsewhere")
    assert main(["--recipe", recipe, "dataset", "inspect", str(other)]) == 1
    out = capsys.readouterr().out
    assert (f"This folder {other} is outside {data}, the host folder the container mounts at /data, so the "
            "container cannot see it: move" in " ".join(out.split()))
    assert "Convert first: This" not in out and "convert it to v3.0 first. This folder" in " ".join(out.split())
    assert f"move the dataset into {data / 'tiny_v21'} on the host" in out


def test_inspect_v30_without_quantiles_gives_the_exact_stats_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    ds = copy_dataset(TINY_V30, tmp_path, "it's here")
    stats = ds / "meta/stats.json"
    stats.write_text("{}")
    assert main(["--state-dir", str(tmp_path / "st"), "dataset", "inspect", str(ds)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "To fix: run `" in ln)
    cmd = line.split("To fix: run `", 1)[1].split("`", 1)[0]
    assert shlex.split(cmd) == ["pi05-wizard", "--state-dir", str(tmp_path / "st"), "dataset", "stats", str(ds)]
    assert "PATH" not in line
