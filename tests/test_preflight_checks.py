"""Checks and the registry on a canned fixture host: verdicts, remedy ids, hostile outputs, timeouts."""

from __future__ import annotations

import threading
import time

import pytest

from checks import cann, devices, docker_check, network, npu, system
from checks.context import GIB, CheckContext, Requirements, detect_inside_container, parse_size
from checks.host import DiskUsage
from checks.registry import CHECK_IDS, CHECKS, Check, run_checks
from checks.result import CheckResult, Status
from tests.preflight_fixtures import FakeHost, ran, sample

#: The fixed remedy catalogue ids checks may name.
REMEDY_IDS = {"driver-not-mounted", "dcmi-init-failed", "npu-device-busy", "visible-devices-out-of-range",
              "shm-too-small", "hccn-conf-missing", "cann-env-not-sourced", "nnal-missing",
              "torch-npu-cann-mismatch", "exec-format-error", "numpy-conflict"}


def ctx_for(host: FakeHost, inside: bool = False, **req) -> CheckContext:
    return CheckContext(host=host, requirements=Requirements(**req), offline=True, inside_container=inside)


def npu_host(table: str | None = None, **kw) -> FakeHost:
    out = table if table is not None else sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt")
    return FakeHost(commands={"npu-smi": ran(out)}, chars={f"/dev/davinci{i}" for i in range(8)}, **kw)


def test_ids_fixed_order():
    assert CHECK_IDS == ("arch", "devices", "driver", "firmware", "npu-smi", "msnpureport", "hccn-conf", "shm",
                         "cann-toolkit", "cann-kernels", "nnal", "compat", "docker", "disk", "memory", "python",
                         "visible-devices", "network")


def test_every_check_on_an_empty_host_gives_plain_results_with_catalogued_remedies():
    res = run_checks(ctx_for(FakeHost()), timeout_s=5)
    assert [r.id for r in res if r.id != "docker"] == [i for i in CHECK_IDS if i != "docker"]
    for r in res:
        assert r.status is not Status.ERROR or r.id in ("arch", "memory"), (r.id, r.summary)
        assert all(m.remedy in REMEDY_IDS for m in r.messages if m.remedy), r.id
        assert r.summary


# ------------------------------------------------------------------ npu-smi


def test_npu_smi_healthy_idle():
    r = npu.check_npu_smi(ctx_for(npu_host()))
    assert r.status is Status.OK and "8 NPU" in r.summary and len(r.details["chips"]) == 8


def test_npu_smi_busy_names_processes_and_remedy():
    r = npu.check_npu_smi(ctx_for(npu_host(sample("npu-smi_info_910B3_8npu_busy_24.1.rc2.txt"))))
    assert r.status is Status.FAIL and r.remedies == ["npu-device-busy"]
    assert "pid 277624" in r.messages[0].text and r.details["busy"] == list(range(8))


def test_npu_smi_busy_outside_visible_devices_is_ignored():
    table = sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt").replace("3334 / 65536", "60000/ 65536", 1)
    host = npu_host(table, env={"ASCEND_RT_VISIBLE_DEVICES": "0,1"})
    assert npu.check_npu_smi(ctx_for(host)).status is Status.OK
    host.env["ASCEND_RT_VISIBLE_DEVICES"] = "2"
    assert npu.check_npu_smi(ctx_for(host)).remedies == ["npu-device-busy"]


def test_npu_smi_unhealthy_chip():
    table = sample("npu-smi_info_910B3_8npu_idle_23.0.7.txt").replace(
        "| 5     910B3               | OK     ", "| 5     910B3               | Alarm  ")
    r = npu.check_npu_smi(ctx_for(npu_host(table)))
    assert r.status is Status.FAIL and "NPU 5 chip 0 (Alarm)" in r.messages[0].text


@pytest.mark.parametrize("out, status", [
    ("", Status.ERROR), ("\x00\xff garbage \x01", Status.ERROR), ("Segmentation fault", Status.ERROR)])
def test_npu_smi_unreadable_output_is_a_result(out, status):
    r = npu.check_npu_smi(ctx_for(npu_host(out)))
    assert r.status is status and "unrecognized npu-smi info output" in r.messages[0].text


