"""Provides the host-level checks: `arch`, `shm`, `disk`, `memory`, `python`."""

from __future__ import annotations

import posixpath
import re

from checks.common import error, gib, info, one_line, quoted, result, verdict, warn
from checks.context import CheckContext
from checks.result import CheckResult, Status

_PY = re.compile(r"Python\s+(\d+)\.(\d+)(?:\.(\d+))?")
_MEMINFO = re.compile(r"^(\w+):\s+(\d+)\s*kB", re.M)
BINFMT_QEMU = "/proc/sys/fs/binfmt_misc/qemu-aarch64"


def check_arch(ctx: CheckContext) -> CheckResult:
    """`uname -m` on the host: aarch64 is the target; x86_64 needs `qemu-aarch64-static` and its binfmt entry."""
    req = ctx.requirements
    run = ctx.host.run(["uname", "-m"], timeout=req.command_timeout_s)
    machine = one_line(run.stdout, 40) if run.ok else ""
    if not machine:
        why = "timed out" if run.timed_out else (run.stderr.strip() or f"exit {run.returncode}")
        return result("arch", Status.ERROR, "could not run `uname -m`", [error(f"`uname -m` failed: {why}.")])
    if machine == req.target_arch:
        return result("arch", Status.OK, f"{machine} (the target)", machine=machine)
    if machine in ("x86_64", "amd64"):
        qemu = ctx.host.which("qemu-aarch64-static")
        try:
            binfmt = ctx.host.read_text(BINFMT_QEMU, max_bytes=4096)
        except OSError:
            binfmt = ""
        registered = binfmt.splitlines()[0].strip() == "enabled" if binfmt.strip() else False
        missing = [name for name, ok in (("qemu-aarch64-static", qemu), ("its binfmt registration", registered)) if not ok]
        if missing:
            return result("arch", Status.FAIL, f"{machine} without {' and '.join(missing)}", [error(
                f"This is an {machine} host and {' and '.join(missing)} is missing, so the arm64 image cannot run "
                "(exec format error); install qemu-user-static and register it with binfmt.", remedy="exec-format-error")],
                machine=machine, qemu=qemu, binfmt_registered=registered)
        return result("arch", Status.WARN, f"{machine}: development path under qemu", [warn(
            f"{machine} is the development path only: the arm64 image runs under qemu-aarch64-static, slowly and without NPUs.")],
            machine=machine, qemu=qemu, binfmt_registered=True)
    return result("arch", Status.FAIL, f"{machine}: unsupported", [error(
        f"{machine} is not supported; the recipe targets {req.target_arch} (x86_64 works as a development path).")],
        machine=machine)


def check_shm(ctx: CheckContext) -> CheckResult:
    """Size of `/dev/shm` (statvfs) inside the container against the recipe's `--shm-size`."""
    need = ctx.requirements.shm_min_bytes
    if not ctx.inside_container:
        return result("shm", Status.SKIP, f"applies inside the container, created with --shm-size {gib(need)}",
                      [info("The host's /dev/shm does not limit the container; the container gets its own.")])
    du = ctx.host.disk_usage("/dev/shm")
    if du is None:
        return result("shm", Status.FAIL, "no /dev/shm", [error(
            f"/dev/shm is missing; DataLoader workers need it ({gib(need)} wanted).", remedy="shm-too-small")])
    msgs = []
    if du.total < need:
        msgs.append(error(f"/dev/shm is {gib(du.total)}; the recipe wants {gib(need)}, or DataLoader workers die with "
                          "'Bus error' / 'No space left on device'.", remedy="shm-too-small"))
    return result("shm", verdict(msgs), f"{gib(du.total)} ({gib(du.free)} free)", msgs,
                  total_bytes=du.total, free_bytes=du.free, required_bytes=need)


def _existing_ancestor(ctx: CheckContext, path: str) -> str:
    p = posixpath.normpath(path)
    while p != "/" and ctx.host.stat(p) is None:
        p = posixpath.dirname(p)
    return p


