"""Provides create / reuse / start / recreate of the container, and the comparison behind them.

The rule (issue 5): an existing container is reused when it matches in what matters, started when
stopped, and, when it differs (shm too small, a device or mount missing, not privileged, not on the
host network), the differences are shown and it is recreated only when the operator confirmed.
A container is never removed silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable, Sequence

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound

from wizard.container.spec import ContainerSpec, docker_create_kwargs

Emit = Callable[..., None]


@dataclass(frozen=True)
class Difference:
    """One way an existing container differs from the spec.

    Attributes:
        field: what differs ("shm_size", "device", "mount", "privileged", "network_mode", "image").
        wanted: the spec's value, readable.
        actual: the container's value, readable.
    """

    field: str
    wanted: str
    actual: str

    def text(self) -> str:
        """One line for the operator: `shm_size: wanted 500.0 GiB, container has 64.0 MiB`."""
        return f"{self.field}: wanted {self.wanted}, container has {self.actual}"


def human_bytes(n: int) -> str:
    """Bytes as binary units, e.g. 536870912000 -> "500.0 GiB"."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def compare(spec: ContainerSpec, attrs: dict, real_path: Callable[[str], str] = lambda p: p,
            check_image: bool = False) -> list[Difference]:
    """Differences that matter between `spec` and a container's inspect data (`container.attrs`).

    More than the spec asks for (a larger shm, extra devices or mounts) is not a difference.
    The image only counts with `check_image` (a container started from a reused `pi:...` image
    is still the right container for the `container` stage).

    Args:
        spec: the desired container.
        attrs: `docker inspect` output of the existing container (HostConfig.ShmSize in bytes,
            HostConfig.Devices, top-level Mounts with Source/Destination/RW).
        real_path: host path -> the path Docker sees (under `--root`).
        check_image: also compare the image reference (Config.Image).
    """
    hc = attrs.get("HostConfig") or {}
    diffs: list[Difference] = []
    shm = int(hc.get("ShmSize") or 0)
    if shm < spec.shm_size:
        diffs.append(Difference("shm_size", human_bytes(spec.shm_size), human_bytes(shm)))
    if spec.privileged and not hc.get("Privileged"):
        diffs.append(Difference("privileged", "yes", "no"))
    if (hc.get("NetworkMode") or "") != spec.network_mode:
        diffs.append(Difference("network_mode", spec.network_mode, str(hc.get("NetworkMode"))))
    have_devices = {(d.get("PathOnHost"), d.get("PathInContainer")) for d in (hc.get("Devices") or [])}
    for dev in spec.devices:
        if (real_path(dev), dev) not in have_devices:
            diffs.append(Difference("device", f"{dev} mapped", "none"))
    have_mounts = {m.get("Destination"): m for m in (attrs.get("Mounts") or [])}
    for m in spec.mounts:
        got = have_mounts.get(m.target)
        want = f"{m.source} -> {m.target}" + (" (ro)" if m.read_only else "")
        if got is None:
            diffs.append(Difference("mount", want, "none"))
        elif got.get("Source") != real_path(m.source):
            diffs.append(Difference("mount", want, f"{got.get('Source')} -> {m.target}"))
        elif m.read_only and got.get("RW"):
            diffs.append(Difference("mount", want, f"{got.get('Source')} -> {m.target} (rw)"))
    if check_image:
        have_image = (attrs.get("Config") or {}).get("Image", "")
        if have_image != spec.image:
            diffs.append(Difference("image", spec.image, have_image))
    return diffs


class Outcome(str, Enum):
    """What `ensure_container` did."""

    CREATED = "created"
    REUSED = "reused"
    STARTED = "started"
    RECREATED = "recreated"
    DRIFT_DECLINED = "drift-declined"
    """The container differs and the operator did not confirm recreating it: nothing was changed."""


@dataclass
class EnsureResult:
    """The result of `ensure_container`.

    Attributes:
        outcome: what was done.
        differences: the differences found in an existing container (empty when none).
        container_id: the id of the container now running (None when drift was declined).
    """

    outcome: Outcome
    differences: list[Difference]
    container_id: str | None = None

    @property
    def ok(self) -> bool:
        """True when a matching container is running."""
        return self.outcome is not Outcome.DRIFT_DECLINED


def create_and_start(client: docker.DockerClient, spec: ContainerSpec,
                     real_path: Callable[[str], str] = lambda p: p):
    """Create the container from `spec` and start it (`docker run -itd ...`). Returns the Container.

    Raises:
        docker.errors.ImageNotFound: the image is not present (pull first).
        docker.errors.APIError: the engine refused (e.g. a device path that does not exist).
    """
    container = client.containers.create(**docker_create_kwargs(spec, real_path))
    try:
        container.start()
    except APIError:
        # A container that was created but cannot start is of no use and would block a retry.
        container.remove(force=True)
        raise
    return container


def ensure_container(
    client: docker.DockerClient,
    spec: ContainerSpec,
    emit: Emit,
    confirm: Callable[[Sequence[Difference]], bool],
    real_path: Callable[[str], str] = lambda p: p,
    check_image: bool = False,
) -> EnsureResult:
    """Make a container matching `spec` run: create, reuse, start, or (confirmed) recreate it.

    Args:
        client: Docker SDK client.
        spec: the desired container.
        emit: line sink, `emit(text, stream="stdout")`.
        confirm: asked with the differences before an existing container is removed; returns
            True only when the operator agreed (`--yes` or a dialog).
        real_path: host path -> path Docker sees.
        check_image: treat a different image as a difference (image load).

    Raises:
        docker.errors.DockerException: engine errors while creating or starting.
    """
    try:
        existing = client.containers.get(spec.name)
    except NotFound:
        container = create_and_start(client, spec, real_path)
        emit(f"created and started container {spec.name} ({container.short_id}) from {spec.image}")
        return EnsureResult(Outcome.CREATED, [], container.id)
    diffs = compare(spec, existing.attrs, real_path, check_image=check_image)
    if not diffs:
        if existing.status != "running":
            existing.start()
            emit(f"started the existing container {spec.name} (it was {existing.status}); its configuration matches")
            return EnsureResult(Outcome.STARTED, [], existing.id)
        emit(f"reusing the running container {spec.name}: its configuration matches the recipe")
        return EnsureResult(Outcome.REUSED, [], existing.id)
    emit(f"the existing container {spec.name} differs from the recipe in what matters:", stream="stderr")
    for d in diffs:
        emit(f"  {d.text()}", stream="stderr")
    if not confirm(diffs):
        emit(f"not recreating {spec.name} without your confirmation; re-run with --yes to remove and "
             f"recreate it (anything inside it that is not in a mounted folder is lost)", stream="stderr")
        return EnsureResult(Outcome.DRIFT_DECLINED, diffs, None)
    emit(f"removing container {spec.name} ({existing.short_id}) as confirmed")
    existing.remove(force=True)
    container = create_and_start(client, spec, real_path)
    emit(f"recreated container {spec.name} ({container.short_id}) from {spec.image}")
    return EnsureResult(Outcome.RECREATED, diffs, container.id)


def describe_engine_error(exc: DockerException) -> str:
    """One plain sentence for an engine error while creating or starting the container."""
    if isinstance(exc, ImageNotFound):
        return f"image not present: {exc.explanation or exc}"
    if isinstance(exc, APIError):
        return f"the Docker engine refused: {exc.explanation or exc}"
    return f"Docker error: {exc}"
