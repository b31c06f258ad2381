"""Provides the desired container configuration, built from the recipe and the Host (pure, no Docker).

`build_spec(settings, host)` answers "what `docker run` would the report type on this host": on an
aarch64 host every `/dev/davinciN` that exists plus the three manager devices and the recipe's bind
mounts (the report's `docker run -itdu root --privileged --net=host --shm-size 500g ...`, plus the
extra mounts Ascend's own guides use); on an x86_64 development host the QEMU variant (report
section "x86_64": `qemu-aarch64-static`, `/etc/timezone` and `/etc/localtime` read-only, the data
folder; no NPU devices). Paths in a `ContainerSpec` are host paths; `docker_create_kwargs` turns them
into the real paths Docker needs (under `--root DIR` for a simulated host).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from dataclasses import dataclass, field
from typing import Callable, Sequence

from docker.utils import parse_bytes
from pydantic import BaseModel, ConfigDict, Field, field_validator

from checks.host import Host

#: Devices the Ascend driver needs beside the per-chip `/dev/davinciN` nodes (report, `--device=`).
MANAGER_DEVICES = ("/dev/davinci_manager", "/dev/hisi_hdc", "/dev/devmm_svm")

_DAVINCI = re.compile(r"^davinci(\d+)$")


class MountSetting(BaseModel):
    """One bind mount as the recipe states it (`-v source:target[:ro]`).

    Attributes:
        source: absolute path on the host.
        target: absolute path in the container.
        read_only: mount read-only (`:ro`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    target: str
    read_only: bool = False

    @field_validator("source", "target")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError(f"must be an absolute path, got {value!r}")
        return value


class ContainerSettings(BaseModel):
    """The container part of the recipe, as this package needs it.

    Attributes:
        name: container name (`--name=pi`).
        image: image reference to run (the CANN base image, or a reused `pi:...` image).
        platform: platform to pull (`docker pull --platform=arm64` -> "linux/arm64").
        privileged: `--privileged`.
        network_mode: `--net=host`.
        shm_size: size of `/dev/shm` in bytes (`--shm-size 500g` = 500 GiB = 536870912000);
            a Docker size string ("500g") is accepted and converted.
        user: `-u root`.
        command: the container's command; None keeps the image's default (bash for the CANN image).
        npu_count: how many `/dev/davinciN` nodes the host must have (8 on an Atlas 800T A2);
            None accepts any count >= 1 without gaps. More than that are passed through too.
        extra_devices: the non-chip devices that must exist (davinci_manager, hisi_hdc, devmm_svm).
        mounts: native (aarch64) bind mounts.
        qemu_mounts: x86_64 (QEMU) bind mounts.
        data_dir: host folder mounted at `data_target` (the report's `/data/z84185676:/data/`).
        data_target: where the data folder appears in the container.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "pi"
    image: str
    platform: str = "linux/arm64"
    privileged: bool = True
    network_mode: str = "host"
    shm_size: int = 500 * 1024**3
    user: str = "root"
    command: tuple[str, ...] | None = None
    npu_count: int | None = None
    extra_devices: tuple[str, ...] = MANAGER_DEVICES
    mounts: tuple[MountSetting, ...] = ()
    qemu_mounts: tuple[MountSetting, ...] = ()
    data_dir: str | None = None
    data_target: str = "/data"

    @field_validator("shm_size", mode="before")
    @classmethod
    def _bytes(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return parse_bytes(value.strip())
            except Exception as exc:  # docker raises DockerException for a bad unit
                raise ValueError(f"not a size like '500g': {value!r} ({exc})") from None
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        # Docker's own rule for container names: [a-zA-Z0-9][a-zA-Z0-9_.-]+
        if not re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9_.-]*", value):
            raise ValueError(f"not a valid container name: {value!r}")
        return value


@dataclass(frozen=True)
class ContainerSpec:
    """The container to create, field by field, in host paths.

    Attributes:
        name, image, platform, privileged, network_mode, shm_size (bytes), user, command: as in
            `ContainerSettings`.
        variant: "native" (aarch64, NPU devices) or "qemu" (x86_64 development host).
        devices: host device paths, each mapped to the same path in the container with `rwm`.
        mounts: bind mounts whose sources exist on the host.
        warnings: one sentence per mount left out because its source does not exist.
    """

    name: str
    image: str
    platform: str
    privileged: bool
    network_mode: str
    shm_size: int
    user: str
    command: tuple[str, ...] | None
    variant: str
    devices: tuple[str, ...]
    mounts: tuple[MountSetting, ...]
    warnings: tuple[str, ...] = field(default=())

    def with_image(self, image: str) -> "ContainerSpec":
        """The same container from another image (e.g. a loaded `pi:...` archive)."""
        return dataclasses.replace(self, image=image)

    def run_command(self) -> str:
        """The equivalent `docker run` command line, shell-quoted, for `plan` and logs."""
        argv = ["docker", "run", "-itd", "-u", self.user, f"--name={self.name}"]
        if self.privileged:
            argv.append("--privileged")
        argv += [f"--net={self.network_mode}", "--shm-size", docker_size(self.shm_size)]
        argv += [f"--device={d}" for d in self.devices]
        for m in self.mounts:
            argv += ["-v", f"{m.source}:{m.target}" + (":ro" if m.read_only else "")]
        argv.append(self.image)
        if self.command:
            argv += list(self.command)
        return shlex.join(argv)


def docker_size(n: int) -> str:
    """Bytes as `docker run` writes sizes: 536870912000 -> "500g", 67108864 -> "64m", 1000 -> "1000"."""
    for unit, factor in (("g", 1024**3), ("m", 1024**2), ("k", 1024)):
        if n and n % factor == 0:
            return f"{n // factor}{unit}"
    return str(n)


class SpecError(Exception):
    """The host cannot run the container as the recipe says (e.g. a missing NPU device).

    Attributes:
        problems: one plain sentence per problem.
    """

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def host_arch(host: Host) -> str | None:
    """The host's machine name from `uname -m` ("aarch64", "x86_64"), or None when it cannot tell.

    Run through the Host, so a simulated host (`--root DIR`) answers with its own `uname`.
    """
    result = host.run(["uname", "-m"], timeout=10)
    text = result.stdout.strip() if result.ok else ""
    return text.splitlines()[0].strip() if text else None


def npu_devices(host: Host, npu_count: int | None = None,
                extra_devices: Sequence[str] = MANAGER_DEVICES) -> tuple[list[str], list[str]]:
    """Find the NPU device nodes: every `/dev/davinciN` that is a character device, plus the managers.

    Args:
        host: where to look.
        npu_count: how many chips must be present (None: any count >= 1).
        extra_devices: other devices that must be character devices (the manager devices).

    Returns:
        (devices, problems): host paths in order (`davinci0..N` numerically, then the managers),
        and one sentence per missing or wrong node (an empty list when all is well).
    """
    problems: list[str] = []
    numbers: list[int] = []
    for name in host.listdir("/dev"):
        match = _DAVINCI.match(name)
        if not match:
            continue
        info = host.stat(f"/dev/{name}")
        if info is None or info.kind != "char":
            problems.append(f"/dev/{name} is not a character device ({info.kind if info else 'missing'})")
            continue
        numbers.append(int(match.group(1)))
    numbers.sort()
    if not numbers:
        problems.append("no NPU device /dev/davinciN found: is the Ascend driver installed and loaded?")
    else:
        expected = range(npu_count) if npu_count else range(numbers[-1] + 1)
        missing = [n for n in expected if n not in numbers]
        if missing:
            problems.append("missing NPU device(s): " + ", ".join(f"/dev/davinci{n}" for n in missing))
    devices = [f"/dev/davinci{n}" for n in numbers]
    for path in extra_devices:
        info = host.stat(path)
        if info is None:
            problems.append(f"missing NPU device {path}")
        elif info.kind != "char":
            problems.append(f"{path} is not a character device ({info.kind})")
        else:
            devices.append(path)
    return devices, problems


def build_spec(settings: ContainerSettings, host: Host, arch: str | None = None) -> ContainerSpec:
    """Build the desired container for this host.

    Args:
        settings: the recipe's container settings.
        host: the host the container will run on (LocalHost, maybe rooted at a simulated host).
        arch: the host's machine name; None asks the host (`uname -m`). "x86_64" selects the
            QEMU variant, anything else the native one.

    Returns:
        The spec; `warnings` names every mount left out because its source does not exist.

    Raises:
        SpecError: a missing or wrong NPU device on a native host, or an unknown architecture.
    """
    arch = arch or host_arch(host)
    if arch is None:
        raise SpecError(["cannot tell the host's architecture (`uname -m` gave nothing)"])
    variant = "qemu" if arch in ("x86_64", "amd64") else "native"
    if variant == "native":
        devices, problems = npu_devices(host, settings.npu_count, settings.extra_devices)
        if problems:
            raise SpecError(problems)
        wanted = list(settings.mounts)
    else:
        devices = []
        wanted = list(settings.qemu_mounts)
    if settings.data_dir:
        wanted.append(MountSetting(source=settings.data_dir, target=settings.data_target))
    mounts: list[MountSetting] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for m in wanted:
        if m.target in seen:
            continue
        if host.stat(m.source) is None:
            warnings.append(f"left out mount {m.source} -> {m.target}: {m.source} does not exist on the host")
            continue
        seen.add(m.target)
        mounts.append(m)
    return ContainerSpec(
        name=settings.name, image=settings.image, platform=settings.platform,
        privileged=settings.privileged, network_mode=settings.network_mode,
        shm_size=settings.shm_size, user=settings.user, command=settings.command,
        variant=variant, devices=tuple(devices), mounts=tuple(mounts), warnings=tuple(warnings),
    )


def settings_from_recipe(recipe) -> ContainerSettings:
    """The container settings of a `wizard.recipe.Recipe` (`[image]`, `[container]`, `[target]`).

    The recipe's device list names the chips it expects (`/dev/davinci0..7`) and the manager
    devices; the chips required are davinci0..max(listed, `target.npu_count`)-1, and any further
    `/dev/davinciN` the host has is passed through as well.
    """
    c = recipe.container
    listed = [int(m.group(1)) for d in c.devices if (m := _DAVINCI.match(d.rsplit("/", 1)[-1]))]
    npu_count = max([recipe.target.npu_count or 0] + [n + 1 for n in listed]) or None
    extra = tuple(d for d in c.devices if not _DAVINCI.match(d.rsplit("/", 1)[-1]))

    def mounts(items) -> tuple[MountSetting, ...]:
        return tuple(MountSetting(source=m.source, target=m.target, read_only=m.read_only) for m in items)

    return ContainerSettings(
        name=c.name, image=recipe.image.base, platform=recipe.image.platform,
        privileged=c.privileged, network_mode=c.network_mode, shm_size=c.shm_size_bytes(),
        user=c.user, command=tuple(c.command) or None, npu_count=npu_count, extra_devices=extra,
        mounts=mounts(c.mounts), qemu_mounts=mounts(c.qemu_mounts),
        data_dir=c.data.host_path, data_target=c.data.container_path,
    )


def real_path_of(host: Host) -> Callable[[str], str]:
    """How to turn a host path into the path Docker must use: `LocalHost.real_path` under a root."""
    real = getattr(host, "real_path", None)
    return real if callable(real) else (lambda p: p)


def docker_create_kwargs(spec: ContainerSpec, real_path: Callable[[str], str] = lambda p: p) -> dict:
    """Keyword arguments for `client.containers.create(**kwargs)` that realise `spec`.

    Devices map the real node (under `--root`) to the host path inside the container
    (`/tmp/sim/dev/davinci0` -> `/dev/davinci0`), so a simulated host looks real from inside.
    Mounts are `docker.types.Mount` binds (no `:` parsing, so paths may hold colons and spaces).
    """
    from docker.types import Mount

    kwargs: dict = dict(
        image=spec.image, name=spec.name, user=spec.user, privileged=spec.privileged,
        network_mode=spec.network_mode, shm_size=spec.shm_size, tty=True, stdin_open=True,
        devices=[{"PathOnHost": real_path(d), "PathInContainer": d, "CgroupPermissions": "rwm"}
                 for d in spec.devices],
        mounts=[Mount(target=m.target, source=real_path(m.source), type="bind", read_only=m.read_only)
                for m in spec.mounts],
    )
    if spec.command:
        kwargs["command"] = list(spec.command)
    return kwargs
