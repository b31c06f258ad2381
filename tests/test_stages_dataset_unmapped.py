"""Every host-side action of the dataset stage says plainly why it cannot run when the recipe's dataset
path is outside the data mount (one sentence on stderr, exit 1), never a traceback; and the TUI's
catalogue helper is the engine's `catalogue_or_none`."""

from __future__ import annotations

from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.stages import dataset as ds
from wizard.stages.base import ActionIO, StageContext
from wizard.hosts.local import LocalHost


def test_actions_say_why_when_the_dataset_is_not_under_the_data_mount(tmp_path):
    locations = Locations.under(tmp_path)
    recipe = load_recipe(locations)
    recipe = recipe.model_copy(update={"dataset": recipe.dataset.model_copy(update={"path": "/elsewhere/koch"})})
    ctx = StageContext(recipe=recipe, host=LocalHost(tmp_path / "root"), locations=locations)
    for action in (ds._inspect_action, ds._precheck_action, ds._stats_action):
        lines: list[tuple[str, str]] = []
        io = ActionIO(emit=lambda text, stream="stdout", **_: lines.append((stream, text)), cancelled=lambda: False)
        assert action(ctx, io) == 1, action.__name__
        assert len(lines) == 1 and lines[0][0] == "stderr" and "/elsewhere/koch" in lines[0][1], (action, lines)


def test_screens_share_the_engines_optional_catalogue(monkeypatch):
    import screens.preflight
    import screens.stage
    from wizard.remedies import catalogue as cat_mod

    assert screens.preflight._catalogue() is not None and screens.stage._catalogue() is not None

    def broken():
        raise cat_mod.CatalogueError("assets/remedies.toml: cannot read the remedy catalogue")

    monkeypatch.setattr(cat_mod, "load_catalogue", broken)
    assert cat_mod.catalogue_or_none() is None
    assert screens.preflight._catalogue() is None and screens.stage._catalogue() is None
