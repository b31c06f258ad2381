"""Provides the `system-packages` and `torch` stages: apt packages, then PyTorch and torch_npu, in the container.

Report: `apt-get install git vim wget gcc cmake curl iproute2 python3-dev python3-venv bc -y`, then
`pip install torch==2.7.1` and `pip install torch_npu==2.7.1`.
"""

from __future__ import annotations

import re

from checks.result import CheckResult
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.stages.common import container_of, guarded, pip, probe_run, sourced, verdict

#: Debian's "installed" state in `dpkg-query -W -f='${Status}'`.
_INSTALLED = "install ok installed"


def missing_packages(ctx: StageContext) -> list[str]:
    """apt packages of the recipe not installed in the container (`dpkg-query -W`).

    Output format (one line per package, ours): `<package>\\t<Status>`; a package dpkg has never
    heard of is missing from stdout (dpkg-query exits 1 and complains on stderr).

    Raises:
        ProbeUnavailable: no container, or dpkg-query cannot run.
    """
    pkgs = ctx.recipe.apt.packages
    res = probe_run(container_of(ctx), ["dpkg-query", "-W", "-f=${Package}\t${Status}\n", *pkgs])
    installed = set()
    for line in res.stdout.splitlines():
        name, _, status = line.partition("\t")
        if status.strip() == _INSTALLED:
            installed.add(name.split(":")[0])
    return [p for p in pkgs if p not in installed]


def _apt_steps(ctx: StageContext) -> list[Step]:
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    steps = []
    if ctx.recipe.apt.update_first:
        steps.append(Step(title="Refresh the package lists", argv=["apt-get", "update"], env=env, timeout_s=900.0))
    steps.append(Step(title="Install the system packages", argv=["apt-get", "install", "-y", *ctx.recipe.apt.packages],
                      env=env, timeout_s=1800.0))
    return steps


def _apt_verify(ctx: StageContext) -> list[CheckResult]:
    def body() -> list[CheckResult]:
        missing = missing_packages(ctx)
        n = len(ctx.recipe.apt.packages)
        return [verdict("apt-packages", "System packages", not missing,
                        f"all {n} packages installed" if not missing else f"missing: {', '.join(missing)}",
                        problem=f"apt-get did not install {', '.join(missing)}")]
    return guarded("apt-packages", "System packages", body)


SYSTEM_PACKAGES = Stage(
    id="system-packages",
    title="System packages",
    description=("Installs the build and command-line tools the model code needs inside the container (git, "
                 "gcc, cmake, python3-dev and a few more) with apt-get."),
    where=Where.CONTAINER,
    steps=_apt_steps,
    depends_on=("container",),
    done=lambda ctx: not missing_packages(ctx),
    verify=_apt_verify,
    verify_describe="every apt package of the recipe is installed in the container",
)

_PIP_SHOW = re.compile(r"^(Name|Version):\s*(.*)$")


def pip_show_versions(text: str) -> dict[str, str]:
    """Name -> version from `pip show A B` output (blocks of `Name: x` / `Version: y`, separated by `---`).

    Names are lower-cased with `-` and `_` treated alike (`torch-npu` == `torch_npu`).
    """
    out: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        m = _PIP_SHOW.match(line.strip())
        if not m:
            continue
        if m.group(1) == "Name":
            name = normalize(m.group(2))
        elif name:
            out[name] = m.group(2).strip()
            name = None
    return out


def normalize(name: str) -> str:
    """A distribution name in PEP 503 form: lower case, runs of -_. as one -."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def torch_versions(ctx: StageContext) -> dict[str, str]:
    """Installed torch / torch_npu versions in the container (`pip show torch torch_npu`).

    Raises:
        ProbeUnavailable: no container or no pip.
    """
    res = probe_run(container_of(ctx), pip(ctx, "show", "torch", "torch_npu"))
    return pip_show_versions(res.stdout)


def _torch_done(ctx: StageContext) -> bool:
    got = torch_versions(ctx)
    py = ctx.recipe.python
    return got.get("torch") == py.torch and got.get("torch-npu") == py.torch_npu


SMOKE_TEST = ("import torch, torch_npu; print('torch', torch.__version__, 'torch_npu', torch_npu.__version__); "
              "print('npu available', torch.npu.is_available(), 'devices', torch.npu.device_count())")


def _torch_steps(ctx: StageContext) -> list[Step]:
    py = ctx.recipe.python
    return [
        Step(title=f"Install PyTorch {py.torch}", argv=pip(ctx, "install", f"torch=={py.torch}"), timeout_s=3600.0),
        Step(title=f"Install torch_npu {py.torch_npu}", argv=pip(ctx, "install", f"torch_npu=={py.torch_npu}"),
             timeout_s=3600.0),
    ]


def smoke_argv(ctx: StageContext) -> list[str]:
    """The import smoke test, with the CANN environment sourced first."""
    cann = ctx.recipe.cann
    return sourced([cann.toolkit_set_env, cann.nnal_set_env], [ctx.recipe.python.executable, "-c", SMOKE_TEST])


def _torch_verify(ctx: StageContext) -> list[CheckResult]:
    def body() -> list[CheckResult]:
        py = ctx.recipe.python
        got = torch_versions(ctx)
        pinned = got.get("torch") == py.torch and got.get("torch-npu") == py.torch_npu
        out = [verdict("torch-versions", "torch and torch_npu versions", pinned,
                       f"torch {got.get('torch', 'missing')}, torch_npu {got.get('torch-npu', 'missing')}",
                       problem=f"the recipe wants torch {py.torch} and torch_npu {py.torch_npu}")]
        res = probe_run(container_of(ctx), smoke_argv(ctx), timeout=300.0)
        tail = (res.stderr.strip().splitlines() or res.stdout.strip().splitlines() or [""])[-1]
        out.append(verdict("torch-import", "import torch, torch_npu", res.ok,
                           res.stdout.strip().replace("\n", "; ") if res.ok else f"import failed: {tail}",
                           problem=tail or "import failed"))
        return out
    return guarded("torch", "PyTorch", body)


TORCH = Stage(
    id="torch",
    title="PyTorch and torch_npu",
    description=("Installs PyTorch and Ascend's torch_npu adapter at the versions that pair with the recipe's "
                 "CANN, then imports both as a smoke test. A torch_npu built for another CANN fails at import."),
    where=Where.CONTAINER,
    steps=_torch_steps,
    depends_on=("cann", "system-packages"),
    done=_torch_done,
    verify=_torch_verify,
    verify_describe=("torch and torch_npu are at the recipe's versions, and an import smoke test (CANN "
                     "environment sourced) imports both and counts the visible NPUs"),
)
