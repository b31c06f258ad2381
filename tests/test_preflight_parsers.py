"""Parsers on every real sample and case holding their format, plus hostile input (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checks.parsers import UnrecognizedOutput
from checks.parsers.hccn import HccnConf, parse_hccn_conf
from checks.parsers.npu_smi import NpuSmiInfo, dcmi_error, parse_npu_smi_info
from checks.parsers.versions import (
    ascend_version_key,
    parse_ascend_install_info,
    parse_driver_version,
    parse_firmware_version,
    parse_key_values,
    parse_nnal_version,
    parse_toolkit_install_info,
    parse_version_cfg,
)
from tests.preflight_fixtures import case_raw, fenced_blocks, npu_tables, sample

# ---------------------------------------------------------------- npu-smi info


def test_idle_910b3_table():
    info = parse_npu_smi_info(sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt"))
    assert info.version == "23.0.7"
    assert [c.npu_id for c in info.chips] == list(range(8))
    c0 = info.chips[0]
    assert (c0.name, c0.health, c0.power_w, c0.temp_c, c0.aicore_pct) == ("910B3", "OK", 102.8, 55, 0)
    assert (c0.hbm_used_mb, c0.hbm_total_mb, c0.bus_id, c0.phy_id) == (3338, 65536, "0000:C1:00.0", None)
    assert info.processes == [] and info.idle_npus == list(range(8)) and not info.truncated


def test_busy_table_hbm_without_space_and_empty_process_names():
    info = parse_npu_smi_info(sample("npu-smi_info_910B3_8npu_busy_24.1.rc2.txt"))
    assert info.version == "24.1.rc2"
    assert info.chips[0].hbm_used_mb == 54592 and info.chips[0].hbm_total_mb == 65536
    assert len(info.processes) == 8
    p = info.chips[4].processes
    assert [(x.pid, x.name, x.memory_mb) for x in p] == [(1007953, "", 50080)]
    assert info.chips[7].bus_id == "0000:42:00.0" and info.idle_npus == []


def test_a3_sixteen_chips_with_phy_id_and_dash_power():
    table = case_raw("01")
    info = parse_npu_smi_info(table)
    assert info.version == "25.3.rc1"
    assert len(info.chips) == 16 and info.npu_ids == list(range(8))
    assert [c.phy_id for c in info.chips] == list(range(16))
    assert [c.chip_id for c in info.chips[:4]] == [0, 1, 0, 1]
    assert info.chips[1].power_w is None and info.chips[0].power_w == 165.4
    assert info.chips[15].hbm_used_mb == 2893 and info.chips[15].bus_id == "0000:83:00.0"
    assert all(c.name == "Ascend910" and c.healthy for c in info.chips)
    assert info.idle_npus == list(range(8))


def test_910b4_case_two_truncated_tables():
    first, second = npu_tables(case_raw("02"))
    a = parse_npu_smi_info(first)
    assert a.version == "25.5.0" and a.truncated
    assert [(c.hbm_used_mb, c.hbm_total_mb) for c in a.chips] == [(28220, 32768), (28045, 32768), (None, None)]
    assert a.chips[2].name == "910B4" and a.chips[2].power_w == 83.3
    b = parse_npu_smi_info(second)
    assert b.version == "24.1.1" and [c.hbm_used_mb for c in b.chips] == [26838, 29356]


def test_910b1_case_eleven_cut_after_npu2():
    (table,) = npu_tables(case_raw("11"))
    info = parse_npu_smi_info(table)
    assert [c.name for c in info.chips] == ["910B1"] * 3 and info.truncated
    assert info.chips[1].hbm_used_mb == 3367


def test_name_with_suffix_and_na_power():
    # Derived from the idle sample (no capture holds "910B4-1" or "NA" power): names and power edited.
    text = sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt").replace("910B3", "910B4-1").replace("102.8 ", "NA   ")
    info = parse_npu_smi_info(text)
    assert info.chips[0].name == "910B4-1" and info.chips[0].power_w is None


def test_equals_only_and_dashes_only_separators():
    # Derived: the same table with every "+===+" separator written "+---+", and the reverse.
    text = sample("npu-smi_info_910B3_8npu_busy_24.1.rc2.txt")
    for variant in (text.replace("=", "-"), text.replace("-+-", "=+=").replace("+---", "+===")):
        info = parse_npu_smi_info(variant)
        assert len(info.chips) == 8 and len(info.processes) == 8


def test_dcmi_error_is_unrecognized_with_reason():
    raw = case_raw("03")
    assert dcmi_error(raw) == -8005
    with pytest.raises(UnrecognizedOutput, match="dcmi module initialize failed"):
        parse_npu_smi_info(raw)


@pytest.mark.parametrize("text", ["", "   \n", "command not found", "| a | b |\n| c |", "\x00\xff\x00"])
def test_npu_smi_info_rejects_non_tables(text):
    with pytest.raises(UnrecognizedOutput, match="unrecognized npu-smi info output"):
        parse_npu_smi_info(text)


# ---------------------------------------------------------------- version files


def test_driver_version_samples():
    a = parse_driver_version(sample("driver_version.info_24.1.rc2.2.txt"))
    assert (a.version, a.package_version, a.best) == ("24.1.rc2.2", "24.1.rc2.2", "24.1.rc2.2")
    b = parse_driver_version(sample("driver_version.info_25.3.rc1.txt"))
    assert b.best == "25.3.rc1" and b.compatible_version_fw == ("7.0.0", "8.9.9")


def test_case06_cat_n_numbered_files():
    raw = case_raw("06")
    drv = parse_driver_version(fenced_blocks(raw, "driver version.info"))
    assert drv.best == "24.1.rc3" and drv.compatible_version_fw == ("7.0.0", "7.5.99")
    cfg = parse_version_cfg(fenced_blocks(raw, "ascend-toolkit version.info"))
    assert cfg.toolkit == "8.0.0" and cfg.kernels == "8.0.0"
    atb = parse_nnal_version(fenced_blocks(raw, "atb version.info"))
    assert (atb.version, atb.full_version, atb.platform) == ("8.0.0", "8.0.0.B100", "aarch64")
    x86 = parse_toolkit_install_info(raw.split("related: x86_64", 1)[1])
    assert (x86.version, x86.arch) == ("8.0.T6", "x86_64")


def test_firmware_sample():
    fw = parse_firmware_version(sample("firmware_version.info_25.0.rc1.1.txt"))
    assert (fw.version, fw.package_version) == ("7.7.0.1.231", "25.0.rc1.1")


@pytest.mark.parametrize("name, version, arch", [
    ("ascend_toolkit_install.info_8.0.0_aarch64.txt", "8.0.0", "aarch64"),
    ("ascend_toolkit_install.info_8.1.RC1_x86_64.txt", "8.1.RC1", "x86_64"),
])
def test_toolkit_install_info_samples(name, version, arch):
    info = parse_toolkit_install_info(sample(name))
    assert (info.version, info.arch, info.package_name) == (version, arch, "Ascend-cann-toolkit")


def test_toolkit_install_info_case01():
    info = parse_toolkit_install_info(case_raw("01").split("CANN:", 1)[1])
    assert info.version == "8.3.RC1" and info.path.endswith("8.3.RC1/aarch64-linux")


def test_version_cfg_running_not_history():
    cfg = parse_version_cfg(sample("version.cfg_8.1.RC1_with_install_history.txt"))
    assert cfg.toolkit == "8.1.RC1" and cfg.kernels == "8.1.RC1"
    assert cfg.installed["toolkit"] == ["8.1.T6", "8.1.RC1"]
    assert cfg.installed["opp_kernel"] == ["8.1.T6", "8.1.RC1", "8.1.RC1"]


def test_version_cfg_running_after_upgrade_history():
    # Derived: history holds the old release first; the running version must win over bracket one.
    text = "toolkit_installed_version=[7.7:8.1.RC1][7.8:8.3.RC1]\ntoolkit_running_version=[7.8:8.3.RC1]\n"
    assert parse_version_cfg(text).toolkit == "8.3.RC1"


def test_nnal_sample():
    n = parse_nnal_version(sample("nnal_atb_version.info_8.0.T63.txt"))
    assert (n.version, n.full_version, n.commit[:7]) == ("8.0.T63", "8.0.T63.B020", "92b4e43")


def test_ascend_install_info_sample():
    info = parse_ascend_install_info(sample("etc_ascend_install.info.txt"))
    assert info.driver_install_path == "/usr/local/Ascend" and info.fields["UserName"] == "HwHiAiUser"


def test_key_values_keep_lines_that_only_look_numbered():
    assert parse_key_values("10=a\nkey=b") == {"key": "b"}
    assert parse_key_values("  1  Version=1\n  2  x=2") == {"Version": "1", "x": "2"}


@pytest.mark.parametrize("parser", [parse_driver_version, parse_firmware_version, parse_toolkit_install_info,
                                    parse_version_cfg, parse_nnal_version, parse_ascend_install_info])
@pytest.mark.parametrize("text", ["", "garbage", "\x00\x01binary", "Version"])
def test_version_parsers_reject_garbage(parser, text):
    with pytest.raises(UnrecognizedOutput):
        parser(text)


def test_ascend_version_order():
    ordered = ["8.0.T63", "8.0.RC1", "8.0.0", "8.1.RC1", "8.3.RC1", "24.1.rc2.2", "24.1.rc3", "25.3.rc1", "25.3.0"]
    assert sorted(ordered, key=ascend_version_key) == ordered
    assert ascend_version_key("25.3.RC1") == ascend_version_key("25.3.rc1")


# ---------------------------------------------------------------- hccn.conf


def test_hccn_real_excerpt_with_shell_lines():
    conf = parse_hccn_conf(sample("hccn.conf_real_excerpt_and_hccn_tool_ping.txt"))
    assert conf.addresses == {0: "29.1.137.205", 7: "29.1.170.143"}
    assert conf.devices[7]["send_arp_status"] == "1"


def test_hccn_template():
    conf = parse_hccn_conf(sample("hccn.conf_910B_A2_TEMPLATE_DERIVED.txt"))
    assert sorted(conf.devices) == [0, 1] and conf.devices[1]["gateway"] == "192.168.101.1"


def test_hccn_empty_and_garbage():
    assert parse_hccn_conf("").devices == {} and parse_hccn_conf("# only a comment\n").devices == {}
    with pytest.raises(UnrecognizedOutput):
        parse_hccn_conf("hello world\n")


# ---------------------------------------------------------------- hostile input (hypothesis)

_REAL = {
    "npu": sample("npu-smi_info_910B3_8npu_busy_24.1.rc2.txt"),
    "cfg": sample("version.cfg_8.1.RC1_with_install_history.txt"),
    "drv": sample("driver_version.info_25.3.rc1.txt"),
}
_PARSERS = [
    (parse_npu_smi_info, NpuSmiInfo), (parse_hccn_conf, HccnConf),
    (parse_driver_version, object), (parse_firmware_version, object), (parse_toolkit_install_info, object),
    (parse_version_cfg, object), (parse_nnal_version, object), (parse_ascend_install_info, object),
]
_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _only_clean_failures(parser, expected, text):
    try:
        out = parser(text)
    except UnrecognizedOutput as exc:
        assert "unrecognized" in str(exc)
        return
    assert isinstance(out, expected)


@pytest.mark.parametrize("parser, expected", _PARSERS)
@_SETTINGS
@given(text=st.text(max_size=400))
def test_random_text(parser, expected, text):
    _only_clean_failures(parser, expected, text)


@pytest.mark.parametrize("parser, expected", _PARSERS)
@_SETTINGS
@given(data=st.binary(max_size=400))
def test_random_binary(parser, expected, data):
    _only_clean_failures(parser, expected, data.decode("utf-8", errors="replace"))


@pytest.mark.parametrize("parser, expected", _PARSERS)
@_SETTINGS
@given(which=st.sampled_from(sorted(_REAL)), cut=st.integers(min_value=0, max_value=6000),
       junk=st.text(alphabet="|+=- 0123456789/.:ABOKNA\n", max_size=40))
def test_truncated_real_samples(parser, expected, which, cut, junk):
    _only_clean_failures(parser, expected, _REAL[which][:cut] + junk)


def test_huge_input_reads_the_first_table():
    # 200 tables back to back (~1 MB): the first table and its process section are the answer.
    huge = sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt") * 200
    info = parse_npu_smi_info(huge)
    assert [c.npu_id for c in info.chips] == list(range(8)) and info.version == "23.0.7"
