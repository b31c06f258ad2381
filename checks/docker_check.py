"""Provides the `docker` check: the daemon answers through the Docker SDK, its version, and whether
its architecture is the host's.

On a simulated host (`--root`) the check still asks this machine's engine (that is the engine the
stages will use; a daemon cannot be simulated by files) and says so in its summary. An engine whose
architecture differs from the host's `uname -m` (this machine's amd64 engine beside a simulated
aarch64 host, i.e. an x86_64 development box) is a warning: the arm64 image runs only under qemu.
"""

from __future__ import annotations

import re

from checks.common import error, info, one_line, result, verdict, warn
from checks.context import CheckContext
from checks.result import CheckResult, Status

#: Seconds the Docker SDK waits for the daemon.
DOCKER_TIMEOUT_S = 3

#: `uname -m` names -> Docker's `version()["Arch"]` names (GOARCH).
ENGINE_ARCH = {"aarch64": "arm64", "arm64": "arm64", "x86_64": "amd64", "amd64": "amd64"}


def _client(ctx: CheckContext):
    if ctx.docker_client is not None:
        return ctx.docker_client()
    import docker  # lazy: the SDK import costs ~0.1 s and is only needed here

    return docker.from_env(timeout=DOCKER_TIMEOUT_S)


def docker_failure(exc: BaseException) -> str:
    """Why the Docker SDK could not reach the daemon, in plain words (no Python reprs).

    The SDK wraps urllib3/requests errors whose text holds tuples of reprs, e.g.
    "Error while fetching server API version: ('Connection aborted.', FileNotFoundError(2, 'No such file
    or directory'))"; the known causes are named, anything else keeps the text before the first repr.
    """
    text = " ".join(str(e) for e in (exc, exc.__cause__, exc.__context__) if e is not None)
    known = (("FileNotFoundError", "no Docker socket (is the daemon installed and running?)"),
             ("No such file or directory", "no Docker socket (is the daemon installed and running?)"),
             ("PermissionError", "permission denied on the Docker socket"),
             ("Permission denied", "permission denied on the Docker socket"),
             ("Connection refused", "connection refused"),
             ("timed out", f"no answer within {DOCKER_TIMEOUT_S} s"))
    for needle, why in known:
        if needle in text:
            return why
    head = re.split(r"[:,]?\s*[(\[{<]|\w+Error\(", str(exc), maxsplit=1)[0]
    return one_line(head, 120) or type(exc).__name__


def check_docker(ctx: CheckContext) -> CheckResult:
    """The Docker daemon is reachable (SDK `version()`) and runs the host's architecture; skipped inside
    the container, which Docker runs.

    With a simulated root (`--root`, a host with a `root`), this still asks this machine's Docker engine
    and says "(this machine's engine, not simulated)".
    """
    if ctx.inside_container:
        return result("docker", Status.SKIP, "inside the container", [info("Docker is driven from the host.")])
    try:
        client = _client(ctx)
        try:
            ver = client.version()
        finally:
            close = getattr(client, "close", None)
            if callable(close):
                close()
    except Exception as exc:  # noqa: BLE001 - any SDK/connection failure is the finding
        return result("docker", Status.FAIL, "daemon not reachable", [error(
            f"The Docker daemon does not answer ({docker_failure(exc)}); start it (`systemctl start docker`) and make "
            "sure this user may use /var/run/docker.sock.")])
    ver = ver if isinstance(ver, dict) else {}
    version, api = one_line(str(ver.get("Version") or "?"), 40), one_line(str(ver.get("ApiVersion") or "?"), 20)
    arch = one_line(str(ver["Arch"]), 20) if ver.get("Arch") else None
    simulated = bool(getattr(ctx.host, "root", None))
    msgs = []
    run = ctx.host.run(["uname", "-m"], timeout=ctx.requirements.command_timeout_s)
    machine = run.stdout.strip() if run.ok else ""
    host_arch = ENGINE_ARCH.get(machine)
    if arch and host_arch and ENGINE_ARCH.get(arch, arch) != host_arch:
        whose = "this machine's Docker engine" if simulated else "the Docker engine"
        msgs.append(warn(f"{whose} runs {arch} but the host is {machine} ({host_arch}): images for the host run "
                         "only under qemu, slowly, or fail with 'exec format error'.", remedy="exec-format-error"))
    summary = f"Docker {version} (API {api}{', ' + arch if arch else ''})"
    if simulated:
        summary += " (this machine's engine, not simulated)"
    return result("docker", verdict(msgs), summary, msgs, version=version, api_version=api, arch=arch,
                  host_arch=machine or None, simulated_host=simulated)
