"""Quantile statistics: the golden match against lerobot's own stats.json, algorithm edge cases, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dataset_fixtures import TINY_V21, TINY_V30, copy_dataset, golden, small_dataset, with_values
from wizard.dataset import reader
from wizard.dataset.layout import QUANTILE_KEYS, DatasetError
from wizard.dataset.quantiles import STAT_KEYS, block_stats, episode_stats, histogram_edges
from wizard.dataset.stats import FeatureSelectionError, compute_stats


def _close(ours: list, ref: list) -> bool:
    for a, b in zip(ours, ref, strict=True):
        if abs(a - b) > 1e-9 and abs(a - b) > 1e-6 * abs(b):
            return False
    return True


def test_golden_every_non_camera_feature_matches_lerobot():
    ref = golden()
    run = compute_stats(TINY_V30)
    camera = "observation.images.laptop"
    expected = [k for k in ref if k != camera]
    assert sorted(run.stats) == sorted(expected)
    assert camera not in run.stats
    for feature in expected:
        for key in ("min", "max", "mean", "std", "count", *QUANTILE_KEYS):
            assert _close(run.stats[feature][key], ref[feature][key]), (feature, key)
        # int64 columns keep integer min/max, as lerobot writes them
        assert [type(v) for v in run.stats[feature]["min"]] == [type(v) for v in ref[feature]["min"]]
    assert run.episodes == 6 and run.frames == 404 and not run.notes and run.ok


def test_golden_quantile_outside_min_max_is_reproduced():
    # README: a timestamp q01 of -1e-10 (the histogram's first edge), reproduced exactly.
    run = compute_stats(TINY_V30, features=["timestamp", "frame_index"])
    assert run.stats["timestamp"]["q01"] == golden()["timestamp"]["q01"] == [-1.000000013351432e-10]
    assert run.stats["frame_index"]["q01"][0] < 0


def test_exact_mode_differs_from_histogram_on_the_golden_dataset():
    hist = compute_stats(TINY_V30, features=["action"])
    exact = compute_stats(TINY_V30, features=["action"], exact=True)
    assert exact.mode == "exact"
    assert _close(exact.stats["action"]["mean"], hist.stats["action"]["mean"])
    assert exact.stats["action"]["min"] == hist.stats["action"]["min"]
    # lerobot averages per-episode quantiles: its q01 sits well inside the true 1 % quantile
    true_q01 = np.array(exact.stats["action"]["q01"])
    assert (true_q01 < np.array(hist.stats["action"]["q01"])).all()


def _reference_random_cases():
    rng = np.random.default_rng(7)
    for trial in range(60):
        dims = int(rng.choice([1, 3, 6]))
        lengths = rng.integers(1, 120, size=int(rng.integers(1, 8)))
        if trial % 2:
            lengths[:] = lengths[0]
        rows = int(lengths.sum())
        kind = trial % 4
        if kind == 0:
            m = rng.integers(-5, 5, size=(rows, dims)).astype(np.int64)
        elif kind == 1:
            m = (rng.integers(-3, 3, size=(rows, dims)) * 0.5 + 100).astype(np.float32)  # many ties
        elif kind == 2:
            m = np.full((rows, dims), 7.25, dtype=np.float32)  # constant: every edge equal
        else:
            m = (rng.normal(size=(rows, dims)) * 40 + 1e4).astype(np.float32)
        yield m, lengths


@pytest.mark.parametrize("case", list(range(60)))
def test_vectorized_equals_per_episode_reference_bit_for_bit(case):
    m, lengths = list(_reference_random_cases())[case]
    got = block_stats(m, lengths)
    start = 0
    for i, n in enumerate(lengths):
        ref = episode_stats(np.ascontiguousarray(m[start:start + n]))
        start += n
        for key in STAT_KEYS:
            assert np.asarray(ref[key]).dtype == got[key].dtype, key
            assert np.array_equal(np.asarray(ref[key]), got[key][i]), (key, n)


def _hard_cases():
    """Layouts the fast path treats specially: long and ragged episodes, many episodes, ties, D == 1."""
    rng = np.random.default_rng(11)
    dtypes = [np.float32, np.float64, np.int64]
    for trial in range(36):
        dims = [1, 2, 6][trial % 3]
        dtype = dtypes[(trial // 3) % 3]
        episodes = int(rng.integers(1, 160)) if trial % 4 == 0 else int(rng.integers(1, 12))
        if trial % 2:  # ragged, wide range of lengths (several padding batches)
            lengths = rng.integers(1, 700, size=episodes)
        else:
            lengths = np.full(episodes, int(rng.integers(2, 700)))
        rows = int(lengths.sum())
        style = (trial // 9) % 4
        if style == 0:
            m = rng.normal(size=(rows, dims)) * 30 + 5
        elif style == 1:
            m = rng.integers(-3, 3, size=(rows, dims)) * 0.25  # long runs of ties, past the search window
        elif style == 2:
            m = np.where(rng.random((rows, dims)) < 0.5, -0.0, rng.normal(size=(rows, dims)) * 1e-30)
        else:
            m = rng.standard_cauchy(size=(rows, dims)) * 1e3
        yield np.ascontiguousarray(m.astype(dtype) if dtype != np.int64 else np.round(m * 100).astype(dtype)), lengths


@pytest.mark.parametrize("case", list(range(36)))
def test_fast_path_equals_reference_on_hard_layouts(case):
    m, lengths = list(_hard_cases())[case]
    got = block_stats(m, lengths)
    start = 0
    for i, n in enumerate(lengths):
        ref = episode_stats(np.ascontiguousarray(m[start:start + n]))
        start += n
        for key in STAT_KEYS:
            assert np.asarray(ref[key]).dtype == got[key].dtype, key
            assert np.array_equal(np.asarray(ref[key]), got[key][i]), (key, i, n)
            assert np.array_equal(np.signbit(np.asarray(ref[key])), np.signbit(got[key][i])), (key, i, "sign")


def test_reference_quantile_agrees_with_numpy_histogram():
    rng = np.random.default_rng(1)
    col = rng.normal(size=257).astype(np.float32)
    stats = episode_stats(col.reshape(-1, 1))
    edges = histogram_edges(col.min(), col.max(), np.dtype(np.float32))
    assert edges.dtype == np.float32 and edges.shape == (5001,)
    hist, _ = np.histogram(col, bins=edges)
    cumsum = np.cumsum(hist)
    for q, key in zip((0.01, 0.10, 0.50, 0.90, 0.99), QUANTILE_KEYS):
        idx = int(np.searchsorted(cumsum, q * len(col)))
        assert edges[idx] - 1e-6 <= stats[key][0] <= edges[min(idx + 1, 5000)] + 1e-6


def test_episode_with_one_row_gives_mean_quantiles(tmp_path):
    state = [np.full((1, 6), 3.5, np.float32), np.arange(12, dtype=np.float32).reshape(2, 6)]
    root = with_values(tmp_path / "d", {"observation.state": state, "action": state})
    run = compute_stats(root, features=["observation.state"])
    entry = run.stats["observation.state"]
    assert entry["count"] == [3]
    # episode 0 contributes q = its mean (3.5) with weight 1 to every quantile key
    assert all(math.isfinite(v) for v in entry["q50"])
    one = episode_stats(state[0])
    assert all(one[k].tolist() == [3.5] * 6 for k in QUANTILE_KEYS)


def test_empty_episode_is_left_out_and_reported(tmp_path):
    state = [np.ones((5, 6), np.float32), np.zeros((0, 6), np.float32), np.full((4, 6), 2, np.float32)]
    root = with_values(tmp_path / "d", {"observation.state": state, "action": state})
    run = compute_stats(root)
    assert run.empty_episodes == [1]
    assert run.episodes == 2 and run.stats["action"]["count"] == [9] and run.ok


def test_shape_one_list_feature_and_scalar_columns(tmp_path):
    grip = [np.linspace(0, 1, 10, dtype=np.float32).reshape(10, 1), np.ones((6, 1), np.float32)]
    state = [np.zeros((10, 6), np.float32), np.ones((6, 6), np.float32)]
    root = with_values(tmp_path / "d", {"observation.state": state, "action": state, "gripper": grip})
    run = compute_stats(root, features=["gripper", "timestamp", "frame_index"])
    assert len(run.stats["gripper"]["q99"]) == 1 and run.stats["gripper"]["count"] == [16]
    assert isinstance(run.stats["frame_index"]["max"][0], int)
    ref = block_stats(np.concatenate(grip), np.array([10, 6]))
    assert run.stats["gripper"]["q10"][0] == pytest.approx(float((ref["q10"][:, 0] * [10, 6]).sum() / 16))


def test_variable_length_lists_as_the_converter_writes(tmp_path):
    fixed = compute_stats(small_dataset(tmp_path / "fixed", seed=3))
    var = compute_stats(small_dataset(tmp_path / "var", seed=3, variable_lists=True))
    assert pq.read_schema(tmp_path / "var/data/chunk-000/file-000.parquet").field("action").type == pa.list_(pa.float32())
    assert fixed.stats == var.stats


def test_episodes_spanning_batches_and_files(tmp_path, monkeypatch):
    whole = compute_stats(small_dataset(tmp_path / "one", episodes=6, frames=33, seed=5))
    monkeypatch.setattr(reader, "BATCH_ROWS", 7)
    split = compute_stats(small_dataset(tmp_path / "many", episodes=6, frames=33, seed=5,
                                        rows_per_file=50, row_group_rows=5))
    assert len(list((tmp_path / "many/data/chunk-000").glob("*.parquet"))) > 1
    assert split.stats == whole.stats


@pytest.mark.parametrize("bad,field", [(np.nan, "nan"), (np.inf, "posinf"), (-np.inf, "neginf")])
def test_non_finite_values_are_reported_per_feature(tmp_path, bad, field):
    state = [np.ones((5, 6), np.float32), np.ones((5, 6), np.float32)]
    action = [np.ones((5, 6), np.float32), np.ones((5, 6), np.float32)]
    action[1][2, 3] = bad
    action[1][4, 0] = bad
    root = with_values(tmp_path / "d", {"observation.state": state, "action": action})
    run = compute_stats(root)
    assert not run.ok
    assert "action" not in run.stats and "observation.state" in run.stats
    assert getattr(run.nonfinite["action"], field) == 2
    assert run.nonfinite["action"].episodes == [1]
    assert "action" in run.problems()[0] and "episode(s) 1" in run.problems()[0]


def test_null_values_are_reported(tmp_path):
    root = small_dataset(tmp_path / "d", episodes=2, frames=5)
    path = root / "data/chunk-000/file-000.parquet"
    table = pq.read_table(path)
    ts = table.column("timestamp").to_pylist()
    ts[6] = None
    table = table.set_column(table.schema.get_field_index("timestamp"), "timestamp", pa.array(ts, pa.float32()))
    pq.write_table(table, path)
    run = compute_stats(root)
    assert run.nonfinite["timestamp"].nulls == 1 and run.nonfinite["timestamp"].episodes == [1]


def test_v21_says_convert_first():
    with pytest.raises(DatasetError, match="convert it to v3.0 first"):
        compute_stats(TINY_V21)


def test_no_info_json(tmp_path):
    with pytest.raises(DatasetError, match="info.json is missing"):
        compute_stats(tmp_path)


@pytest.mark.parametrize("content", [b"", b"{", b"\x00\xff" * 100, b"[1, 2]", json.dumps({"codebase_version": "v3.0"}).encode()])
def test_broken_info_json(tmp_path, content):
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta/info.json").write_bytes(content)
    with pytest.raises(DatasetError, match="info.json"):
        compute_stats(tmp_path)


def test_missing_parquet_is_named(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "data/chunk-000/file-000.parquet").unlink()
    with pytest.raises(DatasetError, match="data/chunk-000/file-000.parquet is missing"):
        compute_stats(root)


@pytest.mark.parametrize("content", [b"", b"PAR1garbage", b"not parquet at all" * 50])
def test_corrupt_parquet_is_named(tmp_path, content):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "data/chunk-000/file-000.parquet").write_bytes(content)
    with pytest.raises(DatasetError, match="file-000.parquet is not a readable parquet file"):
        compute_stats(root)


def test_truncated_parquet_is_named(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    path = root / "data/chunk-000/file-000.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(DatasetError, match="file-000.parquet"):
        compute_stats(root)


def test_corrupt_episodes_metadata_is_named(tmp_path):
    root = copy_dataset(TINY_V30, tmp_path)
    (root / "meta/episodes/chunk-000/file-000.parquet").write_bytes(b"junk")
    with pytest.raises(DatasetError, match="meta/episodes/chunk-000/file-000.parquet"):
        compute_stats(root)


def test_wrong_width_rows(tmp_path):
    root = small_dataset(tmp_path / "d", episodes=2, frames=5, variable_lists=True)
    info_path = root / "meta/info.json"
    info = json.loads(info_path.read_text())
    info["features"]["action"]["shape"] = [7]
    info_path.write_text(json.dumps(info))
    with pytest.raises(DatasetError, match="info.json says 7"):
        compute_stats(root)


def test_feature_selection_errors():
    with pytest.raises(FeatureSelectionError, match="unknown feature"):
        compute_stats(TINY_V30, features=["nope"])
    with pytest.raises(FeatureSelectionError, match="camera"):
        compute_stats(TINY_V30, features=["observation.images.laptop"])


def test_non_contiguous_episode_rows(tmp_path):
    root = small_dataset(tmp_path / "d", episodes=2, frames=4)
    path = root / "data/chunk-000/file-000.parquet"
    table = pq.read_table(path)
    order = [0, 1, 4, 5, 2, 3, 6, 7]
    pq.write_table(table.take(pa.array(order)), path)
    with pytest.raises(DatasetError, match="not contiguous"):
        compute_stats(root)
