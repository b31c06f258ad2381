"""Provides the recipe: every version, URL, path and flag the wizard automates, as pydantic models.

The default lives in `assets/recipe.toml`; the user's config file (`Locations.user_recipe`) and
`--recipe FILE` override any field, in that order. Tables merge key by key, any other value
(lists included) replaces the one before it. `load_recipe` remembers which file each value came
from (`Recipe.provenance`) and turns every problem into one `RecipeError` naming the file, the
field and what is expected.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:  # pragma: no cover
    from wizard.locations import Locations

#: The default recipe shipped with the package.
DEFAULT_RECIPE_PATH = Path(__file__).resolve().parent.parent / "assets" / "recipe.toml"

#: Label of the shipped defaults in provenance maps.
DEFAULT_SOURCE = "default"

_CANN_VERSION = re.compile(r"^\d+\.\d+\.(?:\d+|RC\d+)(?:\.[A-Za-z0-9]+)?$")
_DRIVER_VERSION = re.compile(r"^\d+\.\d+\.(?:\d+|RC\d+)(?:\.[A-Za-z0-9]+)*$", re.IGNORECASE)
_COMMIT = re.compile(r"^(?:[0-9a-f]{40})?$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SIZE = re.compile(r"^\d+[bkmg]?$", re.IGNORECASE)
_CONTAINER_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")


class RecipeError(Exception):
    """A recipe file that cannot be used: one message naming the file, the field and what is expected.

    Attributes:
        file: the file at fault (a path, or "default" for the shipped recipe).
        field: dotted field path (`cann.runfiles.toolkit.url`), "" for whole-file problems.
    """

    def __init__(self, message: str, file: str = "", field: str = ""):
        super().__init__(message)
        self.file = file
        self.field = field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, validate_assignment=False)


def _abs_path(value: str) -> str:
    if not value.startswith("/"):
        raise ValueError(f"expected an absolute path (starting with /), got {value!r}")
    return value


def _rel_path(value: str) -> str:
    if not value or value.startswith("/"):
        raise ValueError(f"expected a path relative to the clone, got {value!r}")
    return value


def _pep440(value: str) -> str:
    try:
        Version(value)
    except InvalidVersion:
        raise ValueError(f"expected a version like 2.7.1 (PEP 440), got {value!r}") from None
    return value


class Target(_Model):
    """The machine the recipe is for."""

    arch: Literal["aarch64", "x86_64"] = "aarch64"
    """CPU architecture of the training host (`uname -m`); x86_64 is the qemu development path only."""
    npu_count: int = Field(8, ge=1, le=64)
    """NPUs (chips) the host must show: 8 on an Atlas 800T A2."""
    chip: str = "910B"
    """Chip family expected in `npu-smi info`."""
    python: str = "3.10"
    """Python version inside the container (major.minor)."""
    driver_version: str = "25.3.RC1"
    """NPU driver the CANN version expects (driver `version.info` `Version=`)."""

    _v_python = field_validator("python")(lambda v: _pep440(v))

    @field_validator("driver_version")
    @classmethod
    def _driver(cls, v: str) -> str:
        if not _DRIVER_VERSION.match(v):
            raise ValueError(f"expected a driver version like 25.3.RC1 or 24.1.rc2.2, got {v!r}")
        return v


class Image(_Model):
    """The base image the container starts from."""

    base: str = Field(min_length=1)
    """Image reference to pull (registry/repository:tag)."""
    platform: str = "linux/arm64"
    """Platform passed to the pull (`--platform`)."""
    base_cann_version: str = "8.1.RC1"
    """CANN version the base image ships (upgraded by the `cann` stage)."""


class Mount(_Model):
    """One bind mount (`docker run -v source:target[:ro]`)."""

    source: str
    """Absolute path on the host."""
    target: str
    """Absolute path inside the container."""
    read_only: bool = False
    """Mount read-only."""
    origin: Literal["report", "ascend-guide", "user"] = "user"
    """Where the mount comes from: the field report, Ascend's container guides, or the user."""

    _v_paths = field_validator("source", "target")(lambda v: _abs_path(v))

    def volume_text(self) -> str:
        """The mount as `docker run -v` writes it: `source:target` or `source:target:ro`."""
        return f"{self.source}:{self.target}" + (":ro" if self.read_only else "")


