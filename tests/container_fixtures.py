"""Shared fixtures for the container tests: a Docker client, a busybox test image, a simulated 910B host.

The test image is built with `docker import` from a folder holding a static busybox
(`/usr/bin/busybox`, Debian's busybox-static) and its applet links, so it is a few MB and fast on
the vfs storage driver. Its architecture is the engine's own (amd64 here), which is what the
container stage accepts on a native (simulated aarch64) host.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import uuid
from pathlib import Path

import pytest

BUSYBOX = "/usr/bin/busybox" if os.path.isfile("/usr/bin/busybox") else (shutil.which("busybox") or "/bin/busybox")
#: Applets linked in the image: what the in-container checks and the tests call.
APPLETS = ("sh", "cat", "ls", "df", "stat", "sleep", "uname", "true", "echo", "test", "mount", "grep", "env",
           "head", "which", "find", "readlink")
#: An Ubuntu image's default PATH (the CANN base image keeps it): npu-smi is found in /usr/local/sbin.
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: What the simulated host's `npu-smi info` prints: a real capture (8 x 910B3, idle, driver 23.0.7).
NPU_SMI_SAMPLE = Path(__file__).resolve().parents[2] / "shared/samples/npu-smi_info_910B3_8npu_idle_23.0.7.txt"
TEST_REPO = "pi05-test-busybox"


def docker_client_or_skip():
    """A Docker SDK client, or `pytest.skip` with the reason when no engine is reachable."""
    try:
        import docker

        client = docker.from_env(timeout=60)
        client.ping()
        return client
    except Exception as exc:  # any failure to reach the engine means: skip, and say why
        pytest.skip(f"no reachable Docker engine (docker.from_env().ping() failed: {exc})")


def busybox_tar() -> bytes:
    """An image root filesystem as an uncompressed tar: /bin/busybox plus applet symlinks, /tmp, /data."""
    if not os.path.isfile(BUSYBOX):
        pytest.skip(f"{BUSYBOX} (a static busybox) is missing: install busybox-static")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in ("bin", "tmp", "dev", "proc", "sys", "etc", "data"):
            info = tarfile.TarInfo(d)
            info.type = tarfile.DIRTYPE
            info.mode = 0o1777 if d == "tmp" else 0o755
            tar.addfile(info)
        tar.add(BUSYBOX, arcname="bin/busybox")
        for rel, text in (("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"), ("etc/group", "root:x:0:\n")):
            data = text.encode()
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        for applet in APPLETS:
            info = tarfile.TarInfo(f"bin/{applet}")
            info.type = tarfile.SYMTYPE
            info.linkname = "busybox"
            tar.addfile(info)
    return buf.getvalue()


def import_busybox(client, repository: str = TEST_REPO, tag: str | None = None) -> str:
    """Import the busybox rootfs as `repository:tag` (CMD /bin/sh, PATH=/bin). Returns the reference."""
    tag = tag or uuid.uuid4().hex[:10]
    client.api.import_image_from_data(busybox_tar(), repository=repository, tag=tag,
                                      changes=['CMD ["/bin/sh"]', f"ENV PATH={IMAGE_PATH}"])
    return f"{repository}:{tag}"


@pytest.fixture(scope="session")
def docker_client():
    """A reachable Docker engine (skips the test with the reason when there is none)."""
    return docker_client_or_skip()


@pytest.fixture(scope="session")
def busybox_image(docker_client):
    """The busybox test image reference, imported once per session and removed at the end."""
    ref = import_busybox(docker_client)
    yield ref
    try:
        docker_client.images.remove(ref, force=True)
    except Exception:
        pass


@pytest.fixture
def container_name(docker_client):
    """A unique container name (never the real `pi`); the container is removed after the test."""
    name = f"pi05-test-{uuid.uuid4().hex[:10]}"
    yield name
    try:
        docker_client.containers.get(name).remove(force=True)
    except Exception:
        pass


def mknod_char(path: Path) -> None:
    """A character device node with /dev/null's major/minor (needs root; skips with the reason otherwise)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("os.mknod of a character device needs root (CAP_MKNOD)")


def build_min_sim_host(root: Path, npus: int = 8, arch: str = "aarch64", missing: tuple[str, ...] = ()) -> Path:
    """A minimal simulated 910B host under `root`, enough for the container stage.

    Device nodes `/dev/davinci0..npus-1` and the three managers (real character devices), the
    driver and firmware folders, `npu-smi` and `uname` scripts, `/etc/hccn.conf`, `/etc/localtime`,
    the extra Ascend mounts and a data folder `/data/pi05`. `missing` lists host paths left out.
    `uname -m` answers `arch` (a script under `usr/bin`, which `LocalHost` resolves first).
    """
    def want(p: str) -> bool:
        return p not in missing

    for n in range(npus):
        if want(f"/dev/davinci{n}"):
            mknod_char(root / f"dev/davinci{n}")
    for name in ("davinci_manager", "hisi_hdc", "devmm_svm"):
        if want(f"/dev/{name}"):
            mknod_char(root / f"dev/{name}")
    for d in ("usr/local/Ascend/driver/lib64", "usr/local/Ascend/firmware", "usr/local/dcmi",
              "usr/local/sbin", "usr/local/bin", "usr/bin", "etc", "data/pi05"):
        if want("/" + d):
            (root / d).mkdir(parents=True, exist_ok=True)
    files = {
        "usr/local/Ascend/driver/version.info": "Version=25.3.rc1\n",
        "etc/hccn.conf": "address_0=192.168.100.101\n",
        "etc/localtime": "TZif-fake\n",
        "etc/ascend_install.info": "Driver_Install_Path_Param=/usr/local/Ascend\n",
        "etc/timezone": "Asia/Shanghai\n",
    }
    for rel, text in files.items():
        if want("/" + rel):
            (root / rel).write_text(text)
    npu_smi = "#!/bin/sh\necho 'npu-smi 25.3.rc1'\n"
    if NPU_SMI_SAMPLE.is_file():
        # `cat` of the capture kept beside the script (both under the mounted /usr/local/sbin).
        (root / "usr/local/sbin").mkdir(parents=True, exist_ok=True)
        shutil.copy(NPU_SMI_SAMPLE, root / "usr/local/sbin/npu-smi-info.txt")
        npu_smi = "#!/bin/sh\ncat /usr/local/sbin/npu-smi-info.txt\n"
    scripts = {
        "usr/local/sbin/npu-smi": npu_smi,
        "usr/local/bin/npu-smi": npu_smi,
        "usr/bin/uname": f"#!/bin/sh\necho {arch}\n",
    }
    if arch in ("x86_64", "amd64"):
        scripts["usr/bin/qemu-aarch64-static"] = "#!/bin/sh\nexit 0\n"
    for rel, text in scripts.items():
        if want("/" + rel):
            p = root / rel
            p.write_text(text)
            p.chmod(0o755)
    return root


def remove_tree(root: Path) -> None:
    """Remove a simulated host (device nodes included)."""
    shutil.rmtree(root, ignore_errors=True)


def privileged_containers_start(client, image: str) -> tuple[bool, str]:
    """Whether this engine can start a privileged container, and the engine's reason when not.

    An engine that itself runs in a container without every capability in its bounding set
    (this project's sandbox: no CAP_SYS_RESOURCE) creates privileged containers but cannot start
    them ("unable to apply caps: operation not permitted").
    """
    container = None
    try:
        container = client.containers.create(image, ["true"], privileged=True, network_mode="none")
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


def recipe_for_test(image: str, name: str, privileged: bool = True, data_dir: str = "/data/pi05",
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

