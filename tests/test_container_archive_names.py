"""The image stage names its commit and archive from the recipe's `[archive]` table (one source of truth)."""

from __future__ import annotations

import datetime as dt

from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.stages.base import StageContext
from wizard.stages.image import archive_path, image_reference


def _ctx(tmp_path, recipe_text: str | None = None, **options):
    locs = Locations.under(tmp_path / "wiz")
    override = None
    if recipe_text is not None:
        override = tmp_path / "my recipe.toml"
        override.write_text(recipe_text)
    recipe = load_recipe(locs, override)
    return StageContext(recipe=recipe, host=LocalHost(tmp_path / "root"), locations=locs,
                        options={"date": dt.date(2025, 2, 28), **options})


def test_default_recipe_names(tmp_path):
    ctx = _ctx(tmp_path)
    assert image_reference(ctx) == "pi:8.3.rc1-910b-ubuntu22.04-py3.10-20250228"
    assert archive_path(ctx) == "/data/pi-8.3.rc1-910b-ubuntu22.04-py3.10-20250228.tar.gz"


def test_operator_archive_table_changes_the_names(tmp_path):
    ctx = _ctx(tmp_path, '[archive]\nrepository = "lab/pi05"\ntag = "v1-{date}"\nfile = "env {date}.tar.gz"\n'
                         'date_format = "%Y-%m-%d"\n[container.data]\nhost_path = "/srv/pi data"\n')
    assert image_reference(ctx) == "lab/pi05:v1-2025-02-28"
    assert archive_path(ctx) == "/srv/pi data/env 2025-02-28.tar.gz"


def test_output_option_wins(tmp_path):
    ctx = _ctx(tmp_path, output="/tmp/x.tar.gz")
    assert archive_path(ctx) == "/tmp/x.tar.gz"