class DataFolder(_Model):
    """The host folder shared with the container for datasets, weights and downloads."""

    host_path: str = "/data"
    """Folder on the host (the report used a per-user folder under /data)."""
    container_path: str = "/data"
    """Where the container sees it."""

    _v_paths = field_validator("host_path", "container_path")(lambda v: _abs_path(v))


class Container(_Model):
    """The container every in-container stage runs in (`docker run` flags of the report)."""

    name: str = "pi"
    """Container name (`--name`)."""
    user: str = "root"
    """User commands run as (`-u`)."""
    privileged: bool = True
    """Run privileged (`--privileged`)."""
    network_mode: str = "host"
    """Docker network mode (`--net`)."""
    shm_size: str = "500g"
    """Shared memory size (`--shm-size`): a number with an optional b/k/m/g suffix."""
    command: list[str] = Field(default_factory=lambda: ["bash"])
    """The container's main command."""
    devices: list[str]
    """Device nodes passed through (`--device`): the NPUs and Ascend's manager devices."""
    mounts: list[Mount]
    """Bind mounts on an aarch64 host."""
    qemu_mounts: list[Mount]
    """Bind mounts on an x86_64 development host (qemu-aarch64-static, no NPUs)."""
    data: DataFolder = Field(default_factory=DataFolder)
    """The shared data folder."""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _CONTAINER_NAME.match(v):
            raise ValueError(f"expected a Docker container name ([a-zA-Z0-9][a-zA-Z0-9_.-]*), got {v!r}")
        return v

    @field_validator("shm_size")
    @classmethod
    def _shm(cls, v: str) -> str:
        if not _SIZE.match(v):
            raise ValueError(f"expected a size like 500g, 64m or 1024, got {v!r}")
        return v

    @field_validator("devices")
    @classmethod
    def _devices(cls, v: list[str]) -> list[str]:
        for d in v:
            if not d.startswith("/dev/"):
                raise ValueError(f"expected device paths under /dev/, got {d!r}")
        return v

    def shm_size_bytes(self) -> int:
        """`shm_size` in bytes (k/m/g are powers of 1024, as Docker reads them)."""
        unit = self.shm_size[-1].lower()
        mult = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(unit)
        return int(self.shm_size[:-1]) * mult if mult else int(self.shm_size)


class Runfile(_Model):
    """One CANN runfile: where to get it, how to check it and how to install it."""

    file: str
    """File name of the runfile."""
    url: str
    """Download URL (Ascend's repository, folder `CANN/CANN <version>/`)."""
    install_flags: list[str]
    """Flags passed to the runfile (`--upgrade --install-for-all -q`, ...)."""
    sha256: Optional[str] = None
    """sha256 of the .run file itself; None when no checksum is published (then nothing is verified)."""
    zip_file: Optional[str] = None
    """The .zip package of the same runfile, for which Huawei's installer publishes a sha256."""
    zip_sha256: Optional[str] = None
    """sha256 of `zip_file` (NOT of the .run): recorded so a .zip download can be verified."""
    source_toolkit_env: bool = False
    """Source the toolkit's set_env.sh before running this installer (as the report did)."""
    version_key: Optional[str] = None
    """Key of version.cfg whose running version shows this runfile installed (None: not recorded there)."""

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v.startswith("https://"):
            raise ValueError(f"expected an https:// URL, got {v!r}")
        return v

    @field_validator("sha256", "zip_sha256")
    @classmethod
    def _sha(cls, v: Optional[str]) -> Optional[str]:
        if v in (None, ""):
            return None
        if not _SHA256.match(v.lower()):
            raise ValueError(f"expected 64 hexadecimal digits, got {v!r}")
        return v.lower()


