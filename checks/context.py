"""Provides what every check is given: the `Requirements` (from the recipe) and the `CheckContext`.

`Requirements` defaults are the recipe's values (`/work/shared/RECIPE.md`, `assets/recipe.toml`), so
checks can run without a recipe file; `Requirements.from_recipe` maps a loaded `wizard.recipe.Recipe`
onto it by attribute names, without importing `wizard` (dependencies point `wizard -> checks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, Field

from checks.host import Host

GIB = 1 << 30


class Requirements(BaseModel):
    """What the recipe wants from a host; every check compares against these."""

    target_arch: str = "aarch64"
    """The production architecture (Atlas 800T A2). x86_64 is the qemu development path."""
    npu_count: int = 8
    """NPUs the training uses (`/dev/davinci0..7`)."""
    chip: str = "910B"
    """Chip family; its lower case names the kernels folder (`ascend910b`)."""
    python: str = "3.10"
    """Python inside the container (the base image's)."""
    host_python_min: str = "3.10"
    """Oldest Python the wizard itself runs on."""
    driver_version: str = "25.3.RC1"
    """NPU driver CANN 8.3.RC1 expects (RECIPE.md, Compatibility)."""
    cann_version: str = "8.3.RC1"
    """CANN toolkit, kernels and NNAL version after the upgrade stage."""
    base_cann_version: str = "8.1.RC1"
    """CANN version the base image ships (must be upgraded)."""
    torch: str = "2.7.1"
    torch_npu: str = "2.7.1"
    shm_min_bytes: int = 500 * GIB
    """Size of `/dev/shm` inside the container, bytes (`--shm-size 500g`, docker's g = GiB)."""
    docker_root: str = "/var/lib/docker"
    """Where images go on the host."""
    docker_free_bytes: int = 60 * GIB
    """Free space wanted under `docker_root`, bytes (recipe `[disk] docker_gib`, an estimate)."""
    data_path: str = "/data"
    """Host data folder: runfiles, dataset, weights."""
    data_free_bytes: int = 80 * GIB
    """Free space wanted under `data_path`, bytes (recipe `[disk] data_gib`, an estimate)."""
    memory_min_bytes: int = 64 * GIB
    """RAM below which the host is flagged. ESTIMATE: the report gives none (an 800T A2 has far more)."""
    download_hosts: list[str] = Field(default_factory=lambda: [
        "ascend-repo.obs.cn-east-2.myhuaweicloud.com", "swr.cn-south-1.myhuaweicloud.com",
        "gitcode.com", "github.com", "pypi.org", "files.pythonhosted.org", "huggingface.co", "modelscope.cn",
    ])
    """Host names (or URLs) the stages download from."""
    probe_timeout_s: float = 3.0
    """Timeout of one reachability probe, seconds."""
    driver_dir: str = "/usr/local/Ascend/driver"
    firmware_dir: str = "/usr/local/Ascend/firmware"
    toolkit_dir: str = "/usr/local/Ascend/ascend-toolkit"
    version_cfg: str = "/usr/local/Ascend/ascend-toolkit/latest/version.cfg"
    nnal_version_info: str = "/usr/local/Ascend/nnal/atb/latest/version.info"
    hccn_conf: str = "/etc/hccn.conf"
    command_timeout_s: float = 5.0
    """Timeout of each command a check runs (npu-smi, uname, python3 --version), seconds."""

    @property
    def kernels_soc(self) -> str:
        """Kernels folder suffix, e.g. `ascend910b`."""
        return "ascend" + self.chip.lower()

    @classmethod
    def from_recipe(cls, recipe: Any) -> "Requirements":
        """Map a `wizard.recipe.Recipe` (duck-typed: its `target`, `cann`, `python`, `container`,
        `disk`, `network`, `image` sections) onto Requirements; missing sections keep the defaults."""
        data: dict[str, Any] = {}

        def take(obj: Any, attr: str, key: str, conv: Callable[[Any], Any] = lambda v: v) -> None:
            if obj is not None and getattr(obj, attr, None) is not None:
                data[key] = conv(getattr(obj, attr))

        target = getattr(recipe, "target", None)
        for attr in ("arch", "npu_count", "chip", "python", "driver_version"):
            take(target, attr, "target_arch" if attr == "arch" else attr)
        cann = getattr(recipe, "cann", None)
        take(cann, "version", "cann_version")
        take(cann, "version_cfg", "version_cfg")
        take(cann, "nnal_version_info", "nnal_version_info")
        take(getattr(recipe, "image", None), "base_cann_version", "base_cann_version")
        py = getattr(recipe, "python", None)
        take(py, "torch", "torch")
        take(py, "torch_npu", "torch_npu")
        container = getattr(recipe, "container", None)
        take(container, "shm_size", "shm_min_bytes", parse_size)
        take(getattr(container, "data", None), "host_path", "data_path")
        disk = getattr(recipe, "disk", None)
        take(disk, "docker_gib", "docker_free_bytes", lambda g: int(float(g) * GIB))
        take(disk, "data_gib", "data_free_bytes", lambda g: int(float(g) * GIB))
        net = getattr(recipe, "network", None)
        take(net, "hosts", "download_hosts", list)
        take(net, "probe_timeout_s", "probe_timeout_s", float)
        return cls(**data)


def parse_size(text: str | int) -> int:
    """Docker-style size to bytes: `500g` -> 500 GiB, `64m` -> 64 MiB, `1024` -> 1024 (units are powers of 1024).

    Raises:
        ValueError: not a number with an optional b/k/m/g/t suffix.
    """
    if isinstance(text, int):
        return text
    s = str(text).strip().lower().removesuffix("b").removesuffix("i")
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    mult = units.get(s[-1:], 1) if s else 1
    num = s[:-1] if s[-1:] in units else s
    return int(float(num) * mult)


def detect_inside_container(host: Host) -> bool:
    """True when the host is the inside of a container that cannot drive Docker itself.

    A container is recognised by `/.dockerenv` or `/run/.containerenv`. A container that holds the
    Docker socket (`/var/run/docker.sock`, as a development box or CI runner may) acts as a host,
    since the wizard creates the `pi` container from there.
    """
    marker = any(host.stat(p) is not None for p in ("/.dockerenv", "/run/.containerenv"))
    sock = host.stat("/var/run/docker.sock")
    return marker and not (sock is not None and sock.kind == "socket")


@dataclass
class CheckContext:
    """Everything a check may use.

    Attributes:
        host: where questions are asked (LocalHost, rooted LocalHost, ContainerHost).
        requirements: what the recipe wants.
        offline: True to skip network probes (`check --offline`).
        inside_container: True when `host` is the inside of the `pi` container; decides checks such as
            `shm` (only meaningful inside) and `docker`, `msnpureport` (only meaningful on the host).
        docker_client: factory returning a Docker SDK client; None uses `docker.from_env()`.
            Tests pass a stand-in.
    """

    host: Host
    requirements: Requirements = field(default_factory=Requirements)
    offline: bool = False
    inside_container: bool = False
    docker_client: Callable[[], Any] | None = None

    @classmethod
    def for_host(cls, host: Host, requirements: Requirements | None = None, offline: bool = False,
                 **kwargs: Any) -> "CheckContext":
        """A context whose `inside_container` is detected on the host (`detect_inside_container`)."""
        return cls(host=host, requirements=requirements or Requirements(), offline=offline,
                   inside_container=detect_inside_container(host), **kwargs)
