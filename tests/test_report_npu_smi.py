"""`report`'s NPU section: a failing `npu-smi info` shows what it printed (both streams) and its exit code."""

from __future__ import annotations

from checks.host import CommandResult
from wizard.cli.report_cmd import npu_smi_text
from wizard.hosts.local import LocalHost
from wizard.simhost import build_sim_host


def test_dcmi_failure_on_stdout_is_shown(tmp_path):
    root = build_sim_host(tmp_path / "sim", variant="npu-smi-dcmi")
    res = LocalHost(root).run(["npu-smi", "info"], timeout=30)
    text = npu_smi_text(res)
    assert "dcmi module initialize failed. ret is -8005" in text  # case 03, printed on stdout
    assert "exit code 1" in text and "not found" not in text


def test_healthy_npu_smi_is_its_table(tmp_path):
    root = build_sim_host(tmp_path / "sim", variant="healthy")
    res = LocalHost(root).run(["npu-smi", "info"], timeout=30)
    assert res.ok and npu_smi_text(res) == res.stdout and "910B" in res.stdout


def test_other_failures():
    both = npu_smi_text(CommandResult(("npu-smi", "info"), 3, "  out line \n\n", "\n err line  \n"))
    assert both == "npu-smi info failed (exit code 3)\nstdout:\nout line\nstderr:\nerr line"
    assert "not found" in npu_smi_text(CommandResult(("npu-smi",), None, not_found=True))
    assert "timed out" in npu_smi_text(CommandResult(("npu-smi",), None, timed_out=True))
    assert "printed nothing" in npu_smi_text(CommandResult(("npu-smi",), 255))
    huge = npu_smi_text(CommandResult(("npu-smi",), 1, "\x00\xff" * 100_000))
    assert len(huge) < 5000 and huge.endswith(" ...")
