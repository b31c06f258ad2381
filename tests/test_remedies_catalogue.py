"""The catalogue file: every id the issue lists, valid fields, and loader errors on bad files."""

from __future__ import annotations

import pytest

from wizard.remedies.catalogue import CHECK_IDS, STAGE_IDS, CatalogueError, load_catalogue, parse_catalogue
from wizard.remedies.hints import required_hints

ISSUE_IDS = [
    "hub-push-local-path", "numpy-conflict", "torchcodec-fallback", "torchcodec-unavailable",
    "cann-env-not-sourced", "nnal-missing", "driver-not-mounted", "dcmi-init-failed", "npu-device-busy",
    "visible-devices-out-of-range", "torch-npu-cann-mismatch", "shm-too-small", "npu-oom", "hccl-timeout",
    "hccl-port-in-use", "hccn-conf-missing", "exec-format-error", "ascend-runtime-missing",
    "patch-already-applied", "patch-does-not-apply", "dataset-needs-v30", "dataset-conversion-failed",
    "quantile-stats-missing", "paligemma-offline", "world-size-mismatch", "benign-warning",
]
# Ids the container package (pull, container stage) reports; added when the parts met.
CONTAINER_IDS = ["image-not-found", "registry-unreachable", "container-drift"]


def test_every_issue_id_present_with_real_patterns():
    cat = load_catalogue()
    assert sorted(cat.ids) == sorted(ISSUE_IDS + CONTAINER_IDS)
    for r in cat.remedy:
        assert r.patterns, r.id
        assert len(r.explain) == 2 and all(s.strip().endswith(".") for s in r.explain), r.id
        assert set(r.checks) <= CHECK_IDS
        assert r.rerun == "" or r.rerun in STAGE_IDS
    assert cat["torchcodec-fallback"].severity == "info"
    assert cat["benign-warning"].severity == "info"


def test_every_pattern_has_a_prefilter_hint():
    cat = load_catalogue()
    assert cat._always == []  # no pattern runs on every line


def test_hints_are_required_substrings():
    assert required_hints(r"libatb\.so") == ["libatb.so"]
    assert required_hints(r"(?:device|NPU)\b.*busy") in (["device", "npu"], ["busy"])
    assert required_hints(r"\d+") is None


BASE = '''
[[remedy]]
id = "x-one"
title = "A title"
severity = "warn"
explain = ["One.", "Two."]
patterns = ['abc']
instructions = "do it"
'''


@pytest.mark.parametrize("bad, word", [
    (BASE.replace('"warn"', '"fatal"'), "severity"),
    (BASE.replace("'abc'", "'ab(c'"), "does not compile"),
    (BASE + BASE, "duplicate"),
    (BASE.replace('instructions', 'checks = ["nope"]\ninstructions'), "unknown check"),
    (BASE.replace('instructions', 'rerun = "lunch"\ninstructions'), "unknown stage"),
    (BASE.replace('instructions', 'fix = "magic"\ninstructions'), "not an implemented action"),
    ("[[remedy]\nid=", "not valid TOML"),
    (BASE.replace('["One.", "Two."]', '["One."]'), "explain"),
])
def test_bad_catalogues_are_refused_with_the_field(bad, word):
    with pytest.raises(CatalogueError, match=word):
        parse_catalogue(bad, "test.toml")


def test_missing_file(tmp_path):
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue(tmp_path / "nope.toml")
