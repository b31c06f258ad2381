"""Provides the CANN checks: `cann-toolkit`, `cann-kernels`, `nnal`, and `compat` (torch_npu / CANN / driver).

On the host, CANN is normally absent (it lives in the container: the base image ships 8.1.RC1 and the
CANN stage upgrades it); these checks then say `skip`. Inside the container, absence is a failure.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from packaging.version import InvalidVersion, Version

from checks.common import error, info, read_parsed, result, verdict, warn
from checks.context import CheckContext
from checks.parsers.versions import (
    ascend_version_key,
    parse_driver_version,
    parse_nnal_version,
    parse_toolkit_install_info,
    parse_version_cfg,
    same_release,
)
from checks.result import CheckResult, Status

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Files under the kernels folder that the toolkit itself ships (so they do not prove the kernels runfile ran).
TOOLKIT_ONLY_KERNEL_ENTRIES = {"ops_oam", "config"}


@dataclass(frozen=True)
class CannFound:
    """The CANN toolkit as found on a host."""

    present: bool
    """The toolkit folder exists."""
    running: str | None = None
    """Running toolkit version (version.cfg, else ascend_toolkit_install.info)."""
    kernels: str | None = None
    """Running opp_kernel version from version.cfg (the kernels runfile)."""
    history: tuple[str, ...] = ()
    """Toolkit install history, oldest first."""
    source: str | None = None
    """The file the running version came from."""
    problem: str | None = None
    """Why no version could be read."""


def find_cann(ctx: CheckContext) -> CannFound:
    """Locate the CANN toolkit and read its running version (version.cfg first, then the install.info)."""
    req = ctx.requirements
    latest = f"{req.toolkit_dir}/latest"
    if ctx.host.stat(latest) is None:
        return CannFound(present=False)
    cfg, why_cfg = read_parsed(ctx.host, req.version_cfg, parse_version_cfg)
    if cfg is not None and cfg.toolkit:
        return CannFound(True, cfg.toolkit, cfg.kernels, tuple(cfg.installed.get("toolkit", ())), req.version_cfg)
    for name in ctx.host.listdir(latest):
        if name.endswith("-linux"):
            path = f"{latest}/{name}/ascend_toolkit_install.info"
            tk, _ = read_parsed(ctx.host, path, parse_toolkit_install_info)
            if tk is not None:
                return CannFound(True, tk.version, cfg.kernels if cfg else None, (), path)
    return CannFound(True, problem=f"{req.version_cfg} is {why_cfg} and no ascend_toolkit_install.info was readable")


def _absent(ctx: CheckContext, check_id: str, what: str) -> CheckResult:
    req = ctx.requirements
    if ctx.inside_container:
        return result(check_id, Status.FAIL, f"{what} not installed", [error(
            f"No CANN toolkit at {req.toolkit_dir}/latest in the container: CANN is not installed here; run the "
            f"`cann` stage to install {req.cann_version}.")])
    return result(check_id, Status.SKIP, "not on the host (CANN lives in the container)", [info(
        f"The container's CANN (base image {req.base_cann_version}) is upgraded to {req.cann_version} by the CANN stage.")])


def check_cann_toolkit(ctx: CheckContext) -> CheckResult:
    """The running CANN toolkit version is the recipe's (read from version.cfg, not its install history)."""
    req = ctx.requirements
    found = find_cann(ctx)
    if not found.present:
        return _absent(ctx, "cann-toolkit", "CANN toolkit")
    if found.running is None:
        return result("cann-toolkit", Status.ERROR, "unrecognized version files", [error(f"{found.problem}.")])
    msgs = []
    if not same_release(found.running, req.cann_version):
        text = f"CANN {found.running} is running; the recipe wants {req.cann_version}"
        if any(same_release(v, req.cann_version) for v in found.history):
            text += f" ({req.cann_version} is in the install history, so an upgrade was attempted but did not take)"
        msgs.append(error(text + "; re-run the CANN upgrade stage."))
    elif ctx.inside_container:
        env = ctx.host.environ()
        set_env = f"{req.toolkit_dir}/set_env.sh"
        if ctx.host.stat(set_env) is None:
            # The env fix sources this file; without it the toolkit is not (completely) installed.
            msgs.append(error(f"CANN {found.running} version files are here but {set_env} is not: the toolkit is not "
                              "completely installed in this container; run the `cann` stage to install it."))
        elif not (env.get("ASCEND_TOOLKIT_HOME") or env.get("ASCEND_HOME_PATH")):
            msgs.append(warn(f"The toolkit is installed but its {set_env} is not sourced in this shell (no "
                             "ASCEND_TOOLKIT_HOME): libhccl.so / libascendcl.so will not be found.",
                             remedy="cann-env-not-sourced"))
    return result("cann-toolkit", verdict(msgs), f"{found.running} running", msgs, version=found.running,
                  source=found.source, history=list(found.history))


