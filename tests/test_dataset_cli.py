"""`pi05-wizard dataset inspect|stats`: output, --json, --dry-run, exit codes 0/1/2."""

from __future__ import annotations

import argparse
import json

import pytest

from dataset_fixtures import TINY_V21, TINY_V30, copy_dataset
from wizard.cli import UsageError, add_global_options, dataset_cmd


def cli(*argv: str) -> int:
    """Run the dataset command through its own parser (the same handlers `main()` dispatches to)."""
    parser = argparse.ArgumentParser()
    add_global_options(parser)
    dataset_cmd.register(parser.add_subparsers())
    args = parser.parse_args(list(argv))
    try:
        return args.func(args)
    except UsageError:
        return 2


def test_inspect_text_and_exit_codes(capsys):
    assert cli("dataset", "inspect", str(TINY_V21)) == 1
    out = capsys.readouterr().out
    assert "v2.1" in out and "convert it to v3.0 first" in out and "observation.images.laptop" in out
    assert cli("dataset", "inspect", str(TINY_V30), "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "v3.0" and data["training_ready"] is False and data["episodes"] == 6


def test_inspect_usage_error_for_a_non_folder(tmp_path):
    assert cli("dataset", "inspect", str(tmp_path / "nope")) == 2


def test_stats_dry_run_json_writes_nothing(tmp_path, capsys):
    root = copy_dataset(TINY_V30, tmp_path)
    before = (root / "meta/stats.json").read_text()
    assert cli("dataset", "stats", str(root), "--dry-run", "--json", "--features", "action",
               "observation.state") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["written"] is None and sorted(data["stats"]) == ["action", "observation.state"]
    assert (root / "meta/stats.json").read_text() == before


def test_stats_writes_then_inspect_is_clean(tmp_path, capsys):
    root = copy_dataset(TINY_V30, tmp_path)
    assert cli("dataset", "stats", str(root)) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and "stats.json.bak-" in out
    assert cli("dataset", "inspect", str(root)) == 0


def test_stats_exact(tmp_path, capsys):
    root = copy_dataset(TINY_V30, tmp_path)
    assert cli("dataset", "stats", str(root), "--exact", "--dry-run") == 0
    assert capsys.readouterr().out.startswith("exact statistics")


def test_stats_root_option_maps_the_path(tmp_path, capsys):
    copy_dataset(TINY_V30, tmp_path / "sim/data")
    assert cli("--root", str(tmp_path / "sim"), "dataset", "stats", "/data/tiny_v30", "--dry-run") == 0


@pytest.mark.parametrize("argv,code", [
    (("--features", "nope"), 2),
    (("--features", "observation.images.laptop"), 2),
])
def test_stats_usage_errors(tmp_path, argv, code):
    root = copy_dataset(TINY_V30, tmp_path)
    assert cli("dataset", "stats", str(root), *argv) == code


def test_stats_dataset_problems_exit_1(tmp_path, capsys):
    assert cli("dataset", "stats", str(TINY_V21)) == 1
    assert "convert it to v3.0 first" in capsys.readouterr().out
    assert cli("dataset", "stats", str(tmp_path), "--json") == 1
    assert "info.json is missing" in json.loads(capsys.readouterr().out)["problems"][0]


def test_registered_in_main(capsys):
    from wizard.cli import main

    assert main(["dataset", "inspect", str(TINY_V30)]) == 1
    assert "q01/q99" in capsys.readouterr().out
    assert main(["dataset", "stats", "/definitely/not/here"]) == 2
