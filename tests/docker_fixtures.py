"""Docker test helpers: a reachable client (or a clear skip) and a tiny busybox image built with `docker import`.

`busybox_image(client, tag, extra_files)` makes an image from a folder-like tar holding the static
`/usr/bin/busybox` of this machine (Debian's busybox-static) and a symlink for every applet it
lists (`busybox --list`), as `busybox --install -s` would. Generic on purpose: any test needing a
small real container (the container host, the container stage) can add its own files.

Leftovers: every image made here carries the label `pi05-wizard-test=<this session's id>`, and
Docker copies an image's labels into the containers created from it and the images committed from
those, so `remove_test_objects` finds everything one test session made (and nothing another
session, running at the same time on the same engine, still uses). The session-scoped
`docker_client` fixture calls it at session end; `docker_client_or_skip` also registers it at
process exit, for module fixtures that do not use the fixture.
"""

from __future__ import annotations

import atexit
import io
import os
import shutil
import subprocess
import tarfile
import uuid
from typing import Mapping

import pytest

#: An Ubuntu image's default PATH (the CANN base image keeps it).
UBUNTU_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BUSYBOX = "/usr/bin/busybox" if os.path.isfile("/usr/bin/busybox") else (shutil.which("busybox") or "/bin/busybox")

#: The label on every image (and so every container) the tests create; its value is this session's id.
TEST_LABEL = "pi05-wizard-test"
SESSION_ID = uuid.uuid4().hex[:12]
_cleanup_registered: list[bool] = []


def labels_for_test() -> dict[str, str]:
    """`{"pi05-wizard-test": SESSION_ID}`: pass as `labels=` to containers a test creates itself."""
    return {TEST_LABEL: SESSION_ID}


def remove_image(client, ref: str) -> None:
    """Remove an image by id (all its tags at once, so no untagged `<none>` is left); missing is fine."""
    try:
        image = client.images.get(ref)
    except Exception:  # noqa: BLE001 - already gone
        return
    try:
        client.images.remove(image.id, force=True)
    except Exception:  # noqa: BLE001 - in use by another session's container: the label sweep retries
        pass


def remove_test_objects(client, session: str = SESSION_ID) -> tuple[int, int]:
    """Remove this session's containers (by label, forced) then its images (by id, newest first).

    Returns:
        (containers removed, images removed).
    """
    selector = {"label": f"{TEST_LABEL}={session}"}
    containers = images = 0
    try:
        for c in client.containers.list(all=True, filters=selector):
            try:
                c.remove(force=True)
                containers += 1
            except Exception:  # noqa: BLE001 - already being removed
                pass
        found = client.images.list(all=True, filters=selector)
        for image in sorted(found, key=lambda i: i.attrs.get("Created", ""), reverse=True):  # children first
            try:
                client.images.remove(image.id, force=True)
                images += 1
            except Exception:  # noqa: BLE001 - removed with its child already
                pass
    except Exception:  # noqa: BLE001 - the engine went away: nothing left to clean
        pass
    return containers, images


@pytest.fixture(scope="session")
def docker_client():
    """A reachable Docker engine (skips the test with the reason when there is none); at session end,
    removes every container and image this session labelled."""
    client = docker_client_or_skip()
    yield client
    remove_test_objects(client)


def docker_client_or_skip():
    """A Docker SDK client that answered a ping, or `pytest.skip` naming why not."""
    try:
        import docker

        client = docker.from_env(timeout=60)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the engine: skip with its words
        pytest.skip(f"no reachable Docker engine (docker.from_env().ping() failed: {exc})")
    if not _cleanup_registered:
        _cleanup_registered.append(True)
        atexit.register(remove_test_objects, client)
    return client


def _applets() -> list[str]:
    out = subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True, check=True).stdout
    return [a for a in out.split() if a and "/" not in a and a != "busybox"]


def busybox_image(client, tag: str, extra_files: Mapping[str, bytes | str] | None = None,
                  env_path: str = "/bin") -> str:
    """Import a busybox root filesystem as image `tag` (CMD /bin/sh, PATH=`env_path`) and return `tag`.

    Args:
        client: a docker.DockerClient.
        tag: the image reference to create, e.g. `pi05-test-bb:abc123` (replaced if it exists).
        extra_files: absolute path in the image -> content (str is UTF-8 encoded); mode 0644,
            or 0755 when the content starts with `#!`.
        env_path: the image's PATH (`UBUNTU_PATH` for one that finds a mounted /usr/local/sbin/npu-smi,
            as the CANN base image does).

    Skips the test when this machine has no static busybox.
    """
    if not os.path.isfile(BUSYBOX):
        pytest.skip(f"{BUSYBOX} (a static busybox) is missing: apt-get install busybox-static")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        def add_dir(name: str, mode: int = 0o755) -> None:
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            info.mode = mode
            tar.addfile(info)

        for d in ("bin", "dev", "proc", "sys", "etc", "root", "data"):
            add_dir(d)
        add_dir("tmp", 0o1777)
        tar.add(BUSYBOX, arcname="bin/busybox")
        for applet in _applets():
            info = tarfile.TarInfo(f"bin/{applet}")
            info.type = tarfile.SYMTYPE
            info.linkname = "busybox"
            tar.addfile(info)
        files = {"/etc/passwd": "root:x:0:0:root:/root:/bin/sh\n", "/etc/group": "root:x:0:\n",
                 **(extra_files or {})}
        made = {"bin", "dev", "proc", "sys", "etc", "root", "data", "tmp"}
        for path, content in files.items():
            rel = path.lstrip("/")
            parts = rel.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in made:
                    add_dir(d)
                    made.add(d)
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            info.mode = 0o755 if data.startswith(b"#!") else 0o644
            tar.addfile(info, io.BytesIO(data))
    repo, _, version = tag.rpartition(":") if ":" in tag.split("/")[-1] else (tag, "", "latest")
    client.api.import_image_from_data(buf.getvalue(), repository=repo, tag=version,
                                      changes=['CMD ["/bin/sh"]', f"ENV PATH={env_path}",
                                               f"LABEL {TEST_LABEL}={SESSION_ID}"])
    return tag


def unique_name(prefix: str = "pi05-test") -> str:
    """A container or image name nobody else uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
