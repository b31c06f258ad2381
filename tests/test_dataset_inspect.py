"""`inspect_dataset` on the lerobot-written tiny_v21 / tiny_v30 and on broken folders."""

from __future__ import annotations

import json
import shutil

import pytest

from checks.result import Status
from dataset_fixtures import TINY_V21, TINY_V30, copy_dataset, golden, small_dataset
from wizard.dataset.inspect import inspect_dataset
from wizard.dataset.layout import V21, V30, detect_disk_format


def _by_id(report):
    return {r.id: r for r in report.results}


def test_tiny_v30(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    rep = inspect_dataset(root)
    assert (rep.format, rep.disk_format, rep.robot_type, rep.fps, rep.episodes, rep.frames) == \
        (V30, V30, "koch", 30, 6, 404)
    assert [c.name for c in rep.cameras] == ["observation.images.laptop"] and rep.cameras[0].video
    feats = {f.name: (f.dtype, f.shape) for f in rep.features}
    assert feats["observation.state"] == ("float32", [6]) and feats["frame_index"] == ("int64", [1])
    assert rep.tasks == ["Pick up the red cube and put it in the bin.",
                         "Push the blue block to the left side of the table."]
    assert rep.size_bytes > 100_000
    res = _by_id(rep)
    assert res["dataset-format"].status is Status.OK
    assert res["dataset-files"].status is Status.OK and "2" in res["dataset-files"].summary
    # the converter's stats have no quantiles: pi05 cannot train yet
    assert rep.quantiles == {"observation.state": False, "action": False}
    assert res["dataset-stats"].status is Status.FAIL and not rep.training_ready


def test_tiny_v30_with_lerobot_quantiles_is_training_ready(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "meta/stats.json").write_text(json.dumps(golden()))
    rep = inspect_dataset(root)
    assert rep.has_pi05_quantiles and rep.training_ready and not rep.problems


def test_tiny_v21_needs_conversion():
    rep = inspect_dataset(TINY_V21)
    assert rep.format == V21 and rep.disk_format == V21 and rep.needs_conversion
    res = _by_id(rep)
    assert res["dataset-format"].status is Status.FAIL
    assert "convert it to v3.0 first" in res["dataset-format"].messages[0].text
    assert res["dataset-files"].status is Status.OK and "12" in res["dataset-files"].summary
    assert rep.tasks[0].startswith("Pick up")


def test_old_copy_beside_v21_fails_and_beside_v30_warns(tmp_path):
    v21 = copy_dataset(TINY_V21, tmp_path, "ds")
    (tmp_path / "ds_old").mkdir()
    res = _by_id(inspect_dataset(v21))["dataset-old-copy"]
    assert res.status is Status.FAIL and "restore" in res.messages[0].text
    v30 = copy_dataset(TINY_V30, tmp_path, "ds3")
    shutil.copytree(TINY_V21, tmp_path / "ds3_old")
    rep = inspect_dataset(v30)
    assert _by_id(rep)["dataset-old-copy"].status is Status.WARN and rep.old_copy.endswith("ds3_old")


def test_missing_files_are_named(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "videos/observation.images.laptop/chunk-000/file-000.mp4").unlink()
    res = _by_id(inspect_dataset(root))["dataset-files"]
    assert res.status is Status.FAIL
    assert "videos/observation.images.laptop/chunk-000/file-000.mp4" in res.messages[0].text
    v21 = copy_dataset(TINY_V21, tmp_path, "v21")
    for n in range(6):
        (v21 / f"data/chunk-000/episode_{n:06d}.parquet").unlink()
    res = _by_id(inspect_dataset(v21))["dataset-files"]
    assert res.status is Status.FAIL and "and 1 more" in res.messages[0].text and len(res.details["missing"]) == 6


def test_no_info_json_and_not_a_folder(tmp_path):
    rep = inspect_dataset(tmp_path)
    assert [r.id for r in rep.results] == ["dataset-info"] and rep.results[0].status is Status.FAIL
    assert "meta/info.json is missing" in rep.results[0].messages[0].text
    rep = inspect_dataset(tmp_path / "nope")
    assert rep.results[0].status is Status.FAIL and "not a folder" in rep.results[0].summary


@pytest.mark.parametrize("content", [b"", b"\x00" * 64, b"{\"codebase_version\": 3}", b"[]",
                                     json.dumps({"codebase_version": "v3.0", "total_episodes": -1}).encode()])
def test_hostile_info_json(tmp_path, content):
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta/info.json").write_bytes(content)
    rep = inspect_dataset(tmp_path)
    assert rep.results[0].status is Status.FAIL and rep.format is None


def test_info_json_disagreeing_with_disk(tmp_path):
    root = copy_dataset(TINY_V21, tmp_path)
    info = json.loads((root / "meta/info.json").read_text())
    info["codebase_version"] = "v3.0"
    (root / "meta/info.json").write_text(json.dumps(info))
    res = _by_id(inspect_dataset(root))["dataset-format"]
    assert res.status is Status.FAIL and "v2.1 layout" in res.messages[0].text


def test_unknown_version(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    info = json.loads((root / "meta/info.json").read_text())
    info["codebase_version"] = "v9.9"
    (root / "meta/info.json").write_text(json.dumps(info))
    assert _by_id(inspect_dataset(root))["dataset-format"].status is Status.FAIL


def test_corrupt_stats_json(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "meta/stats.json").write_text("{not json")
    res = _by_id(inspect_dataset(root))["dataset-stats"]
    assert res.status is Status.FAIL and "stats.json" in res.messages[0].text


def test_quantiles_of_wrong_width_do_not_count(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    stats = golden()
    stats["action"]["q01"] = stats["action"]["q01"][:3]
    (root / "meta/stats.json").write_text(json.dumps(stats))
    assert inspect_dataset(root).quantiles == {"observation.state": True, "action": False}


def test_our_writer_layout_is_detected_as_v30(tmp_path):
    root = small_dataset(tmp_path / "d")
    assert detect_disk_format(root) == V30
    rep = inspect_dataset(root)
    assert rep.format == V30 and rep.tasks == ["pick", "place"] and not rep.cameras
    assert _by_id(rep)["dataset-files"].status is Status.OK
