"""Writing meta/stats.json: merge keeps camera entries, backup, atomic replace, nothing half-written; the writer."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from dataset_fixtures import TINY_V30, copy_dataset, golden, small_dataset
from wizard.dataset.layout import DatasetError
from wizard.dataset.stats import compute_stats, write_stats

CAMERA = "observation.images.laptop"


def test_merge_keeps_camera_entry_and_backs_up(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    before = (root / "meta/stats.json").read_text()
    run = compute_stats(root)
    out = write_stats(root, run.stats)
    after = json.loads((root / "meta/stats.json").read_text())
    assert after[CAMERA] == json.loads(before)[CAMERA]
    assert CAMERA in out.kept and "action" in out.replaced
    assert out.backup is not None and out.backup.name.startswith("stats.json.bak-")
    assert out.backup.read_text() == before
    ref = golden()
    for feature in run.stats:
        assert after[feature]["q99"] == pytest.approx(ref[feature]["q99"], rel=1e-6, abs=1e-9)
    assert not [p for p in (root / "meta").iterdir() if p.name.endswith(".tmp")]


def test_second_write_gets_its_own_backup(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    run = compute_stats(root, features=["action"])
    first = write_stats(root, run.stats)
    second = write_stats(root, run.stats)
    assert first.backup != second.backup and first.backup.exists() and second.backup.exists()


def test_no_existing_stats_means_no_backup(tmp_path):
    root = small_dataset(tmp_path / "d", with_stats=False)
    out = write_stats(root, compute_stats(root).stats)
    assert out.backup is None and json.loads(out.path.read_text())["action"]["count"] == [80]


def test_corrupt_existing_stats_is_left_alone(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "meta/stats.json").write_text("{broken")
    with pytest.raises(DatasetError, match="stats.json"):
        write_stats(root, {"action": {"min": [0.0]}})
    assert (root / "meta/stats.json").read_text() == "{broken"
    assert not list((root / "meta").glob("stats.json.bak-*"))


def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    root = copy_dataset(TINY_V30, tmp_path)
    digest = hashlib.sha256((root / "meta/stats.json").read_bytes()).hexdigest()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(DatasetError, match="No space left"):
        write_stats(root, compute_stats(root).stats)
    assert hashlib.sha256((root / "meta/stats.json").read_bytes()).hexdigest() == digest
    assert not [p for p in (root / "meta").iterdir() if p.name.startswith(".stats.json.")]


def test_non_finite_values_cannot_be_written(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    with pytest.raises(ValueError):
        write_stats(root, {"action": {"q01": [float("nan")]}})
    assert "q01" not in json.loads((root / "meta/stats.json").read_text())["action"]


def test_writer_is_deterministic(tmp_path):
    a = small_dataset(tmp_path / "a", seed=4)
    b = small_dataset(tmp_path / "b", seed=4)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    info = json.loads((a / "meta/info.json").read_text())
    assert info["codebase_version"] == "v3.0" and info["total_frames"] == 80
    assert info["features"]["observation.state"]["shape"] == [6]