def test_npu_smi_dcmi_failure_and_nonzero_exit():
    host = FakeHost(commands={"npu-smi": ran(stdout="DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\n"
                                                   "dcmi module initialize failed. ret is -8005\n", rc=1)})
    assert npu.check_npu_smi(ctx_for(host)).remedies == ["dcmi-init-failed"]
    host = FakeHost(commands={"npu-smi": ran(stderr="permission denied", rc=3)})
    r = npu.check_npu_smi(ctx_for(host))
    assert r.status is Status.FAIL and "exited 3: permission denied" in r.messages[0].text


def test_npu_smi_timeout_and_missing():
    r = npu.check_npu_smi(ctx_for(FakeHost(commands={"npu-smi": ran(rc=None, timed_out=True)}), command_timeout_s=2))
    assert r.status is Status.FAIL and "did not answer within 2 s" in r.messages[0].text
    assert npu.check_npu_smi(ctx_for(FakeHost())).summary == "npu-smi not found"


def test_npu_smi_fewer_npus_than_recipe():
    r = npu.check_npu_smi(ctx_for(npu_host(), npu_count=16))
    assert r.status is Status.FAIL and "lists 8 NPUs" in r.messages[0].text


# ------------------------------------------------------------------ devices / visible devices / system


def test_devices_gap_and_control_nodes():
    host = FakeHost(chars={f"/dev/davinci{i}" for i in (0, 1, 2, 4, 5, 6, 7)} | {"/dev/davinci_manager", "/dev/hisi_hdc"},
                    files={"/dev/devmm_svm": ""})
    r = devices.check_devices(ctx_for(host))
    assert r.status is Status.FAIL and r.details["missing"] == [3]
    assert r.details["control_missing"] == ["/dev/devmm_svm"]  # a regular file is not a device


@pytest.mark.parametrize("value, status", [(None, Status.OK), ("0,1,2,3,4,5,6,7", Status.OK), ("0,9", Status.FAIL),
                                           ("a,b", Status.FAIL), ("1,1", Status.FAIL), ("", Status.FAIL)])
def test_visible_devices(value, status):
    host = FakeHost(chars={f"/dev/davinci{i}" for i in range(8)}, env={} if value is None else
                    {"ASCEND_RT_VISIBLE_DEVICES": value})
    r = devices.check_visible_devices(ctx_for(host))
    assert r.status is status
    if status is Status.FAIL:
        assert r.remedies == ["visible-devices-out-of-range"]


def test_shm_skip_on_host_fail_small_ok_big():
    host = FakeHost(disks={"/dev/shm": DiskUsage(64 << 20, 0, 64 << 20)})
    assert system.check_shm(ctx_for(host)).status is Status.SKIP
    r = system.check_shm(ctx_for(host, inside=True))
    assert r.status is Status.FAIL and r.remedies == ["shm-too-small"] and "64 MiB" in r.summary
    host.disks["/dev/shm"] = DiskUsage(600 * GIB, 0, 600 * GIB)
    assert system.check_shm(ctx_for(host, inside=True)).status is Status.OK


def test_arch_x86_with_qemu_and_binfmt_is_a_warning():
    host = FakeHost(commands={"uname": ran("x86_64\n"), "qemu-aarch64-static": ran()},
                    files={system.BINFMT_QEMU: "enabled\ninterpreter /usr/bin/qemu-aarch64-static\n"})
    assert system.check_arch(ctx_for(host)).status is Status.WARN
    host.files[system.BINFMT_QEMU] = "disabled\n"
    assert system.check_arch(ctx_for(host)).remedies == ["exec-format-error"]


def test_disk_needs_add_up_on_one_filesystem():
    du = DiskUsage(200 * GIB, 100 * GIB, 100 * GIB)
    r = system.check_disk(ctx_for(FakeHost(disks={"/": du})))
    assert r.status is Status.FAIL and "140 GiB needed" in r.messages[0].text
    r = system.check_disk(ctx_for(FakeHost(disks={"/": du}), docker_free_bytes=10 * GIB, data_free_bytes=10 * GIB))
    assert r.status is Status.OK


