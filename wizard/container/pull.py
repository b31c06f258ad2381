"""Provides the image pull: per-layer byte progress, skip when present, and plain failure results.

`docker pull --platform=arm64 IMAGE` (report, "Docker 部署") through the Docker SDK's streaming
pull API. The engine streams JSON objects like
`{"status": "Downloading", "id": "a1b2c3", "progressDetail": {"current": 1024, "total": 4096}}`
(Docker Engine API, `POST /images/create`); each becomes one progress line naming the layer and
its bytes. Failures (image missing, registry unreachable, wrong architecture) become a
`CheckResult` with a remedy id, never a traceback.
"""

from __future__ import annotations

import time
from typing import Callable

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound

from checks.result import CheckResult, Level, Message, Status
from wizard.container.lifecycle import human_bytes

Emit = Callable[..., None]

#: Remedy ids (the remedy catalogue's keys) for pull and architecture problems.
REMEDY_IMAGE_MISSING = "image-not-found"
REMEDY_REGISTRY_UNREACHABLE = "registry-unreachable"
REMEDY_EXEC_FORMAT = "exec-format-error"

_ARCH_ALIASES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
                 "arm64/v8": "arm64"}

#: Engine error texts, lower-cased, and what they mean (from `docker pull` failures as the engine
#: reports them, Docker Engine 20.10-27).
_UNREACHABLE = ("dial tcp", "no such host", "connection refused", "i/o timeout", "tls handshake",
                "network is unreachable", "context deadline exceeded", "timeout exceeded",
                "server misbehaving", "temporary failure in name resolution")
_MISSING = ("manifest unknown", "not found", "repository does not exist", "pull access denied",
            "does not exist")
_ARCH = ("no matching manifest", "does not match the specified platform", "exec format error")


def normalize_arch(name: str | None) -> str:
    """Docker's architecture name for a machine name: x86_64 -> amd64, aarch64 -> arm64."""
    if not name:
        return ""
    name = name.lower().removeprefix("linux/")
    return _ARCH_ALIASES.get(name, name)


def classify_pull_error(text: str) -> str:
    """The remedy id for an engine error text: exec-format-error, registry-unreachable or image-not-found.

    Architecture is checked first (its message also says "not found" on some engines), then
    reachability, and anything else counts as a missing image.
    """
    low = text.lower()
    if any(k in low for k in _ARCH):
        return REMEDY_EXEC_FORMAT
    if any(k in low for k in _UNREACHABLE):
        return REMEDY_REGISTRY_UNREACHABLE
    return REMEDY_IMAGE_MISSING


_PLAIN = {
    REMEDY_EXEC_FORMAT: "the registry has no {platform} build of {image}: an image for another "
                        "architecture fails later with 'exec format error'",
    REMEDY_REGISTRY_UNREACHABLE: "cannot reach the registry for {image}: check the network, proxy "
                                 "or a registry mirror",
    REMEDY_IMAGE_MISSING: "the image {image} does not exist in its registry, or needs a login: "
                          "check the name and tag in the recipe",
}


def _fail(image: str, platform: str, text: str, start: float) -> CheckResult:
    remedy = classify_pull_error(text)
    return CheckResult(
        id="image-pull", title="Pull the container image", status=Status.FAIL,
        summary=_PLAIN[remedy].format(image=image, platform=platform),
        messages=[Message(level=Level.ERROR, text=f"engine said: {text.strip()[:500]}", remedy=remedy)],
        duration_s=time.monotonic() - start,
    )


def split_reference(image: str) -> tuple[str, str]:
    """`registry:5000/repo/name:tag` -> ("registry:5000/repo/name", "tag"); no tag gives "latest".

    A digest reference (`name@sha256:...`) is returned whole with an empty tag.
    """
    if "@" in image:
        return image, ""
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon + 1:]
    return image, "latest"


def image_arch_problem(image_attrs: dict, engine_arch: str, variant: str) -> str | None:
    """Why the engine cannot run an image natively, or None when it can.

    Args:
        image_attrs: `docker image inspect` output (its "Architecture").
        engine_arch: the engine's `info()["Architecture"]` ("x86_64", "aarch64").
        variant: "native" or "qemu"; the QEMU variant runs arm64 images on an amd64 engine.
    """
    have = normalize_arch(image_attrs.get("Architecture"))
    engine = normalize_arch(engine_arch)
    if not have or have == engine:
        return None
    if variant == "qemu" and have == "arm64":
        return None
    return (f"the image is built for {have} but the Docker engine runs on {engine}: its programs would "
            f"fail with 'exec format error'")


