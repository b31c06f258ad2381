"""Provides the `docker` check: the daemon answers through the Docker SDK, and its version."""

from __future__ import annotations

from checks.common import error, info, result
from checks.context import CheckContext
from checks.result import CheckResult, Status

#: Seconds the Docker SDK waits for the daemon.
DOCKER_TIMEOUT_S = 3


def _client(ctx: CheckContext):
    if ctx.docker_client is not None:
        return ctx.docker_client()
    import docker  # lazy: the SDK import costs ~0.1 s and is only needed here

    return docker.from_env(timeout=DOCKER_TIMEOUT_S)


def check_docker(ctx: CheckContext) -> CheckResult:
    """The Docker daemon is reachable (SDK `version()`); skipped inside the container, which Docker runs.

    With a simulated root (`--root`), this still asks this machine's Docker engine: a daemon cannot be simulated by files.
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
        text = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        return result("docker", Status.FAIL, "daemon not reachable", [error(
            f"The Docker daemon does not answer ({text}); start it (`systemctl start docker`) and make sure this user "
            "may use /var/run/docker.sock.")])
    version = ver.get("Version", "?") if isinstance(ver, dict) else "?"
    api = ver.get("ApiVersion", "?") if isinstance(ver, dict) else "?"
    arch = ver.get("Arch") if isinstance(ver, dict) else None
    return result("docker", Status.OK, f"Docker {version} (API {api}{', ' + arch if arch else ''})",
                  version=version, api_version=api, arch=arch)
