"""Provides the `cann` stage: download the three CANN runfiles, install them, load their env at login.

Report, "CANN 升级至 8.3.RC1": `wget -c` the toolkit, kernels and NNAL runfiles from Ascend's
repository (folder `CANN/CANN 8.3.RC1/`), install toolkit `--upgrade`, kernels `--install` (a fresh
install) and NNAL `--upgrade`, all `--install-for-all -q`, then source `ascend-toolkit/set_env.sh`
and `nnal/atb/set_env.sh` at every login. The runfiles are downloaded on the host into the data
folder, which the container sees at /data.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from checks.result import CheckResult
from wizard.download import download
from wizard.recipe import Runfile
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where
from wizard.stages.common import (ProbeUnavailable, container_of, described, guarded, key_value_version,
                                  read_or_none, running_version, sourced, verdict)

#: The shell text that appends each `source <file>` line to a login script once (idempotent).
#: Arguments: $1 the login script, then the set_env.sh files; quoting survives spaces and quotes.
PERSIST_SCRIPT = ('rc="$1"; shift; touch "$rc" || exit 1; for f in "$@"; do line="source $(printf %q "$f")"; '
                  'grep -qxF "$line" "$rc" || printf "%s\\n" "$line" >> "$rc"; done')


def _host_dest(ctx: StageContext, rf: Runfile) -> Path:
    folder = ctx.recipe.runfile_dir("host")
    real = getattr(ctx.host, "real_path", None)
    return Path(real(folder) if real else folder) / rf.file


def _download_action(name: str):
    def act(ctx: StageContext, io: ActionIO) -> int:
        rf = ctx.recipe.cann.runfiles[name]
        if rf.zip_sha256 and not rf.sha256:
            io.emit(f"{rf.file}: Ascend publishes no sha256 for the .run; the published one is for "
                    f"{rf.zip_file} ({rf.zip_sha256})")
        return download(rf.url, _host_dest(ctx, rf), emit=io.emit, cancelled=io.cancelled, sha256=rf.sha256)
    return act


def _installed(ctx: StageContext, name: str) -> bool:
    """True when version.cfg / NNAL's version.info already show this runfile at the recipe's version."""
    host = container_of(ctx)
    cann = ctx.recipe.cann
    rf = cann.runfiles[name]
    if rf.version_key:
        text = read_or_none(host, cann.version_cfg)
        return text is not None and running_version(text, rf.version_key) == cann.version
    if name == "nnal":
        text = read_or_none(host, cann.nnal_version_info)
        found = key_value_version(text or "", ["Ascend-cann-atb", "version"])
        return found is not None and found.startswith(cann.version)
    return False


def _skip_installed(name: str):
    @described(f"{name} already at the recipe's CANN version (version.cfg / version.info)")
    def probe(ctx: StageContext) -> bool:
        return _installed(ctx, name)
    return probe


def _steps(ctx: StageContext) -> list[Step]:
    cann = ctx.recipe.cann
    in_container = ctx.recipe.runfile_dir("container")
    steps: list[Step] = []
    for name, rf in cann.runfiles.items():
        dest = f"{ctx.recipe.runfile_dir('host')}/{rf.file}"
        steps.append(Step(
            title=f"Download {rf.file}", action=_download_action(name), where=Where.HOST, timeout_s=None,
            describe=shlex.join(["wget", "-c", rf.url, "-O", dest])
            + (f"   (then sha256 {rf.sha256})" if rf.sha256 else "   (no published sha256 for the .run)"),
        ))
    paths = [f"{in_container}/{rf.file}" for rf in cann.runfiles.values()]
    steps.append(Step(title="Make the runfiles executable", argv=["chmod", "+x", *paths], timeout_s=60.0))
    for name, rf in cann.runfiles.items():
        argv = [f"{in_container}/{rf.file}", *rf.install_flags]
        if rf.source_toolkit_env:
            argv = sourced([cann.toolkit_set_env], argv)
        steps.append(Step(title=f"Install {name} ({' '.join(rf.install_flags)})", argv=argv, timeout_s=3600.0,
                          skip_if=_skip_installed(name)))
    steps.append(Step(title=f"Load the CANN environment at every login ({cann.bashrc})",
                      argv=["bash", "-c", PERSIST_SCRIPT, "persist-env", cann.bashrc,
                            cann.toolkit_set_env, cann.nnal_set_env], timeout_s=60.0))
    return steps


def _bashrc_ok(ctx: StageContext) -> bool:
    cann = ctx.recipe.cann
    text = read_or_none(container_of(ctx), cann.bashrc) or ""
    sourced_files = set()
    for line in text.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:  # an unbalanced quote elsewhere in the user's file
            continue
        if len(words) == 2 and words[0] in ("source", "."):
            sourced_files.add(words[1])
    return {cann.toolkit_set_env, cann.nnal_set_env} <= sourced_files


def done(ctx: StageContext) -> bool:
    """True when every runfile shows the recipe's version and the login script loads both set_env.sh.

    Raises:
        ProbeUnavailable: the container cannot be reached.
    """
    return all(_installed(ctx, name) for name in ctx.recipe.cann.runfiles) and _bashrc_ok(ctx)


def verify(ctx: StageContext) -> list[CheckResult]:
    """One result per runfile (version reached) and one for the login script."""
    def body() -> list[CheckResult]:
        cann = ctx.recipe.cann
        out = []
        for name, rf in cann.runfiles.items():
            ok = _installed(ctx, name)
            out.append(verdict(f"cann-{name}", f"CANN {name} {cann.version}", ok,
                               f"{name} is at {cann.version}" if ok else f"{name} is not at {cann.version}",
                               problem=f"{rf.file} did not install (see the stage log)",
                               remedy="nnal-missing" if name == "nnal" else None))
        ok = _bashrc_ok(ctx)
        out.append(verdict("cann-env", "CANN environment at login", ok,
                           f"{cann.bashrc} sources both set_env.sh" if ok else f"{cann.bashrc} lacks a set_env.sh line",
                           problem="without set_env.sh, libascendcl/libhccl/libatb are not found",
                           remedy="cann-env-not-sourced"))
        return out
    return guarded("cann", "CANN upgrade", body)


STAGE = Stage(
    id="cann",
    title="CANN upgrade",
    description=("Upgrades the container's CANN from the base image's version to the recipe's (8.3.RC1): downloads "
                 "the toolkit, 910B kernels and NNAL runfiles (resumable), installs them in order and makes their "
                 "environment load at every login. torch_npu 2.7.1 needs exactly this CANN."),
    where=Where.CONTAINER,
    steps=_steps,
    depends_on=("container",),
    done=done,
    verify=verify,
    verify_describe=("each runfile (toolkit, kernels, NNAL) is installed at the recipe's CANN version, and the "
                     "login script sources both set_env.sh"),
)

__all__ = ["STAGE", "ProbeUnavailable", "done", "verify"]