def ensure_image(
    client: docker.DockerClient,
    image: str,
    platform: str,
    emit: Emit,
    cancelled: Callable[[], bool] = lambda: False,
    variant: str = "native",
    min_interval_s: float = 0.2,
) -> CheckResult:
    """Pull `image` for `platform` unless present, streaming per-layer progress; check its architecture.

    Args:
        client: Docker SDK client.
        image: reference, e.g. `swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:8.1.rc1-910b-ubuntu22.04-py3.10`.
        platform: e.g. "linux/arm64".
        emit: line sink; progress lines are emitted with `progress=True`, at most one per layer
            every `min_interval_s` seconds (plus each layer's final state).
        cancelled: polled between stream events; True stops reading (the engine finishes the pull).
        variant: "native" or "qemu" (see `image_arch_problem`).

    Returns:
        `CheckResult` id "image-pull": ok (present or pulled), fail with remedy
        image-not-found / registry-unreachable / exec-format-error, or skip when cancelled.
    """
    start = time.monotonic()
    try:
        present = client.images.get(image)
        emit(f"image {image} is present ({present.short_id}); skipping the pull")
        pulled = False
    except ImageNotFound:
        present = None
    except DockerException as exc:
        return _fail(image, platform, str(exc), start)
    if present is None:
        repo, tag = split_reference(image)
        emit(f"pulling {image} for {platform}")
        last: dict[str, float] = {}
        try:
            for event in client.api.pull(repo, tag=tag or None, platform=platform, stream=True, decode=True):
                if cancelled():
                    return CheckResult(id="image-pull", title="Pull the container image", status=Status.SKIP,
                                       summary="pull cancelled", duration_s=time.monotonic() - start)
                if "error" in event:
                    return _fail(image, platform, str(event.get("error")), start)
                line = progress_line(event)
                if line is None:
                    continue
                layer = event.get("id", "")
                now = time.monotonic()
                final = not (event.get("progressDetail") or {}).get("total")
                if final:
                    emit(line)
                elif layer not in last or now - last[layer] >= min_interval_s:
                    last[layer] = now
                    emit(line, progress=True)
        except (APIError, NotFound) as exc:
            return _fail(image, platform, exc.explanation or str(exc), start)
        except DockerException as exc:
            return _fail(image, platform, str(exc), start)
        try:
            present = client.images.get(image)
        except DockerException as exc:
            return _fail(image, platform, f"pull ended but the image is not there: {exc}", start)
        pulled = True
    try:
        engine_arch = client.info().get("Architecture", "")
    except DockerException:
        engine_arch = ""
    problem = image_arch_problem(present.attrs, engine_arch, variant)
    if problem:
        return CheckResult(
            id="image-pull", title="Pull the container image", status=Status.FAIL, summary=problem,
            messages=[Message(level=Level.ERROR, text=f"{image}: {problem}", remedy=REMEDY_EXEC_FORMAT)],
            duration_s=time.monotonic() - start,
        )
    arch = normalize_arch(present.attrs.get("Architecture"))
    return CheckResult(
        id="image-pull", title="Pull the container image", status=Status.OK,
        summary=f"{image} {'pulled' if pulled else 'present'} ({arch or 'unknown arch'}, "
                f"{human_bytes(int(present.attrs.get('Size') or 0))})",
        duration_s=time.monotonic() - start,
    )


def progress_line(event: dict) -> str | None:
    """One readable line for a pull stream event, or None for events without news.

    `{"status": "Downloading", "id": "a1b2", "progressDetail": {"current": 1048576, "total": 4194304}}`
    -> `a1b2: Downloading 1.0 MiB / 4.0 MiB (25%)`.
    """
    status = str(event.get("status") or "").strip()
    if not status:
        return None
    layer = event.get("id")
    detail = event.get("progressDetail") or {}
    current, total = detail.get("current"), detail.get("total")
    prefix = f"{layer}: " if layer else ""
    if isinstance(current, int) and isinstance(total, int) and total > 0:
        pct = min(100, current * 100 // total)
        return f"{prefix}{status} {human_bytes(current)} / {human_bytes(total)} ({pct}%)"
    return f"{prefix}{status}"
