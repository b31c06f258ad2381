"""`explain`, `fix` and `report` through the real CLI entry point."""

from __future__ import annotations

import json

import pytest

from tests.remedies_fixtures import TRAIN_SCRIPT, raw_text, write_train_scripts
from wizard.cli import main
from wizard.cli.report_cmd import redact


def test_explain_exit_codes_and_json(tmp_path, capsys):
    bad = tmp_path / "bad.log"
    bad.write_text(raw_text("07-torch-npu-import-libhccl-missing-set-env-not-sourced.txt"))
    good = tmp_path / "good.log"
    good.write_text(raw_text("27-lerobot-pi05-train-log-lines.txt"))
    info = tmp_path / "info.log"
    info.write_text("WARNING deo_utils.py:40 'torchcodec' is not available in your platform, falling back to 'pyav'\n")
    assert main(["explain", str(bad)]) == 1
    assert "cann-env-not-sourced" in capsys.readouterr().out
    assert main(["explain", str(good)]) == 0
    assert "No known problem" in capsys.readouterr().out
    assert main(["explain", str(info), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["id"] for m in doc["matches"]] == ["torchcodec-fallback"] and doc["error"] is False
    assert main(["explain", str(tmp_path / "missing.log")]) == 2


def test_explain_stdin(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"error: patch failed: a.py:3\n\xff\xfe")))
    assert main(["explain", "-", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["matches"][0]["id"] == "patch-does-not-apply"


def test_fix_world_size_from_cli_under_root(tmp_path, capsys):
    root = tmp_path / "root"
    scripts = write_train_scripts(root)
    args = ["--root", str(root), "--state-dir", str(tmp_path / "state"), "fix", "world-size-mismatch"]
    assert main(args) == 0
    assert "world_size=8\n" in (scripts / "train_full.sh").read_text()
    assert main(args + ["--revert"]) == 0
    assert (scripts / "train_full.sh").read_text() == TRAIN_SCRIPT
    assert main(["--root", str(root), "--state-dir", str(tmp_path / "state"), "fix", "nope"]) == 2
    assert main(["--root", str(root), "--state-dir", str(tmp_path / "state"), "fix", "npu-oom"]) == 1
    assert "batch_size" in capsys.readouterr().out


def test_redaction():
    text = ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwx\nexport MY_PASSWORD='s3cret pass'\n"
            "git clone https://bob:ghp_123@github.com/x\nAuthorization: Bearer abc.def\n"
            "token seen hf_ZZZZZZZZZZZZZZZZZZZZ in log\n[alice@node-17 ~]$ ls /home/alice/data\n/root/lerobot ok\n")
    out = redact(text, users=("alice",), hosts=("node-17",))
    for secret in ("hf_abc", "s3cret", "ghp_123", "abc.def", "hf_ZZZ", "alice", "node-17"):
        assert secret not in out
    assert "/root/lerobot ok" in out and "[<user>@<host> ~]$" in out and "HF_TOKEN=<redacted>" in out
    kept = redact(text, names=False, users=("alice",), hosts=("node-17",))
    assert "alice" in kept and "node-17" in kept and "hf_abc" not in kept


def test_report_on_simulated_host(tmp_path, capsys):
    from wizard.simhost import build_sim_host

    sim = build_sim_host(tmp_path / "sim")
    out = tmp_path / "report.md"
    state = tmp_path / "state"
    log = state / "logs" / "torch.log"
    log.parent.mkdir(parents=True)
    log.write_text("out ImportError: libhccl.so: cannot open shared object file\nout HF_TOKEN=hf_secretsecretsecret12\n")
    from wizard.locations import Locations
    from wizard.state import StageRecord, StageStatus, StateStore

    StateStore(Locations.default(state_dir=state)).save(StageRecord(
        stage_id="torch", status=StageStatus.FAILED, log_path=str(log), remedies=["cann-env-not-sourced"]))
    assert main(["--root", str(sim), "--state-dir", str(state), "report", "--output", str(out)]) == 0
    text = out.read_text()
    for part in ("# pi05-wizard report", "## Host", "npu-smi", "## Preflight checks", "| torch | failed",
                 "`cann-env-not-sourced`", "HF_TOKEN=<redacted>"):
        assert part in text, part
    assert "hf_secretsecret" not in text
