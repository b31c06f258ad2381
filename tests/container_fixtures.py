"""Fixtures for the container tests: a Docker client, a busybox test image, a simulated 910B host.

The image comes from `docker_fixtures.busybox_image` (a static busybox, a few MB, fast on the vfs
storage driver) with an Ubuntu PATH, so a mounted `/usr/local/sbin/npu-smi` is found as in the CANN
base image. Its architecture is the engine's own (amd64 here), which is what the container stage
accepts on a native (simulated aarch64) host. The host is `wizard.simhost.build_sim_host`.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from docker_fixtures import UBUNTU_PATH, docker_client, remove_image, labels_for_test  # noqa: F401 - fixture re-exported
from docker_fixtures import busybox_image as make_busybox_image
from wizard.simhost import build_sim_host

TEST_REPO = "pi05-test-busybox"
#: The data folder the container tests mount (`recipe_for_test`'s default), made on every sim host.
SIM_DATA = "/data/pi05"


def import_busybox(client, repository: str = TEST_REPO, tag: str | None = None) -> str:
    """Import the busybox test image as `repository:tag` (a fresh tag when None). Returns the reference."""
    return make_busybox_image(client, f"{repository}:{tag or uuid.uuid4().hex[:10]}", env_path=UBUNTU_PATH)


@pytest.fixture(scope="session")
def busybox_image(docker_client):
    """The busybox test image reference, imported once per session and removed at the end."""
    ref = import_busybox(docker_client)
    yield ref
    remove_image(docker_client, ref)


@pytest.fixture
def container_name(docker_client):
    """A unique container name (never the real `pi`); the container is removed after the test."""
    name = f"pi05-test-{uuid.uuid4().hex[:10]}"
    yield name
    try:
        docker_client.containers.get(name).remove(force=True)
    except Exception:
        pass


def sim_host(root: Path, **kwargs) -> Path:
    """`build_sim_host(root, **kwargs)` plus the tests' data folder `SIM_DATA`; skips without mknod rights."""
    from wizard.simhost import SimHostError

    try:
        built = build_sim_host(root, **kwargs)
    except SimHostError as exc:
        pytest.skip(str(exc))
    (built / SIM_DATA.lstrip("/")).mkdir(parents=True, exist_ok=True)
    return built


def privileged_containers_start(client, image: str) -> tuple[bool, str]:
    """Whether this engine can start a privileged container, and the engine's reason when not.

    An engine that itself runs in a container without every capability in its bounding set
    (this project's sandbox: no CAP_SYS_RESOURCE) creates privileged containers but cannot start
    them ("unable to apply caps: operation not permitted").
    """
    container = None
    try:
        container = client.containers.create(image, ["true"], privileged=True, network_mode="none",
                                              labels=labels_for_test())
        container.start()
        return True, ""
    except Exception as exc:  # APIError: keep the engine's words
        return False, str(exc)
    finally:
        if container is not None:  # created even when it cannot start: never leave it behind
            container.remove(force=True)


@pytest.fixture(scope="session")
def can_privileged(docker_client, busybox_image):
    """True when this engine can start privileged containers (probed once per session)."""
    return privileged_containers_start(docker_client, busybox_image)[0]


def recipe_for_test(image: str, name: str, privileged: bool = True, data_dir: str = SIM_DATA,
                    archive_repository: str | None = None):
    """The default recipe pointed at the busybox test image and a unique container name."""
    import tempfile

    from wizard.locations import Locations
    from wizard.recipe import load_recipe

    with tempfile.TemporaryDirectory() as d:
        recipe = load_recipe(Locations.under(d))
    container = recipe.container.model_copy(update={
        "name": name, "command": ["/bin/sh"], "privileged": privileged,
        "data": recipe.container.data.model_copy(update={"host_path": data_dir}),
    })
    update = {"container": container, "image": recipe.image.model_copy(update={"base": image})}
    if archive_repository:
        update["archive"] = recipe.archive.model_copy(update={"repository": archive_repository})
    return recipe.model_copy(update=update)
