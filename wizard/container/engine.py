"""Provides how stages reach the Docker engine and ask the operator: `docker_client`, `confirmer`.

Both read `StageContext.options`, so tests and the TUI inject their own: `options["docker_client"]`
(a `docker.DockerClient`), `options["confirm"]` (a callable taking the list of differences and
returning True to recreate) or `options["yes"]` (the CLI's `--yes`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import docker

from wizard.stages.base import StageContext


def docker_client(ctx: StageContext) -> docker.DockerClient:
    """The Docker client for this run: `ctx.options["docker_client"]`, else `docker.from_env()`.

    The client is kept in the options so every step of a run shares one connection.

    Raises:
        docker.errors.DockerException: no engine reachable (the message says where it looked).
    """
    client = ctx.options.get("docker_client")
    if client is None:
        client = docker.from_env(timeout=120)
        ctx.options["docker_client"] = client
    return client  # type: ignore[return-value]


def confirmer(ctx: StageContext) -> Callable[[Sequence[object]], bool]:
    """How to ask before removing a container: `options["confirm"]`, else yes only with `options["yes"]`."""
    confirm = ctx.options.get("confirm")
    if callable(confirm):
        return confirm  # type: ignore[return-value]
    yes = bool(ctx.options.get("yes"))
    return lambda differences: yes