def test_memory_and_python():
    host = FakeHost(files={"/proc/meminfo": "MemTotal: 16000000 kB\nMemAvailable: 1000 kB\n"},
                    commands={"python3": ran("Python 3.11.7\n")})
    assert system.check_memory(ctx_for(host)).status is Status.WARN
    assert system.check_python(ctx_for(host)).status is Status.OK
    assert system.check_python(ctx_for(host, inside=True)).status is Status.FAIL
    host.files["/proc/meminfo"] = "\x00binary"
    assert system.check_memory(ctx_for(host)).summary == "unrecognized /proc/meminfo output"


# ------------------------------------------------------------------ driver, firmware, CANN


def ascend_host(cfg: str | None = None, nnal: str | None = None) -> FakeHost:
    files = {"/usr/local/Ascend/driver/version.info": sample("driver_version.info_24.1.rc2.2.txt"),
             "/usr/local/Ascend/firmware/version.info": sample("firmware_version.info_25.0.rc1.1.txt")}
    if cfg is not None:
        files["/usr/local/Ascend/ascend-toolkit/latest/version.cfg"] = cfg
    if nnal is not None:
        files["/usr/local/Ascend/nnal/atb/latest/version.info"] = nnal
    return FakeHost(files=files, dirs={"/usr/local/Ascend/driver/lib64"})


def test_driver_firmware_and_old_driver_warning():
    host = ascend_host()
    r = npu.check_driver(ctx_for(host))
    assert r.status is Status.OK and r.details["version"] == "24.1.rc2.2"
    assert npu.check_firmware(ctx_for(host)).status is Status.WARN  # 7.7.0.1.231 outside [7.0.0, 7.2.99]
    c = cann.check_compat(ctx_for(host))
    assert c.status is Status.WARN and "older than 25.3.RC1" in c.messages[-1].text


def test_driver_without_lib64_is_not_mounted_in_the_container():
    host = ascend_host()
    host.dirs.clear()
    assert npu.check_driver(ctx_for(host, inside=True)).remedies == ["driver-not-mounted"]


def test_no_driver_on_the_host_says_install_the_hdk_not_the_container_remedy():
    r = npu.check_driver(ctx_for(FakeHost()))
    assert r.status is Status.FAIL and r.remedies == []
    assert "Install the Ascend HDK driver (firmware first, then driver, then reboot)" in r.messages[0].text
    assert "on this host" in r.messages[0].text
    host = ascend_host()
    host.dirs.clear()  # the folder is there, lib64 is not: a broken install, still nothing to mount
    r = npu.check_driver(ctx_for(host))
    assert r.remedies == [] and "firmware first" in r.messages[0].text
    inside = npu.check_driver(ctx_for(FakeHost(), inside=True))
    assert inside.remedies == ["driver-not-mounted"] and "not bind-mounted" in inside.messages[0].text


def test_cann_history_shows_failed_upgrade():
    cfg = sample("version.cfg_8.1.RC1_with_install_history.txt") + "toolkit_installed_version=[a:8.1.RC1][b:8.3.RC1]\n"
    # Derived: the captured file plus a later duplicate key; the first key wins, so build the history explicitly.
    cfg = cfg.replace("toolkit_installed_version=[7.7.T9.0.B057:8.1.T6][7.7.T20.0.B210:8.1.RC1]",
                      "toolkit_installed_version=[7.7.T20.0.B210:8.1.RC1][x:8.3.RC1]")
    r = cann.check_cann_toolkit(ctx_for(ascend_host(cfg)))
    assert r.status is Status.FAIL and "upgrade was attempted but did not take" in r.messages[0].text
    assert cann.check_compat(ctx_for(ascend_host(cfg))).remedies == ["torch-npu-cann-mismatch"]


def test_cann_unrecognized_version_files_are_an_error_result():
    r = cann.check_cann_toolkit(ctx_for(ascend_host("\x00\x01 not a cfg")))
    assert r.status is Status.ERROR and "unrecognized version.cfg output" in r.messages[0].text


def test_nnal_missing_and_absent_on_host():
    cfg = sample("version.cfg_8.1.RC1_with_install_history.txt").replace("8.1.RC1", "8.3.RC1")
    assert cann.check_nnal(ctx_for(ascend_host(cfg))).remedies == ["nnal-missing"]
    assert cann.check_nnal(ctx_for(ascend_host())).status is Status.SKIP
    assert cann.check_nnal(ctx_for(ascend_host(), inside=True)).remedies == ["nnal-missing"]


