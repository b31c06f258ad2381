"""Provides the parser for `npu-smi info` (the chip table).

Formats read (all in `/work/shared/samples` and `/work/shared/cases`):

* 910B, one chip per NPU: `npu-smi_info_910B3_8npu_idle_23.0.7.txt` (HBM `3338 / 65536`,
  "No running processes found in NPU N"), `npu-smi_info_910B3_8npu_busy_24.1.rc2.txt`
  (HBM `54592/ 65536`, process rows with an empty name), case 02 (910B4, 32 GB, cut mid-row),
  case 11 (910B1, cut after NPU 2).
* A3, two chips per NPU: case 01 (`Chip  Phy-ID` header, 16 chips named `Ascend910`, power `-` on
  the second chip, separators alternating `+----+` and `+====+`).
* Driver errors instead of a table: case 03 (`dcmi module initialize failed. ret is -8005`).

Power may read `NA` or `-`; such fields become None. Tables cut off mid-way keep every chip read so
far; `NpuSmiInfo.truncated` says so.

`npu-smi info -l` (the NPU list) is not read: `npu-smi info` already gives every NPU id, chip,
health and HBM figure the checks use, and the only `-l` output on file is an example from a
docstring (one NPU, id 8), not a capture from a 910B host.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from checks.parsers import UnrecognizedOutput

_BUS_ID = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_PAIR = re.compile(r"(\d+)\s*/\s*(\d+)")
_NPU_NAME = re.compile(r"^(\d+)\s+(\S.*)$")
_CHIP_IDS = re.compile(r"^(\d+)(?:\s+(\d+))?$")
_VERSION = re.compile(r"npu-smi\s+(\S+)")
_NO_PROC = re.compile(r"No running processes found in NPU\s+(\d+)", re.I)
_DCMI = re.compile(r"dcmi module initialize failed\.?\s*ret is\s*(-?\d+)", re.I)


class NpuProcess(BaseModel):
    """One row of the process table under `npu-smi info`."""

    npu_id: int
    chip_id: int
    pid: int
    name: str = ""
    """Process name; npu-smi prints it empty for processes in other containers (busy sample)."""
    memory_mb: int | None = None
    """HBM held by the process, in MB as npu-smi prints it."""


class NpuChip(BaseModel):
    """One chip of the `npu-smi info` table (two table rows)."""

    npu_id: int
    """The NPU (card) id, first column of the first row."""
    chip_id: int = 0
    """The chip within the NPU (0 on 910B; 0 or 1 on A3)."""
    phy_id: int | None = None
    """Physical chip id, only in the A3 layout's `Phy-ID` column."""
    name: str
    """Chip name as printed, e.g. `910B3`, `910B4-1`, `Ascend910`."""
    health: str
    """Health word as printed, e.g. `OK`, `Warning`, `Alarm`, `Critical`."""
    power_w: float | None = None
    """Power in W; None when printed as `NA` or `-`."""
    temp_c: float | None = None
    """Temperature in degrees C; None when not printed."""
    aicore_pct: float | None = None
    """AICore utilisation in percent."""
    hbm_used_mb: int | None = None
    """HBM in use, MB (npu-smi's unit)."""
    hbm_total_mb: int | None = None
    """HBM size, MB (65536 on 910B3, 32768 on 910B4)."""
    bus_id: str | None = None
    """PCI bus id, e.g. `0000:C1:00.0`."""
    processes: list[NpuProcess] = Field(default_factory=list)
    """Processes holding this chip, from the process table."""

    @property
    def healthy(self) -> bool:
        """True when the health word is `OK`."""
        return self.health.strip().upper() == "OK"

    @property
    def hbm_used_ratio(self) -> float | None:
        """HBM used / total, 0..1, or None when unknown."""
        if self.hbm_used_mb is None or not self.hbm_total_mb:
            return None
        return self.hbm_used_mb / self.hbm_total_mb


class NpuSmiInfo(BaseModel):
    """Everything read from one `npu-smi info` output."""

    version: str | None = None
    """npu-smi version from the title row, e.g. `24.1.rc2`."""
    chips: list[NpuChip]
    """Chips in table order (at least one)."""
    processes: list[NpuProcess] = Field(default_factory=list)
    """All process rows, also attached to their chips."""
    idle_npus: list[int] = Field(default_factory=list)
    """NPU ids with a "No running processes found" row."""
    truncated: bool = False
    """True when a chip lacked its second row (the output was cut off)."""

    @property
    def npu_ids(self) -> list[int]:
        """Distinct NPU ids, in table order."""
        return list(dict.fromkeys(c.npu_id for c in self.chips))


