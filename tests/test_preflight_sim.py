"""Every simulated host variant gives the right verdict, in-process and through `pi05-wizard check [--json]`;
and `pi05-wizard check` on this real machine finishes, fails the NPU checks in plain words and exits 1.

Sim hosts need root (os.mknod for the device nodes, mount for tiny-shm's tmpfs); where that is not
permitted the builder raises SimHostError and these tests skip with its reason.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checks.context import CheckContext, Requirements
from checks.registry import run_checks
from checks.result import Status
from tests.preflight_fixtures import make_sim  # noqa: F401  (fixture)
from wizard.hosts.local import LocalHost
from wizard.simhost import EXPECTED_PROBLEMS, SIM_CHECK_IDS, VARIANTS, build_sim_host

REPO = Path(__file__).resolve().parents[1]


def cli(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "ASCEND_RT_VISIBLE_DEVICES"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def problems(results) -> dict[str, str]:
    return {r["id"]: r["status"] for r in results if r["status"] not in ("ok", "skip")}


@pytest.fixture(autouse=True)
def _no_visible_devices(monkeypatch):
    monkeypatch.delenv("ASCEND_RT_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)


def test_variants_are_documented():
    import wizard.simhost as sim

    assert set(EXPECTED_PROBLEMS) == set(VARIANTS)
    for v in VARIANTS:
        assert f"`{v}`" in sim.__doc__
    with pytest.raises(ValueError, match="unknown sim host variant"):
        build_sim_host("/nonexistent-never-created", "nope")


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_verdict_in_process(make_sim, variant):
    if variant == "x86-no-qemu" and shutil.which("qemu-aarch64-static"):
        pytest.skip("this machine has qemu-aarch64-static on PATH, which the rooted host also finds")
    root = make_sim(variant)
    ctx = CheckContext.for_host(LocalHost(root), Requirements(command_timeout_s=1.0), offline=True)
    res = run_checks(ctx, only=SIM_CHECK_IDS, timeout_s=3.0)
    got = {r.id: r.status.value for r in res if r.status not in (Status.OK, Status.SKIP)}
    assert got == EXPECTED_PROBLEMS[variant], [(r.id, r.summary, [m.text for m in r.messages]) for r in res]
    assert ctx.inside_container is (variant == "tiny-shm")


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_verdict_via_cli_json(make_sim, variant, tmp_path):
    if variant == "x86-no-qemu" and shutil.which("qemu-aarch64-static"):
        pytest.skip("this machine has qemu-aarch64-static on PATH, which the rooted host also finds")
    root = make_sim(variant)
    proc = cli("--root", str(root), "--state-dir", str(tmp_path / "state"), "check", "--json", "--offline",
               "--only", ",".join(SIM_CHECK_IDS))
    want_fail = any(s == "fail" for s in EXPECTED_PROBLEMS[variant].values())
    assert proc.returncode == (1 if want_fail else 0), proc.stderr
    doc = json.loads(proc.stdout)
    assert [r["id"] for r in doc["results"]] == list(SIM_CHECK_IDS)
    assert problems(doc["results"]) == EXPECTED_PROBLEMS[variant]
    assert doc["ok"] is not want_fail and doc["exit_code"] == proc.returncode
    for r in doc["results"]:
        assert set(r) >= {"id", "status", "summary", "messages", "duration_s"}
        for m in r["messages"]:
            assert set(m) >= {"level", "text", "remedy"}


@pytest.mark.parametrize("variant, needle", [
    ("healthy", "✓  npu-smi"), ("npu-smi-busy", "fix npu-device-busy`"),
    ("cann-81-still-running", "CANN 8.1.RC1 is running"), ("tiny-shm", "fix shm-too-small`"),
])
def test_variant_table(make_sim, variant, needle, tmp_path):
    root = make_sim(variant)
    proc = cli("--root", str(root), "--state-dir", str(tmp_path / "s"), "check", "--offline",
               "--only", *SIM_CHECK_IDS, env={"NO_COLOR": "1", "FORCE_COLOR": "1", "COLUMNS": "200"})
    assert needle in proc.stdout or needle in " ".join(proc.stdout.split()), proc.stdout  # long paths wrap
    if "fix" in needle:  # the suggested command carries this run's --root and --state-dir, ready to paste
        assert "`pi05-wizard --root " in proc.stdout and "--state-dir" in proc.stdout, proc.stdout
    assert "\x1b[" not in proc.stdout  # NO_COLOR wins over FORCE_COLOR
    assert proc.stdout.strip().splitlines()[-1].endswith(" s") and " ok, " in proc.stdout


def test_hung_npu_smi_does_not_stretch_the_run(make_sim, tmp_path):
    root = make_sim("npu-smi-hangs")
    proc = cli("--root", str(root), "--state-dir", str(tmp_path / "s"), "check", "--json", "--offline",
               "--timeout", "6", "--only", "npu-smi", "devices")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and doc["results"][1]["status"] == "fail"
    assert "did not answer within 5 s" in doc["results"][1]["messages"][0]["text"]
    assert doc["duration_s"] < 6 + 0.5


def test_usage_errors_exit_2(tmp_path):
    assert cli("--state-dir", str(tmp_path), "check", "--only", "nope").returncode == 2
    assert cli("--state-dir", str(tmp_path), "check", "--timeout", "0").returncode == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[target]\nnpu_count = 'many'\n")
    proc = cli("--state-dir", str(tmp_path), "--recipe", str(bad), "check", "--only", "arch")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.skipif(platform.machine() != "x86_64", reason="asserts what this x86_64 development machine lacks")
def test_real_machine_fails_npu_checks_plainly(tmp_path):
    if Path("/dev/davinci0").exists():
        pytest.skip("this machine has an NPU")
    proc = cli("--state-dir", str(tmp_path / "state"), "check", "--json", "--offline")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    by_id = {r["id"]: r for r in doc["results"]}
    assert len(by_id) == 18 and by_id["network"]["status"] == "skip"
    for cid in ("devices", "driver", "npu-smi"):
        assert by_id[cid]["status"] == "fail", by_id[cid]
        text = " ".join(m["text"] for m in by_id[cid]["messages"])
        assert text and "Traceback" not in text
    assert "No /dev/davinciN device nodes" in by_id["devices"]["messages"][0]["text"]
    assert by_id["arch"]["status"] in ("fail", "warn")
    assert "Traceback" not in proc.stderr
    table = cli("--state-dir", str(tmp_path / "state"), "check", "--offline")
    assert table.returncode == 1 and "✗" in table.stdout and "npu-smi not found" in table.stdout
