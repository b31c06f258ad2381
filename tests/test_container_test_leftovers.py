"""The docker test helpers label what they create and the session sweep removes it (images by id, no `<none>` left)."""

from __future__ import annotations

import uuid

import pytest

from docker_fixtures import TEST_LABEL, busybox_image, docker_client, remove_test_objects  # noqa: F401

pytestmark = pytest.mark.docker


def test_sweep_removes_labelled_images_containers_and_commits(docker_client):  # noqa: F811
    import docker_fixtures

    session = f"sweep-{uuid.uuid4().hex[:8]}"  # its own id: never touches this session's other objects
    old = docker_fixtures.SESSION_ID
    docker_fixtures.SESSION_ID = session
    try:
        tag = busybox_image(docker_client, f"pi05-test-sweep:{session}")
    finally:
        docker_fixtures.SESSION_ID = old
    image = docker_client.images.get(tag)
    assert image.labels.get(TEST_LABEL) == session
    c = docker_client.containers.create(tag, ["true"], name=f"pi05-test-{session}")  # inherits the label
    assert c.labels.get(TEST_LABEL) == session
    committed = c.commit(repository="pi05-test-sweep", tag=f"{session}-c")  # a commit inherits it too
    c2 = docker_client.containers.create(committed.id, ["true"])  # created, never started
    assert remove_test_objects(docker_client, session) == (2, 2)
    selector = {"label": f"{TEST_LABEL}={session}"}
    assert docker_client.containers.list(all=True, filters=selector) == []
    assert docker_client.images.list(all=True, filters=selector) == []
    for obj in (image.id, committed.id):
        with pytest.raises(Exception):
            docker_client.images.get(obj)
    with pytest.raises(Exception):
        docker_client.containers.get(c2.id)
