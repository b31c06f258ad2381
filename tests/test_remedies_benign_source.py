"""One list of harmless `pip check` conflicts: the recipe's `[[dependencies.benign]]`.

The remedy matcher's numpy-conflict classification, the numpy-conflict fix and the dependencies
stage all judge by it, so an operator's edit to the recipe changes all three the same way.
"""

from __future__ import annotations

import pytest

from tests.remedies_fixtures import raw_text
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import BenignConflict, default_recipe, find_benign
from wizard.remedies.catalogue import CatalogueError, parse_catalogue
from wizard.remedies.fixes import FixContext, apply_fix
from wizard.remedies.matcher import RemedyMatcher, classify_numpy_line, match_text
from wizard.stages.model_code import parse_pip_check

HEADLESS = ('opencv-python-headless 4.12.0.88 requires numpy<2.3.0,>=2; python_version >= "3.9", '
            "but you have numpy 1.26.0 which is incompatible.")
OPERATOR = "mytool 1.0 requires numpy>=2.1, but you have numpy 1.26.0 which is incompatible."
OPERATOR_LIST = [BenignConflict(package="MyTool", requirement="numpy", reason="a viewer training does not use")]


def test_shipped_recipe_is_the_source():
    benign = default_recipe().dependencies.benign
    assert find_benign("opencv_python_headless", "NumPy", benign).reason.startswith("MindSpeed downgrades")
    assert find_benign("te", "ml_dtypes", benign) is not None
    assert find_benign("opencv-python", "numpy", benign) is None
    assert classify_numpy_line(HEADLESS) == "benign"
    assert classify_numpy_line(OPERATOR) == "unknown"


def test_an_edited_list_changes_matcher_stage_and_fix_alike(tmp_path):
    # the operator's list: opencv-python-headless is no longer harmless, mytool is
    assert classify_numpy_line(HEADLESS, benign=OPERATOR_LIST) == "unknown"
    assert classify_numpy_line(OPERATOR, benign=OPERATOR_LIST) == "benign"
    (m,) = match_text(OPERATOR, benign=OPERATOR_LIST)
    assert m.id == "numpy-conflict" and m.severity == "info"
    (m,) = match_text(HEADLESS, benign=OPERATOR_LIST)
    assert m.severity == "warn"

    found = {c.package: c.benign for c in parse_pip_check(HEADLESS + "\n" + OPERATOR, OPERATOR_LIST)}
    assert found == {"opencv-python-headless": False, "mytool": True}

    ctx = FixContext(host=LocalHost(), locations=Locations.under(tmp_path / "wiz"), log_text=OPERATOR,
                     benign=OPERATOR_LIST)
    assert apply_fix("numpy-conflict", ctx).ok
    ctx.log_text = HEADLESS  # not on the operator's list: offered the pin, nothing run (confirm says no)
    res = apply_fix("numpy-conflict", ctx)
    assert not res.ok and "numpy<2" in res.message


def test_sink_uses_the_given_list():
    sink = RemedyMatcher(benign=OPERATOR_LIST)
    sink.feed_text(OPERATOR + "\n")
    assert [(m.id, m.severity) for m in sink.matches] == [("numpy-conflict", "info")]


@pytest.mark.parametrize("line", [
    # on the list, but wanting numpy below 2 (or an older 1.x) is not the harmless case
    "opencv-python-headless 4.8.0 requires numpy<1.25, but you have numpy 1.26.0 which is incompatible.",
    "opencv-python-headless 4.8.0 requires numpy>=1.21, which is not installed.",
    # numpy 2 installed is never harmless with CANN
    "opencv-python-headless 4.12.0.88 requires numpy>=2, but you have numpy 2.2.6 which is incompatible.",
])
def test_numpy_pairs_on_the_list_still_need_numpy2_wanted_and_numpy1_installed(line):
    assert classify_numpy_line(line) != "benign"
    assert [c.benign for c in parse_pip_check(line, default_recipe().dependencies.benign)] == [False]


def test_case12_stage_and_matcher_agree():
    text = raw_text("12-numpy2-vs-cann-500001-and-pip-conflict.txt")
    benign = default_recipe().dependencies.benign
    stage = {c.line: c.benign for c in parse_pip_check(text, benign)}
    (m,) = [x for x in match_text(text, benign=benign) if x.id == "numpy-conflict"]
    compared = [(line, cls) for line, cls in m.numpy_lines if line.strip() in stage]
    assert len(compared) >= 2
    for line, cls in compared:
        assert stage[line.strip()] == (cls == "benign"), line


def test_catalogue_no_longer_holds_a_second_list():
    with pytest.raises(CatalogueError, match="numpy_benign"):
        parse_catalogue('[[numpy_benign]]\nrequirer = "x"\nwants = "y"\n[[remedy]]\nid = "a-b"\ntitle = "abc"\n'
                        'severity = "info"\nexplain = ["One.", "Two."]\ninstructions = "none"\n')