def test_cann_env_not_sourced_inside_container():
    cfg = sample("version.cfg_8.1.RC1_with_install_history.txt").replace("8.1.RC1", "8.3.RC1")
    host = ascend_host(cfg)
    host.files["/usr/local/Ascend/ascend-toolkit/set_env.sh"] = "export ASCEND_TOOLKIT_HOME=x\n"
    r = cann.check_cann_toolkit(ctx_for(host, inside=True))
    assert r.status is Status.WARN and r.remedies == ["cann-env-not-sourced"] and "is installed" in r.messages[0].text
    host.env["ASCEND_TOOLKIT_HOME"] = "/usr/local/Ascend/ascend-toolkit/latest"
    assert cann.check_cann_toolkit(ctx_for(host, inside=True)).status is Status.OK


def test_cann_without_set_env_is_not_installed_and_names_the_cann_stage_not_the_env_fix():
    """The env fix sources set_env.sh; naming it when that file is absent sends the user to a dead end."""
    cfg = sample("version.cfg_8.1.RC1_with_install_history.txt").replace("8.1.RC1", "8.3.RC1")
    r = cann.check_cann_toolkit(ctx_for(ascend_host(cfg), inside=True))
    assert r.status is Status.FAIL and r.remedies == []
    assert "not completely installed" in r.messages[0].text and "`cann` stage" in r.messages[0].text
    absent = cann.check_cann_toolkit(ctx_for(FakeHost(), inside=True))
    assert absent.status is Status.FAIL and absent.remedies == [] and "`cann` stage" in absent.messages[0].text


def test_compat_table_is_data():
    rows = cann.load_compat_table()
    assert {"torch_npu": "2.7.1", "torch": "2.7.1", "cann": "8.3.RC1", "driver_min": "25.3.RC1"} in rows
    r = cann.check_compat(ctx_for(FakeHost(), torch_npu="2.7.1.post2", cann_version="8.3.RC1"))
    assert r.remedies == ["torch-npu-cann-mismatch"]
    assert cann.check_compat(ctx_for(FakeHost(), torch_npu="9.9")).status is Status.WARN


def test_hccn_missing_and_present():
    assert npu.check_hccn_conf(ctx_for(FakeHost())).remedies == ["hccn-conf-missing"]
    host = FakeHost(files={"/etc/hccn.conf": sample("hccn.conf_real_excerpt_and_hccn_tool_ping.txt")})
    r = npu.check_hccn_conf(ctx_for(host))
    assert r.status is Status.OK and r.details["addresses"] == {"0": "29.1.137.205", "7": "29.1.170.143"}


def test_hccn_listing_fewer_npus_than_the_host_has_warns_and_says_one_host_is_fine():
    host = npu_host(files={"/etc/hccn.conf": sample("hccn.conf_910B_A2_TEMPLATE_DERIVED.txt")})  # NPUs 0 and 1
    r = npu.check_hccn_conf(ctx_for(host))
    assert r.status is Status.WARN and r.summary == "addresses for 2 of 8 NPUs"
    assert "none for NPU 2, 3, 4, 5, 6, 7" in r.messages[0].text and "this one host" in r.messages[0].text
    assert r.details["missing"] == [2, 3, 4, 5, 6, 7]
    full = "".join(f"address_{i}=192.168.{100 + i}.101\n" for i in range(8))
    host.files["/etc/hccn.conf"] = full
    assert npu.check_hccn_conf(ctx_for(host)).status is Status.OK


def test_visible_devices_unset_without_npus_is_a_skip_not_a_cheerful_zero():
    r = devices.check_visible_devices(ctx_for(FakeHost()))
    assert r.status is Status.SKIP and r.summary == "not set (no NPUs found)"
    r = devices.check_visible_devices(ctx_for(npu_host()))
    assert r.status is Status.OK and r.summary == "not set: all 8 NPUs visible"


def test_msnpureport_host_and_container():
    assert npu.check_msnpureport(ctx_for(FakeHost())).status is Status.WARN
    assert npu.check_msnpureport(ctx_for(FakeHost(commands={"msnpureport": ran()}))).status is Status.OK
    assert npu.check_msnpureport(ctx_for(FakeHost(), inside=True)).status is Status.SKIP