class Cann(_Model):
    """The CANN upgrade inside the container."""

    version: str = "8.3.RC1"
    """CANN version to reach, as Ascend writes it (8.3.RC1, 8.5.0)."""
    download_subdir: str = "cann/8.3.RC1"
    """Folder under the data folder the runfiles are downloaded to."""
    toolkit_set_env: str = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
    """The toolkit's environment script (libascendcl, libhccl)."""
    nnal_set_env: str = "/usr/local/Ascend/nnal/atb/set_env.sh"
    """NNAL/ATB's environment script (libatb)."""
    version_cfg: str = "/usr/local/Ascend/ascend-toolkit/latest/version.cfg"
    """The toolkit's version file (`*_running_version=[...]`, with install history)."""
    nnal_version_info: str = "/usr/local/Ascend/nnal/atb/latest/version.info"
    """NNAL's version file (`key : value`)."""
    bashrc: str = "/root/.bashrc"
    """Login script the set_env.sh lines are added to."""
    runfiles: dict[str, Runfile]
    """Runfiles by name, in install order (toolkit, kernels, nnal)."""

    @field_validator("version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _CANN_VERSION.match(v):
            raise ValueError(f"expected a CANN version like 8.3.RC1 or 8.5.0, got {v!r}")
        return v

    _v_paths = field_validator("toolkit_set_env", "nnal_set_env", "version_cfg", "nnal_version_info",
                               "bashrc")(lambda v: _abs_path(v))


class Apt(_Model):
    """System packages installed in the container."""

    update_first: bool = True
    """Run `apt-get update` before installing."""
    packages: list[str]
    """Debian package names."""


class PythonPackages(_Model):
    """Python and the PyTorch pair inside the container."""

    executable: str = "python3"
    """Python interpreter in the container (pip runs as `<executable> -m pip`)."""
    torch: str = "2.7.1"
    """PyTorch version."""
    torch_npu: str = "2.7.1"
    """torch_npu version; must be built for the recipe's CANN (2.7.1 pairs with 8.3.RC1)."""

    _v_versions = field_validator("torch", "torch_npu")(lambda v: _pep440(v))


class Repo(_Model):
    """One git repository to clone at a pinned point."""

    url: str
    """Clone URL."""
    dest: str
    """Absolute clone folder inside the container."""
    branch: Optional[str] = None
    """Branch checked out before the commit (transformers' `fix/lerobot_openpi`)."""
    commit: str = ""
    """Full 40-digit commit to check out; empty means the default branch, unpinned."""
    apply_patch: bool = False
    """Copy in and apply the Pi-0.5 patch and test folder (lerobot)."""
    editable_install: bool = False
    """`pip install -e .` in the clone."""
    dist_name: Optional[str] = None
    """Distribution name `pip show` knows it by (for the done probe)."""

    _v_dest = field_validator("dest")(lambda v: _abs_path(v))

    @field_validator("commit")
    @classmethod
    def _commit(cls, v: str) -> str:
        if not _COMMIT.match(v):
            raise ValueError(f"expected a full 40-digit lowercase hex commit (or empty), got {v!r}")
        return v


class ModelCode(_Model):
    """DrivingSDK's Pi-0.5 example and the repositories it builds on."""

    workdir: str = "/root/DrivingSDK/model_examples/Pi-0.5"
    """DrivingSDK's Pi-0.5 folder, holding the patch and the test folder."""
    patch: str = "pi05.patch"
    """Patch file in `workdir`, copied into and applied to lerobot."""
    test_dir: str = "test"
    """Folder in `workdir` copied into lerobot (training scripts, weight path script)."""
    repos: dict[str, Repo]
    """Repositories by name, in clone order (drivingsdk first)."""

    _v_workdir = field_validator("workdir")(lambda v: _abs_path(v))


class BenignConflict(_Model):
    """A `pip check` complaint known to be harmless for training."""

    package: str
    """The package that complains (first name on the pip check line)."""
    requirement: str
    """The requirement it complains about (numpy, ml-dtypes, ...)."""
    reason: str = ""
    """Why it is harmless, in a sentence."""


class Dependencies(_Model):
    """How `pip check` output is judged."""

    benign: list[BenignConflict] = Field(default_factory=list)
    """Known harmless conflicts; anything else fails the dependencies stage. The one list of them:
    the dependencies stage and the remedy matcher's numpy-conflict classification both read it."""


def _pip_name(name: str) -> str:
    """A distribution name normalized as PEP 503 says (`ML_dtypes` -> `ml-dtypes`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def find_benign(package: str, requirement: str, benign: "Sequence[BenignConflict]") -> "BenignConflict | None":
    """The entry of `benign` (the recipe's `[[dependencies.benign]]`) for `package` complaining about `requirement`.

    Names are compared PEP 503-normalized. Returns None when the pair is not on the list.
    """
    want = (_pip_name(package), _pip_name(requirement))
    for b in benign:
        if (_pip_name(b.package), _pip_name(b.requirement)) == want:
            return b
    return None


class Dataset(_Model):
    """The training dataset (LeRobot format)."""

    name: str = "koch_test"
    """Dataset name."""
    path: str = "/data/koch_test"
    """Folder inside the container."""
    repo_id: str = "/data/koch_test"
    """What lerobot's `--repo-id` is given (the report passes the local path)."""
    source_codebase_version: Literal["v2.1", "v3.0"] = "v2.1"
    """Format the dataset arrives in."""
    codebase_version: Literal["v3.0"] = "v3.0"
    """Format training needs."""
    convert_module: str = "lerobot.datasets.v30.convert_dataset_v21_to_v30"
    """lerobot's v2.1 -> v3.0 converter module."""
    quantile_script: str = "src/lerobot/datasets/v30/augment_dataset_quantile_stats.py"
    """lerobot's quantile statistics script, relative to the lerobot clone."""
    quantile_keys: list[str] = Field(default_factory=lambda: ["q01", "q10", "q50", "q90", "q99"])
    """Quantile keys the statistics must hold (pi05 reads q01 and q99)."""
    quantile_minutes_per_80_episodes: float = Field(150, gt=0)
    """The report's duration of the quantile script for 80 episodes, in minutes."""

    _v_path = field_validator("path")(lambda v: _abs_path(v))


class WeightSource(_Model):
    """One set of model weights."""

    repo_id: str
    """Hub repository id."""
    path: str
    """Folder inside the container."""
    urls: list[str] = Field(default_factory=list)
    """Where an operator can download it by hand."""

    _v_path = field_validator("path")(lambda v: _abs_path(v))


class Tokenizer(_Model):
    """How pi05 finds the PaliGemma tokenizer offline."""

    mod_script: str = "test/paligemma_weights_mod.sh"
    """DrivingSDK's script that writes the PaliGemma path into lerobot (relative to the clone)."""
    processor_file: str = "src/lerobot/processor/tokenizer_processor.py"
    """lerobot file that loads the tokenizer (relative to the clone)."""
    processor_line: int = Field(102, ge=1)
    """Line of the `AutoTokenizer.from_pretrained` call at the pinned commit."""

    _v_rel = field_validator("mod_script", "processor_file")(lambda v: _rel_path(v))


class Weights(_Model):
    """Model weights training needs."""

    pi05: WeightSource
    """Pi-0.5 base weights."""
    paligemma: WeightSource
    """The PaliGemma encoder and tokenizer (gated on the Hub; placed by hand offline)."""
    tokenizer: Tokenizer = Field(default_factory=Tokenizer)
    """Tokenizer path rewrite."""


class TrainMode(_Model):
    """One of DrivingSDK's training scripts."""

    script: str
    """Script relative to the lerobot clone."""
    log: str
    """Log file it writes, relative to the lerobot clone."""
    steps: int = Field(ge=1)
    """Training steps it runs."""

    _v_rel = field_validator("script", "log")(lambda v: _rel_path(v))


class Reference(_Model):
    """A reference throughput (30k iterations, bf16, one host)."""

    platform: str
    """Platform name."""
    global_batch: int = Field(ge=1)
    """Global batch size."""
    loss: float
    """Final training loss."""
    samples_per_s: float = Field(gt=0)
    """Samples per second."""


class Train(_Model):
    """Training."""

    mode: str = "performance"
    """Which entry of `modes` runs (performance: 1000 steps; full: 30000)."""
    world_size: int = Field(8, ge=1)
    """Ranks launched; must equal the number of visible NPUs (the scripts ship with 16)."""
    visible_devices: str = "0,1,2,3,4,5,6,7"
    """ASCEND_RT_VISIBLE_DEVICES: comma-separated device ids."""
    log_every_steps: int = Field(20, ge=1)
    """Steps between log lines."""
    final_model: str = "checkpoints/last/pretrained_model"
    """The trained model, relative to the run's output folder."""
    modes: dict[str, TrainMode]
    """Training scripts by mode name."""
    reference: list[Reference] = Field(default_factory=list)
    """Reference results to compare throughput with."""

    @field_validator("visible_devices")
    @classmethod
    def _devices(cls, v: str) -> str:
        parts = v.split(",")
        if not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"expected comma-separated device ids like 0,1,2,3, got {v!r}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "Train":
        if self.mode not in self.modes:
            raise ValueError(f"mode {self.mode!r} is not one of the modes: {', '.join(self.modes)}")
        n = len(self.visible_devices.split(","))
        if n != self.world_size:
            raise ValueError(f"world_size ({self.world_size}) must equal the number of visible_devices ({n})")
        return self

    @property
    def current(self) -> TrainMode:
        """The mode that runs."""
        return self.modes[self.mode]


class Archive(_Model):
    """The finished container saved as an image archive."""

    repository: str = "pi"
    """Image repository name of the commit."""
    tag: str = "8.3.rc1-910b-ubuntu22.04-py3.10-{date}"
    """Image tag; `{date}` is replaced by the date."""
    file: str = "pi-8.3.rc1-910b-ubuntu22.04-py3.10-{date}.tar.gz"
    """Archive file name; `{date}` is replaced by the date."""
    date_format: str = "%Y%m%d"
    """strftime format of `{date}`."""


class Disk(_Model):
    """Free space needed, in GiB (estimates)."""

    docker_gib: float = Field(60, ge=0)
    """Under Docker's data root: base image plus upgraded CANN and Python packages."""
    data_gib: float = Field(80, ge=0)
    """In the data folder: runfiles, dataset, weights."""


class Network(_Model):
    """Download hosts the preflight probes."""

    probe_timeout_s: float = Field(5.0, gt=0)
    """Seconds per reachability probe."""
    hosts: list[str] = Field(default_factory=list)
    """Host names reached during setup (HTTPS, port 443)."""


class Recipe(_Model):
    """The whole recipe. `provenance` says which file each value came from."""

    target: Target
    """The machine."""
    image: Image
    """The base image."""
    container: Container
    """The container and its flags."""
    cann: Cann
    """The CANN upgrade."""
    apt: Apt
    """System packages."""
    python: PythonPackages
    """Python and PyTorch."""
    model_code: ModelCode
    """Repositories and the patch."""
    dependencies: Dependencies = Field(default_factory=Dependencies)
    """pip check judgement."""
    dataset: Dataset = Field(default_factory=Dataset)
    """The dataset."""
    weights: Weights
    """Weights."""
    train: Train
    """Training."""
    archive: Archive = Field(default_factory=Archive)
    """Image archive."""
    disk: Disk = Field(default_factory=Disk)
    """Disk needs."""
    network: Network = Field(default_factory=Network)
    """Download hosts."""

    _provenance: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def provenance(self) -> dict[str, str]:
        """Dotted field path of every value set by a file -> that file ("default" for the shipped one)."""
        return self._provenance

    def source_of(self, path: str) -> str:
        """Which file set the value at dotted `path` (or its nearest enclosing table)."""
        return _lookup(self._provenance, path.split(".")) or DEFAULT_SOURCE

    @property
    def lerobot_dir(self) -> str:
        """The lerobot clone inside the container."""
        return self.model_code.repos["lerobot"].dest if "lerobot" in self.model_code.repos else \
            f"{self.model_code.workdir}/lerobot"

    def runfile_dir(self, side: Literal["host", "container"]) -> str:
        """Folder the runfiles are downloaded to, as the host or the container sees it."""
        base = self.container.data.host_path if side == "host" else self.container.data.container_path
        return f"{base.rstrip('/')}/{self.cann.download_subdir.strip('/')}"


# -- loading -------------------------------------------------------------------------------------

def _read_toml(path: Path, label: str) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RecipeError(f"{label}: no such file", file=label) from None
    except OSError as exc:
        raise RecipeError(f"{label}: cannot read it ({exc.strerror or exc})", file=label) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecipeError(f"{label}: not a TOML file (it is not UTF-8 text)", file=label) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"{label}: not valid TOML: {exc}", file=label) from None


def _merge(base: dict[str, Any], over: dict[str, Any], prov: dict[str, str], label: str,
           prefix: tuple[str, ...] = ()) -> None:
    """Merge `over` into `base` in place: tables key by key, anything else replaces."""
    for key, value in over.items():
        path = (*prefix, key)
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, prov, label, path)
            continue
        dotted = ".".join(path)
        for p in [p for p in prov if p.startswith(dotted + ".")]:
            del prov[p]
        base[key] = value
        prov[dotted] = label
        if isinstance(value, dict):  # a new table: its leaves come from this file too
            _record(value, prov, label, path)


