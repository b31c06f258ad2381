"""Provides parsers for the Ascend version files, and an ordering for Ascend version strings.

Formats read (samples in `/work/shared/samples`, cases in `/work/shared/cases`):

* driver `version.info` (`/usr/local/Ascend/driver/version.info`): `Version=`, `package_version=`,
  `compatible_version_fw=[lo,hi]` — `driver_version.info_24.1.rc2.2.txt`, `..._25.3.rc1.txt`, case 06.
* firmware `version.info`: `Version=` (firmware's own number), `package_version=` (the HDK release) —
  `firmware_version.info_25.0.rc1.1.txt`.
* `<arch>-linux/ascend_toolkit_install.info`: `version=`, `arch=` — both toolkit samples, case 01, case 06.
* `ascend-toolkit/latest/version.cfg`: `<component>_running_version=[inner:cann]` plus the install
  history `<component>_installed_version=[old][new]` — `version.cfg_8.1.RC1_with_install_history.txt`,
  case 06. The running version is the answer; the first bracket of the history never is.
* NNAL/ATB `nnal/atb/latest/version.info`: indented `Key : value` — `nnal_atb_version.info_8.0.T63.txt`, case 06.
* `/etc/ascend_install.info`: `Key=value` — `etc_ascend_install.info.txt`.

Case 06 pasted its files through `cat -n`; numbered lines are read as if unnumbered.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from checks.parsers import UnrecognizedOutput

_CAT_N = re.compile(r"^\s*\d+(?:\t|\s{2,})")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\- ]*$")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def strip_cat_n(text: str) -> str:
    """Remove `cat -n` line numbers when every non-blank line carries one (case 06); else return text as is."""
    lines = text.splitlines()
    body = [ln for ln in lines if ln.strip()]
    if body and all(_CAT_N.match(ln) for ln in body):
        return "\n".join(_CAT_N.sub("", ln, count=1) for ln in lines)
    return text


def parse_key_values(text: str, sep: str = "=") -> dict[str, str]:
    """Read `key<sep>value` lines into a dict (first occurrence wins; keys and values stripped).

    Blank lines, `#` comments and lines without `sep` are ignored; `cat -n` numbering is removed.
    Keys must look like identifiers (letters, digits, `_ . -` and spaces), so binary noise is dropped.
    """
    out: dict[str, str] = {}
    if not isinstance(text, str):
        return out
    for raw in strip_cat_n(text).splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or sep not in line:
            continue
        key, _, value = line.partition(sep)
        key = key.strip()
        if key and _KEY.match(key) and key not in out:
            out[key] = value.strip()
    return out


class DriverVersion(BaseModel):
    """The NPU driver's `version.info`."""

    version: str
    """`Version=`, e.g. `25.3.rc1`."""
    package_version: str | None = None
    """`package_version=` (newer drivers), e.g. `24.1.rc2.2`."""
    innerversion: str | None = None
    compatible_version_fw: tuple[str, str] | None = None
    """Firmware range the driver accepts, from `compatible_version_fw=[7.0.0,8.9.9]`."""
    fields: dict[str, str] = Field(default_factory=dict)

    @property
    def best(self) -> str:
        """The most precise version: `package_version` when present, else `Version`."""
        return self.package_version or self.version


class FirmwareVersion(BaseModel):
    """The NPU firmware's `version.info`."""

    version: str
    """`Version=`: the firmware's own number, e.g. `7.7.0.1.231` (compared with the driver's range)."""
    package_version: str | None = None
    """`package_version=`: the HDK release, e.g. `25.0.rc1.1`."""
    fields: dict[str, str] = Field(default_factory=dict)


class ToolkitInstallInfo(BaseModel):
    """`<arch>-linux/ascend_toolkit_install.info`."""

    version: str
    """e.g. `8.3.RC1`."""
    package_name: str | None = None
    innerversion: str | None = None
    arch: str | None = None
    path: str | None = None


class VersionCfg(BaseModel):
    """`ascend-toolkit/latest/version.cfg`: running versions and install history per component."""

    running: dict[str, str] = Field(default_factory=dict)
    """Component -> CANN version now running, e.g. {"toolkit": "8.1.RC1", "opp_kernel": "8.1.RC1"}."""
    installed: dict[str, list[str]] = Field(default_factory=dict)
    """Component -> every CANN version ever installed, oldest first (history, not the answer)."""

    @property
    def toolkit(self) -> str | None:
        """The toolkit's running version (falls back to the runtime's)."""
        return self.running.get("toolkit") or self.running.get("runtime")

    @property
    def kernels(self) -> str | None:
        """The running version of the operator kernels (`opp_kernel`), installed by the kernels runfile."""
        return self.running.get("opp_kernel")


class NnalVersion(BaseModel):
    """NNAL/ATB `version.info` (`Key : value`)."""

    version: str
    """`Ascend-cann-atb`, e.g. `8.0.T63`, `8.3.RC1`."""
    full_version: str | None = None
    """`Ascend-cann-atb Version`, e.g. `8.0.T63.B020`."""
    platform: str | None = None
    branch: str | None = None
    commit: str | None = None