# ------------------------------------------------------------------ docker and network


class _Client:
    def __init__(self, fail: bool):
        self.fail = fail

    def version(self):
        if self.fail:
            raise ConnectionError("Error while fetching server API version")
        return {"Version": "27.3.1", "ApiVersion": "1.47", "Arch": "arm64"}


def test_docker_ok_unreachable_and_inside():
    ctx = ctx_for(FakeHost())
    ctx.docker_client = lambda: _Client(False)
    assert docker_check.check_docker(ctx).summary == "Docker 27.3.1 (API 1.47, arm64)"
    ctx.docker_client = lambda: _Client(True)
    r = docker_check.check_docker(ctx)
    assert r.status is Status.FAIL and "does not answer" in r.messages[0].text
    assert docker_check.check_docker(ctx_for(FakeHost(), inside=True)).status is Status.SKIP


def test_network_offline_partial_and_down(monkeypatch):
    assert network.check_network(ctx_for(FakeHost())).status is Status.SKIP
    ctx = CheckContext(host=FakeHost(), requirements=Requirements(download_hosts=["a.example", "https://b.example/x"],
                                                                  probe_timeout_s=0.5))
    monkeypatch.setattr(network, "probe", lambda url, t: None if url == "https://a.example/" else "ConnectTimeout")
    r = network.check_network(ctx)
    assert r.status is Status.WARN and "https://b.example/x (ConnectTimeout)" in r.messages[0].text
    monkeypatch.setattr(network, "probe", lambda url, t: "ConnectionError")
    assert network.check_network(ctx).status is Status.FAIL


def test_network_probe_is_bounded():
    start = time.monotonic()
    assert network.probe("https://10.255.255.1/", 0.3) is not None
    assert time.monotonic() - start < 2.0


# ------------------------------------------------------------------ registry


def _fake_checks(monkeypatch, funcs):
    import checks.registry as reg

    monkeypatch.setattr(reg, "CHECKS", tuple(Check(i, i, f) for i, f in funcs))
    monkeypatch.setattr(reg, "CHECK_IDS", tuple(i for i, _ in funcs))


def _ok(i):
    return lambda ctx: CheckResult(id=i, title=i, status=Status.OK, summary="fine")


def test_registry_order_exception_and_hang(monkeypatch):
    release = threading.Event()

    def hang(ctx):
        release.wait(30)
        return CheckResult(id="hang", title="hang", status=Status.OK, summary="late")

    def boom(ctx):
        raise RuntimeError("kaput")

    _fake_checks(monkeypatch, [("slow", lambda c: (time.sleep(0.2), _ok("slow")(c))[1]), ("hang", hang),
                               ("boom", boom), ("fast", _ok("fast"))])
    seen = []
    start = time.monotonic()
    res = run_checks(ctx_for(FakeHost()), on_result=lambda r: seen.append(r.id), timeout_s=0.5)
    wall = time.monotonic() - start
    release.set()
    assert [r.id for r in res] == ["slow", "hang", "boom", "fast"]
    assert [r.status for r in res] == [Status.OK, Status.ERROR, Status.ERROR, Status.OK]
    assert "RuntimeError: kaput" in res[2].messages[0].text and "within 0.5 s" in res[1].summary
    assert sorted(seen) == ["boom", "fast", "hang", "slow"] and seen[-1] == "hang"
    assert wall < 0.5 + 0.5
    assert res[0].duration_s >= 0.2


def test_registry_only_and_unknown(monkeypatch):
    res = run_checks(ctx_for(FakeHost()), only=["visible-devices", "arch"])
    assert [r.id for r in res] == ["arch", "visible-devices"]
    with pytest.raises(ValueError, match="unknown check id"):
        run_checks(ctx_for(FakeHost()), only=["nope"])


def test_context_helpers():
    assert parse_size("500g") == 500 * GIB and parse_size("64m") == 64 << 20 and parse_size(7) == 7
    assert not detect_inside_container(FakeHost())
    assert detect_inside_container(FakeHost(files={"/.dockerenv": ""}))
    assert len(CHECKS) == 18