def dcmi_error(text: str) -> int | None:
    """The dcmi return code when npu-smi printed "dcmi module initialize failed. ret is N" (case 03).

    Returns:
        The code (e.g. -8005), or None when the text holds no such line.
    """
    m = _DCMI.search(text or "")
    return int(m.group(1)) if m else None


def _num(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _cells(line: str) -> list[str]:
    # "| a | b | c |" -> ["a", "b", "c"]; a cut-off row without the closing bar keeps its last cell.
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def _is_header(cells: list[str]) -> bool:
    joined = " ".join(cells)
    return any(word in joined for word in ("Health", "Bus-Id", "Process id", "Process name", "Phy-ID"))


def parse_npu_smi_info(text: str) -> NpuSmiInfo:
    """Parse the output of `npu-smi info`.

    Args:
        text: stdout of `npu-smi info` (other lines around the table, such as a shell prompt, are ignored).

    Returns:
        An `NpuSmiInfo` with one `NpuChip` per chip, processes attached.

    Raises:
        UnrecognizedOutput: no chip row could be read (including driver errors such as case 03's
            dcmi failure, empty or binary text).
    """
    if not isinstance(text, str):
        raise UnrecognizedOutput("npu-smi info", "", "not text")
    version: str | None = None
    chips: list[NpuChip] = []
    processes: list[NpuProcess] = []
    idle: list[int] = []
    pending: dict | None = None  # first row of a chip, waiting for its second row
    truncated = False
    in_processes = False

    def flush_incomplete() -> None:
        nonlocal pending, truncated
        if pending is not None:
            chips.append(NpuChip(**pending))
            truncated = True
            pending = None

    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if version is None and len(cells) == 1 and "npu-smi" in cells[0]:
            m = _VERSION.search(cells[0])
            version = m.group(1) if m else None
            continue
        if _is_header(cells):
            if "Process id" in " ".join(cells):
                flush_incomplete()
                in_processes = True
            continue
        if in_processes:
            m = _NO_PROC.search(line)
            if m:
                idle.append(int(m.group(1)))
                continue
            if len(cells) >= 3:
                ids = _CHIP_IDS.match(cells[0])
                if ids and cells[1].isdigit():
                    mem = cells[3] if len(cells) > 3 else ""
                    processes.append(NpuProcess(
                        npu_id=int(ids.group(1)), chip_id=int(ids.group(2) or 0), pid=int(cells[1]),
                        name=cells[2], memory_mb=int(mem) if mem.isdigit() else None))
            continue
        if len(cells) < 2:
            continue
        first = _NPU_NAME.match(cells[0])
        second = _CHIP_IDS.match(cells[0])
        if pending is not None and second and len(cells) >= 2 and _BUS_ID.match(cells[1]):
            pending["chip_id"] = int(second.group(1))
            if second.group(2) is not None:
                pending["phy_id"] = int(second.group(2))
            pending["bus_id"] = cells[1]
            rest = cells[2] if len(cells) > 2 else ""
            tokens = rest.split()
            if tokens:
                pending["aicore_pct"] = _num(tokens[0])
            pairs = _PAIR.findall(rest)
            if pairs:
                used, total = pairs[-1]
                pending["hbm_used_mb"], pending["hbm_total_mb"] = int(used), int(total)
            chips.append(NpuChip(**pending))
            pending = None
            continue
        if first and not first.group(2).isdigit():
            flush_incomplete()
            rest = cells[2].split() if len(cells) > 2 else []
            pending = {
                "npu_id": int(first.group(1)),
                "name": first.group(2).strip(),
                "health": cells[1] or "unknown",
                "power_w": _num(rest[0]) if rest else None,
                "temp_c": _num(rest[1]) if len(rest) > 1 else None,
            }
    flush_incomplete()
    if not chips:
        code = dcmi_error(text)
        reason = f"dcmi module initialize failed (ret {code})" if code is not None else "no chip rows"
        raise UnrecognizedOutput("npu-smi info", text, reason)
    for proc in processes:
        for chip in chips:
            if chip.npu_id == proc.npu_id and chip.chip_id == proc.chip_id:
                chip.processes.append(proc)
                break
    return NpuSmiInfo(version=version, chips=chips, processes=processes, idle_npus=idle, truncated=truncated)