def _record(data: dict[str, Any], prov: dict[str, str], label: str, prefix: tuple[str, ...] = ()) -> None:
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, dict):
            _record(value, prov, label, path)
        else:
            prov[".".join(path)] = label


def _lookup(prov: dict[str, str], parts: list[str]) -> str | None:
    for n in range(len(parts), 0, -1):
        hit = prov.get(".".join(parts[:n]))
        if hit:
            return hit
    return None


_TYPE_WORDS = {
    "int_type": "an integer", "int_parsing": "an integer", "float_type": "a number", "float_parsing": "a number",
    "bool_type": "true or false", "bool_parsing": "true or false", "string_type": "a string (in quotes)",
    "list_type": "a list [...]", "dict_type": "a table", "model_type": "a table", "literal_error": None,
    "missing": "a value (this field is required)",
}


def _subtree_source(prov: dict[str, str], parts: list[str], order: list[str]) -> str | None:
    """For an error on a whole table (a cross-field rule): the latest file that set anything in it."""
    prefix = ".".join(parts) + "." if parts else ""
    labels = {label for path, label in prov.items() if path.startswith(prefix)}
    return next((label for label in reversed(order) if label in labels), None)


def _describe_error(err: dict[str, Any], data: dict[str, Any], prov: dict[str, str],
                    order: list[str] | None = None) -> RecipeError:
    loc = [str(p) for p in err.get("loc", ())]
    field = ".".join(loc)
    source = _lookup(prov, loc) or _subtree_source(prov, loc, order or [DEFAULT_SOURCE]) or DEFAULT_SOURCE
    got = err.get("input")
    got_text = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    if len(got_text) > 80:
        got_text = got_text[:77] + "..."
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        parent = loc[:-1]
        known = _known_fields(parent)
        hint = difflib.get_close_matches(loc[-1], known, n=1)
        where = f"`{'.'.join(parent)}`" if parent else "the top level"
        msg = f"`{loc[-1]}` is not a field of {where}"
        msg += f" (did you mean `{hint[0]}`?)" if hint else (f"; known: {', '.join(known)}" if known else "")
    elif kind == "value_error":
        msg = str(err.get("ctx", {}).get("error", err.get("msg", "")))
    elif kind == "literal_error":
        msg = f"expected {err.get('ctx', {}).get('expected', 'one of the allowed values')}, got {got_text}"
    elif kind in _TYPE_WORDS:
        msg = f"expected {_TYPE_WORDS[kind]}, got {got_text}"
    else:
        msg = f"{err.get('msg', 'invalid value')} (got {got_text})"
    where = "the shipped default recipe" if source == DEFAULT_SOURCE else source
    field_text = f"field `{field}`" if field else "the recipe"
    return RecipeError(f"{where}: {field_text}: {msg}", file=source, field=field)