class AscendInstallInfo(BaseModel):
    """`/etc/ascend_install.info`, written by the driver installer."""

    fields: dict[str, str]

    @property
    def driver_install_path(self) -> str | None:
        """`Driver_Install_Path_Param`, normally `/usr/local/Ascend`."""
        return self.fields.get("Driver_Install_Path_Param")


def _bracket_pair(value: str | None) -> tuple[str, str] | None:
    m = _BRACKET.search(value or "")
    if not m or "," not in m.group(1):
        return None
    lo, _, hi = m.group(1).partition(",")
    return lo.strip(), hi.strip()


def parse_driver_version(text: str) -> DriverVersion:
    """Parse a driver `version.info`. Raises UnrecognizedOutput without a `Version=` line."""
    kv = parse_key_values(text)
    version = kv.get("Version") or kv.get("package_version")
    if not version:
        raise UnrecognizedOutput("driver version.info", text, "no Version= line")
    return DriverVersion(version=version, package_version=kv.get("package_version"),
                         innerversion=kv.get("Innerversion"),
                         compatible_version_fw=_bracket_pair(kv.get("compatible_version_fw")), fields=kv)


def parse_firmware_version(text: str) -> FirmwareVersion:
    """Parse a firmware `version.info`. Raises UnrecognizedOutput without a `Version=` line."""
    kv = parse_key_values(text)
    if not kv.get("Version"):
        raise UnrecognizedOutput("firmware version.info", text, "no Version= line")
    return FirmwareVersion(version=kv["Version"], package_version=kv.get("package_version"), fields=kv)


def parse_toolkit_install_info(text: str) -> ToolkitInstallInfo:
    """Parse `ascend_toolkit_install.info`. Raises UnrecognizedOutput without a `version=` line."""
    kv = parse_key_values(text)
    if not kv.get("version"):
        raise UnrecognizedOutput("ascend_toolkit_install.info", text, "no version= line")
    return ToolkitInstallInfo(version=kv["version"], package_name=kv.get("package_name"),
                              innerversion=kv.get("innerversion"), arch=kv.get("arch"), path=kv.get("path"))


def _cann_of(bracket: str) -> str:
    # "[7.7.T20.0.B210:8.1.RC1]" holds "<inner>:<cann>"; keep the CANN part.
    return bracket.rpartition(":")[2].strip()


def parse_version_cfg(text: str) -> VersionCfg:
    """Parse `version.cfg`: `*_running_version=[inner:cann]` and `*_installed_version=[..][..]`.

    Raises:
        UnrecognizedOutput: no `*_running_version` and no `*_installed_version` line.
    """
    running: dict[str, str] = {}
    installed: dict[str, list[str]] = {}
    for key, value in parse_key_values(text).items():
        brackets = [b for b in _BRACKET.findall(value) if b.strip()]
        if not brackets:
            continue
        if key.endswith("_running_version"):
            running[key[: -len("_running_version")]] = _cann_of(brackets[-1])
        elif key.endswith("_installed_version"):
            installed[key[: -len("_installed_version")]] = [_cann_of(b) for b in brackets]
    if not running and not installed:
        raise UnrecognizedOutput("version.cfg", text, "no *_running_version line")
    return VersionCfg(running=running, installed=installed)


def parse_nnal_version(text: str) -> NnalVersion:
    """Parse NNAL/ATB `version.info` (`Key : value`). Raises UnrecognizedOutput without `Ascend-cann-atb`."""
    kv = parse_key_values(text, sep=":")
    version = kv.get("Ascend-cann-atb")
    if not version:
        raise UnrecognizedOutput("NNAL/ATB version.info", text, "no 'Ascend-cann-atb :' line")
    return NnalVersion(version=version, full_version=kv.get("Ascend-cann-atb Version"),
                       platform=kv.get("Platform"), branch=kv.get("branch"), commit=kv.get("commit id"))


def parse_ascend_install_info(text: str) -> AscendInstallInfo:
    """Parse `/etc/ascend_install.info`. Raises UnrecognizedOutput when no `Key=value` line is found."""
    kv = parse_key_values(text)
    if not kv:
        raise UnrecognizedOutput("/etc/ascend_install.info", text, "no Key=value line")
    return AscendInstallInfo(fields=kv)


def ascend_version_key(version: str) -> tuple:
    """A sort key for Ascend version strings, which are not PEP 440 (`packaging` rejects `24.1.rc2.2`).

    Dot-separated parts compare in order: numbers as numbers, and `RCn` / `rcn` before any number
    at that place (`25.3.rc1` < `25.3.0`), `Tn`/`alphaN`-style test builds before RCs. Case is ignored.
    """
    key: list[tuple] = []
    for part in str(version).strip().lower().split("."):
        if part.isdigit():
            key.append((2, int(part), ""))
            continue
        m = re.match(r"^(rc|t|alpha|beta|b)(\d*)$", part)
        if m:
            rank = 1 if m.group(1) == "rc" else 0
            key.append((rank, int(m.group(2) or 0), m.group(1)))
        else:
            key.append((-1, 0, part))
    return tuple(key)


def same_release(a: str | None, b: str | None) -> bool:
    """True when two Ascend versions name the same release, ignoring case (`8.3.rc1` == `8.3.RC1`)."""
    return bool(a) and bool(b) and str(a).strip().lower() == str(b).strip().lower()