def check_cann_kernels(ctx: CheckContext) -> CheckResult:
    """The 910b operator kernels folder holds the kernels runfile's output, at the recipe's version."""
    req = ctx.requirements
    found = find_cann(ctx)
    if not found.present:
        return _absent(ctx, "cann-kernels", "CANN kernels")
    folder = f"{req.toolkit_dir}/latest/opp/built-in/op_impl/ai_core/tbe/kernel/{req.kernels_soc}"
    entries = [e for e in ctx.host.listdir(folder) if e not in TOOLKIT_ONLY_KERNEL_ENTRIES]
    msgs = []
    if not entries:
        msgs.append(error(f"{folder} holds no kernels: install Ascend-cann-kernels-{req.chip.lower()}_{req.cann_version} "
                          "(a fresh --install, after the toolkit); operators fail with error 561103 otherwise."))
    elif found.kernels and not same_release(found.kernels, req.cann_version):
        msgs.append(error(f"Kernels {found.kernels} are running; the recipe wants {req.cann_version}: reinstall the "
                          "kernels runfile after the toolkit upgrade."))
    label = found.kernels or "version unknown"
    return result("cann-kernels", verdict(msgs), f"{label}, {len(entries)} operator folders" if entries else "missing",
                  msgs, folder=folder, version=found.kernels)


def check_nnal(ctx: CheckContext) -> CheckResult:
    """NNAL/ATB is installed (`nnal/atb/latest/version.info`) and matches the toolkit."""
    req = ctx.requirements
    found = find_cann(ctx)
    nnal, why = read_parsed(ctx.host, req.nnal_version_info, parse_nnal_version)
    if nnal is None and why == "missing":
        if not found.present and not ctx.inside_container:
            return _absent(ctx, "nnal", "NNAL")
        return result("nnal", Status.FAIL, "not installed", [error(
            f"NNAL/ATB is not installed ({req.nnal_version_info} missing): torch_npu fails with 'libatb.so: cannot "
            f"open shared object file'. Install Ascend-cann-nnal_{req.cann_version} and source nnal/atb/set_env.sh.",
            remedy="nnal-missing")])
    if nnal is None:
        return result("nnal", Status.ERROR, "unrecognized version.info", [error(f"{req.nnal_version_info} is {why}.")])
    msgs = []
    want = found.running or req.cann_version
    if not same_release(nnal.version, want):
        msgs.append(error(f"NNAL/ATB {nnal.version} does not match CANN {want}; mismatched ATB and toolkit give "
                          f"'undefined symbol' errors. Install Ascend-cann-nnal_{req.cann_version}."))
    return result("nnal", verdict(msgs), f"ATB {nnal.version}", msgs, version=nnal.version, full_version=nnal.full_version)


@lru_cache(maxsize=1)
def load_compat_table() -> tuple[dict, ...]:
    """Rows of `assets/compat.toml`: dicts with torch, torch_npu, cann and optional driver_min."""
    text = resources.files("assets").joinpath("compat.toml").read_text(encoding="utf-8")
    return tuple(tomllib.loads(text).get("pair", []))


def _same_pep440(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a.strip() == b.strip()


def check_compat(ctx: CheckContext) -> CheckResult:
    """torch_npu <-> CANN <-> driver, from `assets/compat.toml`."""
    req = ctx.requirements
    row = next((r for r in load_compat_table() if _same_pep440(str(r.get("torch_npu", "")), req.torch_npu)), None)
    if row is None:
        return result("compat", Status.WARN, f"torch_npu {req.torch_npu} not in the table", [warn(
            f"No compatibility entry for torch_npu {req.torch_npu}; add one to assets/compat.toml.")])
    msgs = []
    cann_for = str(row["cann"])
    if not same_release(cann_for, req.cann_version):
        msgs.append(error(f"The recipe pairs torch_npu {req.torch_npu} with CANN {req.cann_version}, but torch_npu "
                          f"{req.torch_npu} is built for CANN {cann_for}.", remedy="torch-npu-cann-mismatch"))
    found = find_cann(ctx)
    if found.running and not same_release(found.running, cann_for):
        msgs.append(error(f"torch_npu {req.torch_npu} needs CANN {cann_for} but CANN {found.running} is running: "
                          "importing it fails with 'undefined symbol'.", remedy="torch-npu-cann-mismatch"))
    elif not found.present:
        msgs.append(info(f"CANN is not on this host; the container gets CANN {cann_for} for torch_npu {req.torch_npu}."))
    driver_min = row.get("driver_min")
    drv, why = read_parsed(ctx.host, f"{req.driver_dir}/version.info", parse_driver_version)
    if driver_min and drv is not None and ascend_version_key(drv.best) < ascend_version_key(str(driver_min)):
        msgs.append(warn(f"Driver {drv.best} is older than {driver_min}, which CANN {cann_for} expects; upgrade the "
                         "Ascend HDK (firmware, then driver, then reboot)."))
    elif driver_min and drv is None:
        msgs.append(info(f"Driver version unknown ({why}); CANN {cann_for} expects {driver_min} or newer."))
    summary = f"torch_npu {req.torch_npu} -> CANN {cann_for}" + (f" -> driver >= {driver_min}" if driver_min else "")
    return result("compat", verdict(msgs), summary, msgs, row=dict(row),
                  cann_running=found.running, driver=drv.best if drv else None)
