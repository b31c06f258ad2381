"""Provides the NPU stack checks: `driver`, `firmware`, `npu-smi`, `msnpureport`, `hccn-conf`."""

from __future__ import annotations

import posixpath

from checks.common import error, info, read_parsed, result, verdict, warn
from checks.context import CheckContext
from checks.devices import npu_device_ids, parse_visible_devices
from checks.parsers import UnrecognizedOutput, first_line
from checks.parsers.hccn import parse_hccn_conf
from checks.parsers.npu_smi import NpuChip, dcmi_error, parse_npu_smi_info
from checks.parsers.versions import ascend_version_key, parse_driver_version, parse_firmware_version
from checks.result import CheckResult, Status

#: HBM use above this share of a chip's total marks it busy even without a process row (case 02: 86%;
#: an idle 910B holds about 5%).
HBM_BUSY_RATIO = 0.25

#: The remedy for a driver missing inside the container (its bind mounts); never named on the host.
REMEDY_DRIVER_NOT_MOUNTED = "driver-not-mounted"

#: What to do on a host whose NPU driver is missing (RECIPE.md: the Ascend HDK order).
HDK_INSTALL = "install the Ascend HDK driver (firmware first, then driver, then reboot)"


def check_driver(ctx: CheckContext) -> CheckResult:
    """The driver folder, its `lib64` (libascend_hal.so lives there) and `version.info`."""
    d = ctx.requirements.driver_dir
    if ctx.inside_container:
        where, todo, remedy = ("in the container (not bind-mounted)",
                               "start the container with the driver bind mounts", REMEDY_DRIVER_NOT_MOUNTED)
    else:
        # On the host, nothing is mounted: the driver is simply not (fully) installed.
        where, todo, remedy = "on this host", HDK_INSTALL, None
    if ctx.host.stat(d) is None:
        # On the host the text must not quote the loader's error: the remedy catalogue recognizes
        # "libascend_hal.so: cannot open shared object file" as `driver-not-mounted` in any printed
        # line (the preflight stage prints these messages), which is the container's fix, not the host's.
        symptom = ("NPU programs fail with 'libascend_hal.so: cannot open shared object file'" if ctx.inside_container
                   else "NPU programs cannot load libascend_hal.so")
        return result("driver", Status.FAIL, f"no driver at {d}", [error(
            f"No NPU driver at {d} {where}; {symptom}. {todo[0].upper()}{todo[1:]}.", remedy=remedy)])
    msgs = []
    if ctx.host.stat(f"{d}/lib64") is None:
        msgs.append(error(f"{d}/lib64 is missing {where}; libascend_hal.so lives there. {todo[0].upper()}{todo[1:]}.",
                          remedy=remedy))
    ver, why = read_parsed(ctx.host, f"{d}/version.info", parse_driver_version)
    if ver is None:
        msgs.append(warn(f"{d}/version.info is {why}; the driver version is unknown."))
        return result("driver", verdict(msgs), "version unknown", msgs)
    return result("driver", verdict(msgs), f"{ver.best} at {d}", msgs, version=ver.best,
                  compatible_version_fw=list(ver.compatible_version_fw or ()))


def check_firmware(ctx: CheckContext) -> CheckResult:
    """Firmware `version.info`, and whether its version is in the range the driver accepts."""
    req = ctx.requirements
    path = f"{req.firmware_dir}/version.info"
    if ctx.host.stat(req.firmware_dir) is None:
        return result("firmware", Status.FAIL, f"no firmware at {req.firmware_dir}", [error(
            f"No NPU firmware folder at {req.firmware_dir}; install the Ascend HDK firmware (firmware first, then the driver).")])
    fw, why = read_parsed(ctx.host, path, parse_firmware_version)
    if fw is None:
        m = warn(f"{path} is {why}; the firmware version is unknown.")
        return result("firmware", Status.WARN, "version unknown", [m])
    msgs = []
    drv, _ = read_parsed(ctx.host, f"{req.driver_dir}/version.info", parse_driver_version)
    if drv is not None and drv.compatible_version_fw:
        lo, hi = drv.compatible_version_fw
        key = ascend_version_key(fw.version)
        if not ascend_version_key(lo) <= key <= ascend_version_key(hi):
            msgs.append(warn(f"Firmware {fw.version} is outside the range the driver {drv.best} accepts ({lo} to {hi}); "
                             "upgrade firmware and driver together, then reboot."))
    label = f"{fw.package_version} (firmware {fw.version})" if fw.package_version else fw.version
    return result("firmware", verdict(msgs), label, msgs, version=fw.version, package_version=fw.package_version)


def _visible_ids(ctx: CheckContext) -> set[int] | None:
    value = ctx.host.environ().get("ASCEND_RT_VISIBLE_DEVICES")
    if value is None:
        return None
    try:
        return set(parse_visible_devices(value))
    except ValueError:
        return None


def _busy(chip: NpuChip) -> bool:
    ratio = chip.hbm_used_ratio
    return bool(chip.processes) or (ratio is not None and ratio > HBM_BUSY_RATIO)


