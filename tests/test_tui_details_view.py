"""`details_view`: check details as readable rows, on the details real checks return and on hostile values."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from screens.widgets.details_view import binary_size, details_view, split_unit
from tui_fixtures import sim_session


def _text(details, width: int = 78) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(details_view(details))
    return console.export_text()


@pytest.fixture(scope="module")
def sim_details(tmp_path_factory):
    """The details every file-determined check returns on the healthy simulated host."""
    from wizard.preflight_run import run_preflight
    from wizard.simhost import SIM_CHECK_IDS

    session = sim_session(tmp_path_factory.mktemp("sim"))
    return {r.id: r.details for r in run_preflight(session, only=SIM_CHECK_IDS, offline=True)}


def test_units_move_from_the_key_to_the_value(sim_details):
    text = _text(sim_details["memory"])
    assert "total " in text and "1.50 TiB (1,649,267,441,664 bytes)" in text
    assert "total_bytes" not in text
    chips = _text(sim_details["npu-smi"])
    assert "• npu id 0, chip id 0, name 910B3, health OK, power 102.8 W, temp 55.0 °C" in " ".join(chips.split())
    assert "hbm used 3338 MB" in " ".join(chips.split())
    assert chips.count("•") == 8 and "phy id" not in chips  # None and empty values are left out inline


def test_nested_dicts_and_lists_read_as_rows(sim_details):
    hccn = _text(sim_details["hccn-conf"])
    assert "addresses" in hccn and "0 192.168.100.101" in " ".join(hccn.split())
    assert "path /etc/hccn.conf" in " ".join(hccn.split())
    devices = " ".join(_text(sim_details["devices"]).split())
    assert "npu ids 0, 1, 2, 3, 4, 5, 6, 7" in devices and "missing none" in devices
    compat = " ".join(_text(sim_details["compat"]).split())
    assert "torch 2.7.1" in compat and "cann running 8.3.RC1" in compat
    for details in sim_details.values():  # never a Python repr of a dict or list
        assert "{'" not in _text(details) and "['" not in _text(details)


@pytest.mark.parametrize("details", [
    {},
    {"blob": b"\x00\xff\xfe" * 10},
    {"huge": "x" * 100_000},
    {"many": list(range(10_000))},
    {"deep": {"a": {"b": {"c": {"d": {"e": 1}}}}}},
    {1: None, "flag": True, "nan": float("nan"), "neg_bytes": -5, "ratio_pct": 12.5},
    {f"k{i}": i for i in range(500)},
])
def test_hostile_details_render_bounded_without_error(details):
    text = _text(details, width=40)
    assert len(text) < 20_000
    if details:
        assert text.strip()


def test_helpers():
    assert split_unit("hbm_used_mb") == ("hbm used", "MB")
    assert split_unit("temp_c") == ("temp", "°C")
    assert split_unit("version") == ("version", None)
    assert split_unit("_") == ("_", None)
    # Only snake_case identifiers are prettified: host names, paths and dashed names are data, kept whole.
    for key in ("ascend-repo.obs.cn-east-2.myhuaweicloud.com", "/dev/davinci_manager", "eth0:1", "npu-smi", "a.b_mb"):
        assert split_unit(key) == (key, None)
    hosts = " ".join(_text({"unreachable": {"swr.cn-south-1.myhuaweicloud.com": "ConnectTimeout"}}, width=60).split())
    assert "swr.cn-south-1.myhuaweicloud.com ConnectTimeout" in hosts
    assert binary_size(1024 ** 3 * 1.5) == "1.50 GiB"
    assert binary_size(512) == "512 bytes"
    deep = _text({"deep": {"a": {"b": {"c": {"d": 1}}}}})
    assert "d 1" in " ".join(deep.split())
    many = " ".join(_text({"many": list(range(100))}).split())
    assert "… 60 more" in many
    assert "yes" in _text({"flag": True}) and "—" in _text({"x": None})


def test_a_dict_holding_itself_renders_bounded():
    loop: dict = {"name": "loop"}
    loop["self"] = loop
    text = _text(loop)
    assert "name" in text and len(text) < 5_000
