"""`wizard.preflight_run`: the preflight run the stage and the TUI share (real checks on simulated hosts)."""

from __future__ import annotations

import threading

import pytest

from checks.result import CheckResult, Level, Message, Status
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.preflight_run import preflight_record, run_and_save_preflight, run_preflight
from wizard.recipe import load_recipe
from wizard.session import Session
from wizard.simhost import EXPECTED_PROBLEMS, SIM_CHECK_IDS, SimHostError, build_sim_host
from wizard.state import StageStatus, utcnow


def _session(tmp_path, variant: str) -> Session:
    try:
        root = build_sim_host(tmp_path / "host with spaces", variant)
    except SimHostError as exc:  # no mknod here
        pytest.skip(f"cannot build the simulated host here: {exc}")
    locations = Locations.under(tmp_path)
    return Session(locations=locations, recipe=load_recipe(locations), host=LocalHost(root), root=str(root))


def test_record_of_clean_results_succeeds_without_remedies():
    ok = CheckResult(id="arch", title="Architecture", status=Status.OK, summary="aarch64")
    warn = CheckResult(id="memory", title="Memory", status=Status.WARN, summary="low",
                       messages=[Message(level=Level.WARN, text="only 32 GiB", remedy="low-memory")])
    rec = preflight_record([ok, warn], utcnow(), "local:/sim")
    assert rec.stage_id == "preflight" and rec.status is StageStatus.SUCCEEDED and rec.exit_code == 0
    assert rec.remedies == [] and rec.reason is None and rec.host == "local:/sim" and rec.finished is not None


def test_record_of_problems_fails_naming_them_and_their_remedies_once():
    bad = CheckResult(id="driver", title="Driver", status=Status.FAIL, summary="not mounted",
                      messages=[Message(level=Level.ERROR, text="no driver", remedy="driver-not-mounted")])
    err = CheckResult(id="npu-smi", title="npu-smi", status=Status.ERROR, summary="crashed",
                      messages=[Message(level=Level.ERROR, text="boom", remedy="driver-not-mounted")])
    ok = CheckResult(id="arch", title="Architecture", status=Status.OK, summary="aarch64")
    rec = preflight_record([ok, bad, err], None)
    assert rec.status is StageStatus.FAILED and rec.exit_code == 1
    assert rec.reason == "2 of 3 checks failed: driver, npu-smi"
    assert rec.remedies == ["driver-not-mounted"]


def test_run_and_save_on_a_healthy_sim_host_streams_every_result(tmp_path):
    session = _session(tmp_path, "healthy")
    seen: list[tuple[str, bool]] = []
    main = threading.current_thread()
    results, rec = run_and_save_preflight(session, only=SIM_CHECK_IDS, offline=True,
                                          on_result=lambda r: seen.append((r.id, threading.current_thread() is main)))
    assert [r.id for r in results] == list(SIM_CHECK_IDS)
    assert sorted(cid for cid, _ in seen) == sorted(SIM_CHECK_IDS)
    assert not any(on_main for _, on_main in seen)  # live: each from its check's own thread
    assert rec.status is StageStatus.SUCCEEDED, [(r.id, r.status) for r in results if r.status.is_problem]
    assert session.store.last("preflight") == rec and rec.host == session.host.name


def test_run_and_save_on_a_broken_sim_host_records_the_failure(tmp_path):
    # npu-smi-dcmi: its failure names a remedy (a host without a driver names none: nothing to mount there).
    session = _session(tmp_path, "npu-smi-dcmi")
    results, rec = run_and_save_preflight(session, only=SIM_CHECK_IDS, offline=True)
    failed = [r.id for r in results if r.status.is_problem]
    assert failed == list(EXPECTED_PROBLEMS["npu-smi-dcmi"])
    saved = session.store.last("preflight")
    assert saved.status is StageStatus.FAILED and saved.reason.endswith(": npu-smi")
    assert saved.remedies and saved.remedies == results[[r.id for r in results].index("npu-smi")].remedies


def test_run_preflight_takes_a_stage_context_and_rejects_unknown_ids(tmp_path):
    session = _session(tmp_path, "healthy")
    ctx = session.context({"offline": True})
    assert [r.id for r in run_preflight(ctx, only=["arch"], offline=True)] == ["arch"]
    with pytest.raises(ValueError):
        run_preflight(ctx, only=["no-such-check"])
