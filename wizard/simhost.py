"""Provides `build_sim_host`: a folder that stands for an Atlas 800T A2 (8 x 910B) host, for `--root`.

The folder holds what the preflight reads on a real host, built from captured samples in
`assets/samples/` (see its README): `/dev/davinci0..7` and the three control nodes as real
character devices (`os.mknod`, with the device numbers of `/dev/null`, so opening one by mistake
is harmless), driver / firmware / CANN toolkit / kernels / NNAL version files, the toolkit's and
NNAL's `set_env.sh` (simulated content), `/etc/hccn.conf` (an address per NPU),
`/etc/ascend_install.info`, `/proc/meminfo`, and executables `usr/local/sbin/npu-smi` (prints a
captured table), `usr/local/sbin/msnpureport`, `usr/bin/uname` (prints aarch64) and
`usr/bin/python3` (prints the base image's `Python 3.10.12`).

Variants (`VARIANTS`), each a healthy host with one thing broken:

* `healthy`: 8 x 910B3 idle, driver 25.3.rc1, CANN / kernels / NNAL 8.3.RC1. A host view, so `shm`
  and the CANN checks have something to read but `shm` says skip (it applies inside the container).
* `x86-no-qemu`: `uname -m` says x86_64 and no qemu-aarch64-static / binfmt entry exists under the root
  (a qemu on this machine's real PATH would still be found).
* `missing-davinci3`: no `/dev/davinci3`.
* `no-devmm-svm`: no `/dev/devmm_svm`.
* `driver-not-mounted`: no `/usr/local/Ascend/driver` at all (case 08).
* `npu-smi-hangs`: `npu-smi` sleeps for an hour (killed by the command timeout).
* `npu-smi-busy`: the busy capture: every chip ~83 % HBM held by processes with empty names.
* `npu-smi-dcmi`: `npu-smi` prints case 03's "dcmi module initialize failed. ret is -8005" and exits 1
  (the exit code is not in the capture; 1 is our assumption).
* `cann-81-still-running`: version.cfg says 8.1.RC1 is running (the captured install history), kernels too.
* `nnal-absent`: no `/usr/local/Ascend/nnal`.
* `tiny-shm`: a container view (`/.dockerenv`, no Docker socket) whose `/dev/shm` is a 64 MiB tmpfs
  mounted at `ROOT/dev/shm` (needs root and CAP_SYS_ADMIN; without them `SimHostError` is raised,
  since a plain folder there would measure the real disk). Call `teardown_sim_host` to unmount.

The `docker` and `network` checks still ask this machine (a daemon and the internet cannot be
simulated by files). So does `disk`, unless the host is built with `disks=True` (the demo does):
then 2 TiB tmpfs mounts at `ROOT/var/lib/docker` and `ROOT/data` stand for the host's disks (a
tmpfs size is only a limit; it costs no memory until written). Call `teardown_sim_host` to unmount.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from importlib import resources
from pathlib import Path
from typing import Iterable

VARIANTS: tuple[str, ...] = (
    "healthy", "x86-no-qemu", "missing-davinci3", "no-devmm-svm", "driver-not-mounted", "npu-smi-hangs",
    "npu-smi-busy", "npu-smi-dcmi", "cann-81-still-running", "nnal-absent", "tiny-shm",
)
"""Every variant `build_sim_host` knows, healthy first."""

#: One line per variant: what is broken on it (for `pi05-wizard demo --help`).
VARIANT_MEANINGS: dict[str, str] = {
    "healthy": "8 x 910B3 idle, driver 25.3.rc1, CANN / kernels / NNAL 8.3.RC1: nothing broken",
    "x86-no-qemu": "an x86_64 host without qemu-aarch64-static or its binfmt entry",
    "missing-davinci3": "/dev/davinci3 is missing (a chip down or not passed through)",
    "no-devmm-svm": "/dev/devmm_svm is missing (a driver control node)",
    "driver-not-mounted": "no NPU driver at /usr/local/Ascend/driver",
    "npu-smi-hangs": "npu-smi never answers (killed by the command timeout)",
    "npu-smi-busy": "every NPU is held by another process (~83 % HBM used)",
    "npu-smi-dcmi": "npu-smi fails with 'dcmi module initialize failed. ret is -8005'",
    "cann-81-still-running": "CANN 8.1.RC1 still running: the upgrade to 8.3.RC1 did not take",
    "nnal-absent": "NNAL / ATB is not installed",
    "tiny-shm": "inside the container: /dev/shm is 64 MiB, and CANN's set_env.sh is not sourced",
}



def variants_table() -> str:
    """One line per variant, "name  meaning", names padded to one width (for `--help` texts)."""
    width = max(len(v) for v in VARIANTS)
    return "\n".join(f"  {v:<{width}}  {VARIANT_MEANINGS[v]}" for v in VARIANTS)

#: Check ids whose verdict on a simulated host depends only on the folder (not on this machine's
#: Docker, disk or network): what tests and the demo compare.
SIM_CHECK_IDS: tuple[str, ...] = (
    "arch", "devices", "driver", "firmware", "npu-smi", "msnpureport", "hccn-conf", "shm", "cann-toolkit",
    "cann-kernels", "nnal", "compat", "memory", "python", "visible-devices",
)

#: What each variant makes the sim-determined checks say (ids not listed: ok or skip).
EXPECTED_PROBLEMS: dict[str, dict[str, str]] = {
    "healthy": {},
    "x86-no-qemu": {"arch": "fail"},
    "missing-davinci3": {"devices": "fail"},
    "no-devmm-svm": {"devices": "fail"},
    "driver-not-mounted": {"driver": "fail"},
    "npu-smi-hangs": {"npu-smi": "fail"},
    "npu-smi-busy": {"npu-smi": "fail"},
    "npu-smi-dcmi": {"npu-smi": "fail"},
    "cann-81-still-running": {"cann-toolkit": "fail", "cann-kernels": "fail", "nnal": "fail", "compat": "fail"},
    "nnal-absent": {"nnal": "fail"},
    "tiny-shm": {"shm": "fail", "cann-toolkit": "warn"},
}

NPU_COUNT = 8
CONTROL_NODES = ("davinci_manager", "hisi_hdc", "devmm_svm")
_SIM_DIR = ".sim"
_MOUNTS_FILE = "mounts"
#: 1.5 TiB of RAM, written as kB into the simulated /proc/meminfo (not a capture).
_MEMINFO = "MemTotal:       1610612736 kB\nMemFree:        1503238553 kB\nMemAvailable:   1546188226 kB\n"


class SimHostError(RuntimeError):
    """The simulated host cannot be built faithfully here (no mknod or mount permission); the message says which."""


def _hccn_conf(npus: int) -> str:
    """hccn.conf with an address for every NPU 0..npus-1, following the per-NPU pattern of the sample
    `hccn.conf_910B_A2_TEMPLATE_DERIVED.txt` (which lists NPUs 0 and 1 only)."""
    head = ("# Simulated by pi05-wizard: the pattern of assets/samples/hccn.conf_910B_A2_TEMPLATE_DERIVED.txt "
            "for every NPU.\n")
    return head + "".join(f"address_{i}=192.168.{100 + i}.101\nnetmask_{i}=255.255.255.0\n"
                          f"netdetect_{i}=192.168.{100 + i}.1\ngateway_{i}=192.168.{100 + i}.1\n" for i in range(npus))


def _sample(name: str) -> str:
    return resources.files("assets").joinpath("samples", name).read_text(encoding="utf-8")


def _write(root: Path, rel: str, text: str, mode: int = 0o644) -> Path:
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def _script(root: Path, rel: str, body: str) -> None:
    _write(root, rel, "#!/bin/sh\n# Simulated by pi05-wizard (wizard/simhost.py); not the real tool.\n" + body, 0o755)


def _mknod_char(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mknod(path, 0o660 | stat.S_IFCHR, os.makedev(1, 3))
    except FileExistsError:
        pass
    except (PermissionError, OSError) as exc:
        raise SimHostError(f"cannot create character device {path} with os.mknod ({exc}); run as root") from exc


def _mount_tmpfs(root: Path, rel: str, size: str) -> None:
    target = root / rel
    target.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)],
                          capture_output=True, text=True, timeout=10)
    if proc.returncode != 0:
        raise SimHostError(f"cannot mount a {size} tmpfs at {target} ({proc.stderr.strip() or proc.returncode}); "
                           "needs root with CAP_SYS_ADMIN")
    with open(root / _SIM_DIR / _MOUNTS_FILE, "a", encoding="utf-8") as fh:
        fh.write(str(target) + "\n")


def mounted_points(root: str | os.PathLike[str]) -> list[Path]:
    """The tmpfs mount points `build_sim_host` made under `root` and `teardown_sim_host` has not undone."""
    listing = Path(root) / _SIM_DIR / _MOUNTS_FILE
    try:
        return [Path(ln.strip()) for ln in listing.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except OSError:
        return []


def teardown_sim_host(root: str | os.PathLike[str]) -> None:
    """Unmount every tmpfs `build_sim_host` mounted under `root` (safe to call twice, or when none was)."""
    listing = Path(root) / _SIM_DIR / _MOUNTS_FILE
    if not listing.exists():
        return
    for line in reversed(listing.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            subprocess.run(["umount", line.strip()], capture_output=True, timeout=10)
    listing.unlink()


def build_sim_host(root: str | os.PathLike[str], variant: str = "healthy", disks: bool = False, *,
                   npus: int = NPU_COUNT, machine: str | None = None, qemu: bool = False,
                   missing: Iterable[str] = ()) -> Path:
    """Build a simulated 910B host under `root` (created if needed; existing files are overwritten).

    Besides what the preflight reads, the folder holds every bind-mount source of the recipe's
    container (`/usr/local/dcmi`, `/usr/local/bin/npu-smi`, `/etc/localtime`, `/etc/timezone`, `/data`),
    and `npu-smi` keeps its captured output beside itself (`/usr/local/sbin/.npu-smi-sim/`), so the
    same commands answer inside a container that mounts `/usr/local/sbin` and `/usr/local/bin/npu-smi`.

    Args:
        root: the folder standing for `/` (pass it as `pi05-wizard --root`). May contain spaces.
        variant: one of `VARIANTS`.
        disks: also mount 2 TiB tmpfs "disks" for Docker's root and the data folder, so the `disk`
            check measures the simulated host instead of this machine (needs root; see the module doc).
        npus: how many `/dev/davinciN` nodes (0..npus-1) to make (a host with 16 chips, or none).
        machine: what `uname -m` answers (default aarch64, or x86_64 for `x86-no-qemu`).
        qemu: also place a `usr/bin/qemu-aarch64-static` stub (an x86_64 development host that has QEMU).
        missing: absolute host paths (files, folders or device nodes) removed after building, to
            leave out one mount source or device.

    Returns:
        The root as an absolute Path.

    Raises:
        ValueError: unknown variant.
        SimHostError: device nodes or the tmpfs cannot be created here (needs root); the tmpfs
            mounts made before the one that failed are undone first, so there is nothing to tear down.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown sim host variant {variant!r}; known: {', '.join(VARIANTS)}")
    base = Path(root).absolute()
    base.mkdir(parents=True, exist_ok=True)
    teardown_sim_host(base)
    if (base / _SIM_DIR / "variant").exists():  # rebuilt: drop what the previous variant made
        for name in ("dev", "usr", "etc", "proc", _SIM_DIR):
            shutil.rmtree(base / name, ignore_errors=True)
        (base / ".dockerenv").unlink(missing_ok=True)
    sim = base / _SIM_DIR
    sim.mkdir(exist_ok=True)
    (sim / "variant").write_text(variant + "\n", encoding="utf-8")

    # Device nodes.
    for i in range(npus):
        if not (variant == "missing-davinci3" and i == 3):
            _mknod_char(base / f"dev/davinci{i}")
    for name in CONTROL_NODES:
        if not (variant == "no-devmm-svm" and name == "devmm_svm"):
            _mknod_char(base / f"dev/{name}")

    # Driver and firmware.
    if variant != "driver-not-mounted":
        _write(base, "usr/local/Ascend/driver/version.info", _sample("driver_version.info_25.3.rc1.txt"))
        (base / "usr/local/Ascend/driver/lib64/driver").mkdir(parents=True, exist_ok=True)
        (base / "usr/local/Ascend/driver/lib64/common").mkdir(parents=True, exist_ok=True)
    _write(base, "usr/local/Ascend/firmware/version.info", _sample("firmware_version.info_25.0.rc1.1.txt"))
    _write(base, "etc/ascend_install.info", _sample("etc_ascend_install.info.txt"))
    _write(base, "etc/hccn.conf", _hccn_conf(npus))
    # Other mount sources of the recipe's container (not read by the checks; contents not captured).
    (base / "usr/local/dcmi").mkdir(parents=True, exist_ok=True)
    (base / "data").mkdir(parents=True, exist_ok=True)
    _write(base, "etc/timezone", "Asia/Shanghai\n")
    _write(base, "etc/localtime", "TZif2 (simulated; not a real zone file)\n")

    # CANN toolkit + kernels (latest -> 8.x, a relative link as the installer makes it).
    cann = "8.1.RC1" if variant == "cann-81-still-running" else "8.3.RC1"
    tk = base / "usr/local/Ascend/ascend-toolkit"
    vdir = tk / cann
    cfg = "version.cfg_8.1.RC1_with_install_history.txt" if cann == "8.1.RC1" else "version.cfg_8.3.RC1_DERIVED.txt"
    _write(vdir, "version.cfg", _sample(cfg))
    if cann == "8.3.RC1":
        _write(vdir, "aarch64-linux/ascend_toolkit_install.info", _sample("ascend_toolkit_install.info_8.3.RC1_aarch64.txt"))
    kernels = vdir / "opp/built-in/op_impl/ai_core/tbe/kernel/ascend910b"
    for sub in ("ops_oam", "ops_legacy", "ops_nn", "ops_math", "ops_transformer"):
        (kernels / sub).mkdir(parents=True, exist_ok=True)
    latest = tk / "latest"
    if latest.is_symlink() or latest.exists():
        latest.unlink() if latest.is_symlink() else shutil.rmtree(latest)
    latest.symlink_to(cann)
    # The toolkit's set_env.sh (what the env fix and the stages source). Content not captured: it exports
    # what the real one is known to export (ASCEND_TOOLKIT_HOME, LD_LIBRARY_PATH).
    _write(tk, "set_env.sh", "# Simulated by pi05-wizard (wizard/simhost.py); not the real script.\n"
           "export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest\n"
           "export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${LD_LIBRARY_PATH}\n")

    # NNAL / ATB.
    nnal = base / "usr/local/Ascend/nnal"
    if variant == "nnal-absent":
        shutil.rmtree(nnal, ignore_errors=True)
    else:
        _write(base, "usr/local/Ascend/nnal/atb/latest/version.info", _sample("nnal_atb_version.info_8.3.RC1_DERIVED.txt"))
        _write(base, "usr/local/Ascend/nnal/atb/set_env.sh", "# Simulated by pi05-wizard; not the real script.\n"
               "export ATB_HOME_PATH=/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1\n")

    # Commands.
    table = {"npu-smi-busy": "npu-smi_info_910B3_8npu_busy_24.1.rc2.txt"}.get(
        variant, "npu-smi_info_910B3_8npu_idle_23.0.7.txt")
    # The captures live beside the script, so it answers the same inside a container mounting /usr/local/sbin.
    data = "usr/local/sbin/.npu-smi-sim"
    _write(base, f"{data}/npu-smi-info.txt", _sample(table))
    _write(base, f"{data}/npu-smi-dcmi.txt", _sample("npu-smi_info_dcmi_-8005.txt"))
    if variant == "npu-smi-hangs":
        body = "exec sleep 3600\n"
    elif variant == "npu-smi-dcmi":
        body = 'cat "$(dirname "$0")/.npu-smi-sim/npu-smi-dcmi.txt"\nexit 1\n'
    else:
        body = ('sim="$(dirname "$0")/.npu-smi-sim"\n'
                'case "$1 $2" in\n'
                '  "info ") cat "$sim/npu-smi-info.txt" ;;\n'
                '  *) echo "simulated npu-smi: unsupported arguments: $*" >&2; exit 2 ;;\n'
                'esac\n')
    _script(base, "usr/local/sbin/npu-smi", body)
    # The driver installer's copy in /usr/local/bin (a mount source of the container) runs the same.
    _script(base, "usr/local/bin/npu-smi", 'exec "$(dirname "$0")/../sbin/npu-smi" "$@"\n')
    _script(base, "usr/local/sbin/msnpureport", 'echo "simulated msnpureport: nothing to report"\n')
    machine = machine or ("x86_64" if variant == "x86-no-qemu" else "aarch64")
    if qemu:
        _script(base, "usr/bin/qemu-aarch64-static", "exit 0\n")
    _script(base, "usr/bin/uname", f'if [ "$1" = "-m" ]; then echo {machine}; else echo Linux; fi\n')
    # `python3 -c PROGRAM` (checks.python_packages) prints our JSON shape: nothing installed yet.
    _script(base, "usr/bin/python3", 'if [ "$1" = "--version" ]; then echo "Python 3.10.12"; '
            'elif [ "$1" = "-c" ]; then echo \'{"torch": null, "torch_npu": null, "numpy": null, '
            '"transformers": null, "lerobot": null}\'; else exit 1; fi\n')
    _write(base, "proc/meminfo", _MEMINFO)

    # Container view for tiny-shm.
    marker = base / ".dockerenv"
    try:
        if variant == "tiny-shm":
            marker.write_text("", encoding="utf-8")
            _mount_tmpfs(base, "dev/shm", "64m")
        elif marker.exists():
            marker.unlink()
        if disks:
            for rel in ("var/lib/docker", "data"):
                _mount_tmpfs(base, rel, "2T")
    except BaseException:
        # All or nothing: a caller that gets SimHostError (and skips, or retries without disks) has
        # no teardown to call, so the mounts made before the failing one are undone here.
        teardown_sim_host(base)
        raise
    for path in missing:
        _remove(base / str(path).lstrip("/"))
    return base


def _remove(path: Path) -> None:
    """Remove a file, link, device node or folder of the simulated host (absent is fine)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
