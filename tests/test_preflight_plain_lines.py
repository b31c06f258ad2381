"""Every check's summary and message is one plain line without raw Python reprs, on hostile host output."""

from __future__ import annotations

import pytest

from checks.common import one_line, quoted
from checks.context import CheckContext, Requirements
from checks.registry import run_checks
from tests.preflight_fixtures import FakeHost, ran
from tests.test_preflight_docker import AMD64, _Client


def test_one_line_and_quoted():
    assert one_line("a\n b\x00\tc\ufffd") == "a b c"
    assert len(one_line("x" * 500)) == 160 and one_line("x" * 500).endswith("…")
    assert quoted("0,1\n2") == '"0,1 2"'


HOSTILE = ["", "\x00\xff\x01binary", "line one\nline two\r\n\tthree", "x" * 5000]


@pytest.mark.parametrize("out", HOSTILE)
def test_every_summary_is_one_plain_line_on_hostile_output(out):
    host = FakeHost(commands={name: ran(out) for name in ("npu-smi", "uname", "python3", "msnpureport")},
                    files={"/etc/hccn.conf": out, "/proc/meminfo": out,
                           "/usr/local/Ascend/driver/version.info": out,
                           "/usr/local/Ascend/ascend-toolkit/latest/version.cfg": out},
                    env={"ASCEND_RT_VISIBLE_DEVICES": out})
    for inside in (False, True):
        ctx = CheckContext(host=host, requirements=Requirements(), offline=True, inside_container=inside,
                           docker_client=lambda: _Client(AMD64))
        for r in run_checks(ctx, timeout_s=10):
            assert r.summary and r.summary == one_line(r.summary), (r.id, r.summary)
            assert "\\x" not in r.summary and "Error(" not in r.summary and "'" not in r.summary, (r.id, r.summary)
            assert all("\\x" not in m.text and "\n" not in m.text for m in r.messages), r.id
