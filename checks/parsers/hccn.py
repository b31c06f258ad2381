"""Provides the parser for `/etc/hccn.conf`, the per-NPU network (RoCE) settings of an Ascend host.

Format (samples `hccn.conf_real_excerpt_and_hccn_tool_ping.txt`, a real excerpt, and
`hccn.conf_910B_A2_TEMPLATE_DERIVED.txt`, derived from ascend-deployer's templates):
`<key>_<npu id>=<value>` lines such as `address_0=29.1.137.205`, `netmask_0=255.255.0.0`,
`netdetect_0=...`, `gateway_0=...`, `send_arp_status_0=1`. Comments (`#`), shell prompts and
other lines are skipped.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from checks.parsers import UnrecognizedOutput

_ENTRY = re.compile(r"^([A-Za-z][A-Za-z0-9_]*?)_(\d+)\s*=\s*(\S*)\s*$")


class HccnConf(BaseModel):
    """Settings per NPU id from hccn.conf."""

    devices: dict[int, dict[str, str]] = Field(default_factory=dict)
    """NPU id -> {key: value}, e.g. {0: {"address": "29.1.137.205", "netmask": "255.255.0.0"}}."""

    @property
    def addresses(self) -> dict[int, str]:
        """NPU id -> IPv4 address (`address_N`), or IPv6 (`IPv6address_N`) when no IPv4 one is set."""
        out: dict[int, str] = {}
        for npu, kv in self.devices.items():
            addr = kv.get("address") or kv.get("IPv6address")
            if addr:
                out[npu] = addr
        return out


def parse_hccn_conf(text: str) -> HccnConf:
    """Parse hccn.conf text.

    Returns:
        An `HccnConf`; an empty or comment-only file gives one with no devices.

    Raises:
        UnrecognizedOutput: the text has content lines but none of them is a `key_N=value` entry.
    """
    if not isinstance(text, str):
        raise UnrecognizedOutput("hccn.conf", "", "not text")
    devices: dict[int, dict[str, str]] = {}
    content = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        content += 1
        m = _ENTRY.match(line)
        if m:
            devices.setdefault(int(m.group(2)), {}).setdefault(m.group(1), m.group(3))
    if content and not devices:
        raise UnrecognizedOutput("hccn.conf", text, "no key_N=value line")
    return HccnConf(devices=dict(sorted(devices.items())))