def _known_fields(parent: list[str]) -> list[str]:
    model: Any = Recipe
    for part in parent:
        fields = getattr(model, "model_fields", None)
        if fields is None:
            return []
        if part in fields:
            ann = fields[part].annotation
            args = getattr(ann, "__args__", ())
            model = ann if hasattr(ann, "model_fields") else next(
                (a for a in reversed(args) if hasattr(a, "model_fields")), None)
            if model is None:
                return []
        elif hasattr(model, "model_fields"):
            return []
    return list(getattr(model, "model_fields", {}).keys())


def load_recipe(locations: "Locations", override_path: str | Path | None = None,
                default_path: str | Path | None = None) -> Recipe:
    """Load the effective recipe: shipped default < user config file < `--recipe FILE`.

    Args:
        locations: gives the user's config file (`locations.user_recipe`); it is optional.
        override_path: the `--recipe FILE` (must exist when given).
        default_path: the shipped recipe (tests only; default `assets/recipe.toml`).

    Returns:
        The validated Recipe; `recipe.provenance` maps dotted field paths to the file that set them.

    Raises:
        RecipeError: a file is missing (only `--recipe`), unreadable, not TOML, has an unknown
            field, a wrong type or a bad value. The message names the file, the field and what
            is expected; when several values are wrong it names the first and counts the rest.
    """
    data = _read_toml(Path(default_path) if default_path else DEFAULT_RECIPE_PATH, DEFAULT_SOURCE)
    prov: dict[str, str] = {}
    _record(data, prov, DEFAULT_SOURCE)
    layers: list[tuple[Path, str]] = []
    user = Path(locations.user_recipe)
    if user.is_file():
        layers.append((user, str(user)))
    if override_path is not None:
        layers.append((Path(override_path), str(override_path)))
    for path, label in layers:
        _merge(data, _read_toml(path, label), prov, label)
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        first = _describe_error(errors[0], data, prov, [DEFAULT_SOURCE, *(label for _, label in layers)])
        if len(errors) > 1:
            first = RecipeError(f"{first} (and {len(errors) - 1} more problem"
                                f"{'s' if len(errors) > 2 else ''})", file=first.file, field=first.field)
        raise first from None
    recipe._provenance = prov
    return recipe


@lru_cache(maxsize=1)
def default_recipe() -> Recipe:
    """The shipped recipe alone (`assets/recipe.toml`, no user file), validated once and cached.

    For code that has no session (e.g. `pi05-wizard explain` on a pasted log) and needs the
    recipe's defaults. Raises RecipeError when the shipped file is broken.
    """
    data = _read_toml(DEFAULT_RECIPE_PATH, DEFAULT_SOURCE)
    try:
        return Recipe.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{DEFAULT_RECIPE_PATH}: {exc.errors()[0]['msg']}", file=str(DEFAULT_RECIPE_PATH)) from None


def recipe_as_dict(recipe: Recipe) -> dict[str, Any]:
    """The recipe as plain data (for `config --json` and TOML output)."""
    return recipe.model_dump(mode="json")


def requirements(recipe: Recipe):
    """What the preflight checks compare a host against, from this recipe.

    Returns:
        `checks.context.Requirements` built with `Requirements.from_recipe` (target, CANN, torch,
        shm size, data folder, disk needs, download hosts).
    """
    from checks.context import Requirements

    return Requirements.from_recipe(recipe)