def check_npu_smi(ctx: CheckContext) -> CheckResult:
    """`npu-smi info`: present, answers in time, every chip healthy, chips training will use not busy."""
    req = ctx.requirements
    if ctx.host.which("npu-smi") is None:
        return result("npu-smi", Status.FAIL, "npu-smi not found", [error(
            "npu-smi is not installed (expected /usr/local/sbin/npu-smi); it comes with the NPU driver"
            + (" and must be bind-mounted into the container." if ctx.inside_container else "."))])
    run = ctx.host.run(["npu-smi", "info"], timeout=req.command_timeout_s)
    if run.timed_out:
        return result("npu-smi", Status.FAIL, f"no answer within {req.command_timeout_s:g} s", [error(
            f"`npu-smi info` did not answer within {req.command_timeout_s:g} s and was stopped; the NPU driver may be "
            "hung (check `dmesg`, then reboot the host).")])
    both = run.stdout + "\n" + run.stderr
    code = dcmi_error(both)
    if code is not None:
        return result("npu-smi", Status.FAIL, f"dcmi initialisation failed ({code})", [error(
            f"npu-smi cannot reach the NPU driver (dcmi ret {code}): the device is held by another container, the "
            "container lacks --privileged, or the driver was upgraded without a reboot.", remedy="dcmi-init-failed")],
            returncode=run.returncode)
    try:
        table = parse_npu_smi_info(run.stdout)
    except UnrecognizedOutput as exc:
        if run.returncode not in (0, None):
            return result("npu-smi", Status.FAIL, f"exited {run.returncode}", [error(
                f"`npu-smi info` exited {run.returncode}: {first_line(both) or 'no output'}.")])
        return result("npu-smi", Status.ERROR, "unrecognized output", [error(f"`npu-smi info` gave {exc}.")])
    msgs = []
    sick = [c for c in table.chips if not c.healthy]
    if sick:
        msgs.append(error("Unhealthy chips: " + ", ".join(f"NPU {c.npu_id} chip {c.chip_id} ({c.health})" for c in sick)
                          + "; check `npu-smi info -t health -i <id>` and the host's dmesg."))
    npus = table.npu_ids
    if len(npus) < req.npu_count and not table.truncated:
        msgs.append(error(f"npu-smi lists {len(npus)} NPUs; the recipe trains on {req.npu_count}."))
    if table.truncated:
        msgs.append(warn("The npu-smi table was cut off; some chips could not be read."))
    visible = _visible_ids(ctx)
    busy = [c for c in table.chips if _busy(c) and (visible is None or c.npu_id in visible)]
    if busy:
        procs = [f"pid {p.pid}{' ' + p.name if p.name else ''} ({p.memory_mb} MB)" for c in busy for p in c.processes]
        used = ", ".join(f"NPU {c.npu_id}: {c.hbm_used_mb}/{c.hbm_total_mb} MB" for c in busy)
        msgs.append(error(f"{len(busy)} chip(s) training would use are busy ({used})"
                          + (f"; held by {', '.join(procs[:8])}" if procs else "")
                          + ". Stop the other service or choose free NPUs.", remedy="npu-device-busy"))
    names = sorted({c.name for c in table.chips})
    hbm = [c.hbm_used_mb for c in table.chips if c.hbm_used_mb is not None]
    summary = f"{len(npus)} NPU / {len(table.chips)} chips {'/'.join(names)}"
    summary += ", all OK" if not sick else f", {len(sick)} unhealthy"
    if busy:
        summary += f", {len(busy)} busy"
    elif hbm:
        summary += f", HBM {max(hbm) / 1024:.1f} GB used at most"
    if table.version:
        summary += f" (npu-smi {table.version})"
    return result("npu-smi", verdict(msgs), summary, msgs, version=table.version,
                  chips=[c.model_dump() for c in table.chips], busy=[c.npu_id for c in busy])


def check_msnpureport(ctx: CheckContext) -> CheckResult:
    """msnpureport (NPU state monitoring) is present on the host; not supported inside containers."""
    if ctx.inside_container:
        return result("msnpureport", Status.SKIP, "not supported inside containers", [info(
            "msnpureport is not supported inside containers on older drivers; run it on the host.")])
    found = ctx.host.which("msnpureport")
    if found is None:
        return result("msnpureport", Status.WARN, "not found", [warn(
            "msnpureport is not installed (expected /usr/local/sbin/msnpureport): no NPU state monitoring, and "
            "DrivingSDK's env_npu.sh calls `msnpureport -e disable`.")])
    return result("msnpureport", Status.OK, f"found at {found}", path=found)


def check_hccn_conf(ctx: CheckContext) -> CheckResult:
    """`/etc/hccn.conf` (per-NPU RoCE addresses): informational for one host, needed across hosts."""
    path = ctx.requirements.hccn_conf
    conf, why = read_parsed(ctx.host, path, parse_hccn_conf)
    if conf is None and why == "missing":
        return result("hccn-conf", Status.WARN, "missing", [warn(
            f"No {path}: fine for one host, but the recipe bind-mounts it and multi-host HCCL training needs it.",
            remedy="hccn-conf-missing")])
    if conf is None:
        return result("hccn-conf", Status.WARN, "unreadable", [warn(f"{path} is {why}.")])
    addrs = conf.addresses
    if not addrs:
        return result("hccn-conf", Status.OK, "present, no addresses", [info(
            f"{path} sets no NPU addresses; only needed for training across several hosts.")])
    ids = sorted(addrs)
    host_ids = npu_device_ids(ctx)
    lacking = [i for i in host_ids if i not in addrs]
    details = {"addresses": {str(k): v for k, v in addrs.items()}, "path": posixpath.normpath(path)}
    if lacking:
        shown = ", ".join(map(str, lacking[:8])) + (", ..." if len(lacking) > 8 else "")
        return result("hccn-conf", Status.WARN, f"addresses for {len(ids)} of {len(host_ids)} NPUs", [warn(
            f"{path} sets addresses for {len(ids)} of this host's {len(host_ids)} NPUs (none for NPU {shown}). "
            "Fine for training on this one host; training across several hosts needs an address for every NPU.")],
            missing=lacking, **details)
    return result("hccn-conf", Status.OK, f"addresses for {len(ids)} NPU(s) ({', '.join(map(str, ids))})",
                  [info("Only needed for training across several hosts.")], **details)