def check_disk(ctx: CheckContext) -> CheckResult:
    """Free space (statvfs) under Docker's root and the data folder against the recipe's needs.

    A path that does not exist yet is measured at its nearest existing parent. Two paths whose
    filesystems report identical total and free bytes are taken as one filesystem, and their needs add up.
    """
    req = ctx.requirements
    needs = [("data folder", req.data_path, req.data_free_bytes)]
    if not ctx.inside_container:
        needs.insert(0, ("Docker images", req.docker_root, req.docker_free_bytes))
    groups: dict[tuple[int, int], list[tuple[str, str, int, str]]] = {}
    msgs = []
    for label, path, need in needs:
        where = _existing_ancestor(ctx, path)
        du = ctx.host.disk_usage(where)
        if du is None:
            msgs.append(error(f"Cannot measure free space for the {label} at {path}."))
            continue
        groups.setdefault((du.total, du.free), []).append((label, path, need, where))
    parts = []
    details = {}
    for (total, free), items in groups.items():
        need = sum(i[2] for i in items)
        names = " + ".join(f"{i[0]} ({i[1]})" for i in items)
        parts.append(f"{gib(free)} free for {' + '.join(i[1] for i in items)}")
        for i in items:
            details[i[1]] = {"measured_at": i[3], "free_bytes": free, "needed_bytes": i[2]}
        if free < need:
            msgs.append(error(f"{gib(free)} free for the {names}; about {gib(need)} needed. Free space or point the "
                              "data folder / Docker root elsewhere."))
    return result("disk", verdict(msgs), "; ".join(parts) or "not measured", msgs, **details)


def check_memory(ctx: CheckContext) -> CheckResult:
    """MemTotal / MemAvailable from `/proc/meminfo` against the recipe's minimum."""
    try:
        text = ctx.host.read_text("/proc/meminfo", max_bytes=64 << 10)
    except OSError as exc:
        return result("memory", Status.ERROR, "cannot read /proc/meminfo", [error(f"/proc/meminfo: {exc.strerror or exc}.")])
    kv = {k: int(v) * 1024 for k, v in _MEMINFO.findall(text)}
    total = kv.get("MemTotal")
    if not total:
        return result("memory", Status.ERROR, "unrecognized /proc/meminfo output", [error("No MemTotal line in /proc/meminfo.")])
    avail = kv.get("MemAvailable", kv.get("MemFree", 0))
    msgs = []
    if total < ctx.requirements.memory_min_bytes:
        msgs.append(warn(f"{gib(total)} of RAM is less than the {gib(ctx.requirements.memory_min_bytes)} this recipe expects; "
                         "lower the batch size or DataLoader workers."))
    return result("memory", verdict(msgs), f"{gib(total)} total, {gib(avail)} available", msgs,
                  total_bytes=total, available_bytes=avail)


def check_python(ctx: CheckContext) -> CheckResult:
    """`python3 --version`: inside the container it must be the recipe's (3.10); on the host at least 3.10."""
    req = ctx.requirements
    run = ctx.host.run(["python3", "--version"], timeout=req.command_timeout_s)
    m = _PY.search(run.stdout + run.stderr)
    if not m:
        if run.not_found:
            msg = "python3 is not on PATH."
        elif run.timed_out:
            msg = "`python3 --version` did not answer in time."
        else:
            msg = f"unrecognized `python3 --version` output: {quoted(run.stdout + run.stderr, 80)}."
        level = error if ctx.inside_container else warn
        m_ = level(msg)
        return result("python", verdict([m_]), "python3 not usable", [m_])
    found = (int(m.group(1)), int(m.group(2)))
    text = m.group(0).split()[-1]
    want = tuple(int(x) for x in req.python.split(".")[:2])
    msgs = []
    details: dict = {}
    if ctx.inside_container and found != want:
        msgs.append(error(f"Python {text} in the container; the recipe's torch {req.torch} / torch_npu wheels are for Python {req.python}."))
    elif not ctx.inside_container:
        low = tuple(int(x) for x in req.host_python_min.split(".")[:2])
        if found < low:
            msgs.append(warn(f"Python {text} on the host; the wizard needs {req.host_python_min} or newer."))
    summary = f"Python {text}"
    if ctx.inside_container:
        versions, pkg_msgs = _packages(ctx)
        msgs += pkg_msgs
        if versions:
            details["packages"] = versions
            # Only installed ones: a fresh container (nothing installed yet) keeps "Python 3.10.12" alone.
            summary = ", ".join([summary, *(f"{k} {v}" for k, v in versions.items()
                                            if v and k in ("torch", "torch_npu", "numpy"))])
    return result("python", verdict(msgs), summary, msgs, version=text, **details)


def _packages(ctx: CheckContext) -> tuple[dict, list]:
    """Installed torch / torch_npu / numpy / transformers / lerobot (one `python3 -c` call) and their messages."""
    from checks.python_packages import package_messages, probe_versions

    req = ctx.requirements
    versions, why = probe_versions(ctx.host, "python3", req.command_timeout_s)
    if versions is None:
        return {}, [warn(f"Could not read the installed package versions with importlib.metadata ({why}).")]
    return versions, package_messages(versions, req.torch, req.torch_npu)
