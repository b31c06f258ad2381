"""Provides the device-node checks: `devices` (`/dev/davinci*` and the control nodes) and `visible-devices`."""

from __future__ import annotations

import re

from checks.common import error, info, quoted, result, verdict, warn
from checks.context import CheckContext
from checks.result import CheckResult, Status

CONTROL_DEVICES = ("davinci_manager", "hisi_hdc", "devmm_svm")
"""Control nodes every NPU container needs beside `/dev/davinciN` (RECIPE.md, stage 1)."""
_DAVINCI = re.compile(r"^davinci(\d+)$")


def npu_device_ids(ctx: CheckContext) -> list[int]:
    """Ids N of every `/dev/davinciN` present on the host (any file type), sorted."""
    return sorted(int(m.group(1)) for n in ctx.host.listdir("/dev") if (m := _DAVINCI.match(n)))


def check_devices(ctx: CheckContext) -> CheckResult:
    """`/dev/davinci0..N` are character devices without gaps, and so are the three control nodes."""
    want = ctx.requirements.npu_count
    present = npu_device_ids(ctx)
    msgs = []
    top = max([want - 1, *present]) if present or want else -1
    missing = [i for i in range(top + 1) if i not in present]
    not_char = [i for i in present if (st := ctx.host.stat(f"/dev/davinci{i}")) is None or st.kind != "char"]
    if not present:
        msgs.append(error(f"No /dev/davinciN device nodes: no NPU driver is loaded here (the recipe wants {want})."))
    elif missing:
        names = ", ".join(f"/dev/davinci{i}" for i in missing)
        msgs.append(error(f"{names} missing: NPU ids must run 0..{top} without gaps (a chip is down or not passed through)."))
    if not_char:
        msgs.append(error(", ".join(f"/dev/davinci{i}" for i in not_char) + " exist but are not character devices."))
    if present and len(present) < want and not missing:
        msgs.append(error(f"Only {len(present)} NPU device nodes; the recipe trains on {want}."))
    ctl_bad = []
    for name in CONTROL_DEVICES:
        st = ctx.host.stat(f"/dev/{name}")
        if st is None or st.kind != "char":
            ctl_bad.append(f"/dev/{name}")
    if ctl_bad:
        msgs.append(error(f"{', '.join(ctl_bad)} missing or not a character device: the NPU driver's control "
                          "nodes are needed by every NPU process."))
    status = verdict(msgs)
    if not present:
        summary = "no NPU device nodes" + (f"; {len(ctl_bad)} control nodes missing" if ctl_bad else "")
    elif status is Status.OK:
        summary = f"davinci{present[0]}..{present[-1]} ({len(present)}) + control nodes"
    else:
        gone = [f"davinci{i}" for i in missing] + [c.removeprefix("/dev/") for c in ctl_bad]
        summary = f"{len(present)} NPU nodes" + (f"; missing: {', '.join(gone[:6])}" if gone else "")
    return result("devices", status, summary, msgs, npu_ids=present, missing=missing, control_missing=ctl_bad)


def parse_visible_devices(value: str) -> list[int]:
    """`ASCEND_RT_VISIBLE_DEVICES` ("0,1,2") to ids. Raises ValueError for anything but comma-separated integers."""
    parts = [p.strip() for p in value.split(",")]
    if not parts or any(not p.isdigit() for p in parts):
        raise ValueError(value)
    return [int(p) for p in parts]


def check_visible_devices(ctx: CheckContext) -> CheckResult:
    """When `ASCEND_RT_VISIBLE_DEVICES` is set, it names existing NPUs, without repeats."""
    value = ctx.host.environ().get("ASCEND_RT_VISIBLE_DEVICES")
    present = npu_device_ids(ctx)
    if value is None:
        if not present:
            return result("visible-devices", Status.SKIP, "not set (no NPUs found)", [info(
                "No /dev/davinciN device nodes here, so there is nothing to make visible.")], present=present)
        return result("visible-devices", Status.OK, f"not set: all {len(present)} NPUs visible", present=present)
    try:
        ids = parse_visible_devices(value)
    except ValueError:
        m = error(f"ASCEND_RT_VISIBLE_DEVICES={quoted(value, 80)} is not a comma-separated list of NPU ids.",
                  remedy="visible-devices-out-of-range")
        return result("visible-devices", Status.FAIL, f"unreadable value {quoted(value)}", [m])
    msgs = []
    out = [i for i in ids if i >= len(present)]
    if out:
        msgs.append(error(f"ASCEND_RT_VISIBLE_DEVICES names {', '.join(map(str, out))} but only {len(present)} NPUs "
                          f"exist (ids 0..{len(present) - 1}).", remedy="visible-devices-out-of-range"))
    if len(set(ids)) != len(ids):
        msgs.append(error(f"ASCEND_RT_VISIBLE_DEVICES={value} repeats an id.", remedy="visible-devices-out-of-range"))
    if not msgs and len(ids) != ctx.requirements.npu_count:
        msgs.append(info(f"{len(ids)} NPUs visible: training's world_size must be {len(ids)}."))
    if not msgs and len(ids) < len(present):
        msgs.append(warn(f"Only {len(ids)} of {len(present)} NPUs are visible to training."))
    return result("visible-devices", verdict(msgs), f"{value} ({len(ids)} NPUs)", msgs, ids=ids, present=present)
