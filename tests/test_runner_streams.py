"""The runner with real child processes: both streams, volume, partial lines, progress, exit codes, sinks."""

from __future__ import annotations

import re

from checks.result import CheckResult, Status
from runner_fixtures import Collect, py, run, stage
from wizard.sinks import LineMatcher
from wizard.stages.base import Step
from wizard.state import StageStatus

TAG = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} (out |err |wiz |out~|err~) ")


def test_both_streams_partial_line_and_log(tmp_path):
    code = ("import sys\n"
            "for i in range(3):\n"
            "    print('out', i, flush=True); print('err', i, file=sys.stderr, flush=True)\n"
            "sys.stdout.write('no newline at the end'); sys.stderr.write('err tail')")
    sink = Collect()
    rec, store = run(tmp_path, stage(py(code)), [sink])
    assert rec.status is StageStatus.SUCCEEDED and rec.exit_code == 0 and rec.failed_step is None
    assert sink.texts("stdout") == ["out 0", "out 1", "out 2", "no newline at the end"]
    assert sink.texts("stderr") == ["err 0", "err 1", "err 2", "err tail"]
    assert all(ln.step == 0 for ln in sink.lines if ln.stream != "wizard" or ln.text.startswith("▶"))
    wiz = sink.texts("wizard")
    assert wiz[1] == "▶ [1/1] python child" and wiz[2].startswith("$ ")
    assert wiz[-1].startswith("✓ stage demo succeeded")
    kinds = [e[0] for e in sink.events]
    assert kinds == ["stage_started", "step_started", "step_finished", "stage_finished", "close"]
    assert sink.events[-2] == ("stage_finished", "demo", "succeeded")
    log = open(rec.log_path, encoding="utf-8").read().splitlines()
    assert all(TAG.match(x) for x in log), log
    assert any(x.endswith("out  no newline at the end") for x in log)
    assert any(x.endswith("err  err tail") for x in log)
    assert store.last("demo") == rec


def test_two_hundred_thousand_lines_in_order(tmp_path):
    n = 200_000
    code = ("import sys\nw=sys.stdout.write\nfor i in range(%d): w(f'line {i}\\n')\n"
            "sys.stderr.write('x' * 3000000)") % n  # plus one 3 MB line without a newline

    class Count(Collect):
        def line(self, line):
            if line.stream == "stdout":
                if self.lines:
                    assert line.text == f"line {int(self.lines[-1].text.split()[1]) + 1}"
                self.lines[:] = [line]
                self.n = getattr(self, "n", 0) + 1
            elif line.stream == "stderr":
                self.err = getattr(self, "err", 0) + len(line.text)

    sink = Count()
    rec, _ = run(tmp_path, stage(py(code)), [sink])
    assert rec.status is StageStatus.SUCCEEDED
    assert sink.n == n and sink.lines[-1].text == f"line {n - 1}"
    assert sink.err == 3_000_000  # cut into pieces of at most 1 MiB, nothing lost
    with open(rec.log_path, encoding="utf-8") as fh:
        assert sum(1 for x in fh if " out  line " in x) == n


def test_carriage_return_progress(tmp_path):
    code = ("import sys,time\n"
            "for p in range(0, 101, 1):\n"
            "    sys.stdout.write(f'\\rDownloading {p}%'); sys.stdout.flush()\n"
            "sys.stdout.write('\\n'); print('Installed')\n"
            "sys.stdout.write('a\\r\\nb\\r\\n')")  # CRLF lines are plain lines
    sink = Collect()
    rec, _ = run(tmp_path, stage(py(code)), [sink])
    assert rec.status is StageStatus.SUCCEEDED
    prog = sink.texts("stdout", progress=True)
    assert prog and all(t.startswith("Downloading ") for t in prog) and "\r" not in "".join(prog)
    assert sink.texts("stdout") == ["Downloading 100%", "Installed", "a", "b"]
    log = open(rec.log_path, encoding="utf-8").read()
    assert "\r" not in log
    # Rate-limited: far fewer progress lines in the log than updates sent.
    assert log.count(" out~ ") <= 5 and "out  Downloading 100%" in log


def test_nonzero_exit_stops_the_stage(tmp_path):
    sink = Collect()
    third = py("print('never')", title="never runs")
    rec, store = run(tmp_path, stage(py("print('ok')"), py("import sys; print('boom', file=sys.stderr); sys.exit(7)",
                                                         title="fails"), third), [sink])
    assert rec.status is StageStatus.FAILED and rec.exit_code == 7
    assert rec.failed_step.index == 1 and rec.failed_step.title == "fails"
    assert rec.reason == "exit code 7"
    assert "never" not in sink.texts("stdout")
    assert any(t.startswith('✗ stage demo failed at step 2 "fails"') for t in sink.texts("wizard"))
    assert store.last("demo").status is StageStatus.FAILED


def test_missing_executable_and_broken_action(tmp_path):
    rec, _ = run(tmp_path, stage(Step("no tool", argv=["/definitely/not/here", "x"])))
    assert rec.status is StageStatus.FAILED and "not found" in rec.reason

    def crash(ctx, io):
        io.emit("about to fail")
        raise RuntimeError("kaput")

    sink = Collect()
    rec, _ = run(tmp_path, stage(Step("action", action=crash)), [sink])
    assert rec.status is StageStatus.FAILED and rec.reason == "unexpected error: kaput"
    assert sink.texts("stdout") == ["about to fail"] and sink.texts("stderr") == ["unexpected error: kaput"]


def test_action_step_emits_and_succeeds(tmp_path):
    def act(ctx, io):
        io.emit("line one\nline two")
        io.emit("50%", progress=True)
        io.emit("warned", stream="stderr")
        return 0

    sink = Collect()
    rec, _ = run(tmp_path, stage(Step("act", action=act, describe="python: act()")), [sink])
    assert rec.status is StageStatus.SUCCEEDED and rec.exit_code == 0  # an action's return value is its exit code
    assert sink.texts("stdout") == ["line one", "line two"] and sink.texts("stdout", True) == ["50%"]
    assert "$ python: act()" in sink.texts("wizard")


def test_done_skips_unless_forced_and_skip_if(tmp_path):
    ran = []
    st = stage(Step("a", action=lambda c, io: ran.append("a") or 0),
               Step("b", action=lambda c, io: ran.append("b") or 0, skip_if=lambda c: True), done=lambda c: True)
    rec, _ = run(tmp_path, st)
    assert rec.status is StageStatus.SKIPPED and ran == [] and "already done" in rec.reason
    rec, _ = run(tmp_path, st, force=True)
    assert rec.status is StageStatus.SUCCEEDED and ran == ["a"]

    def bad_probe(ctx):
        raise OSError("probe broke")

    rec, _ = run(tmp_path, stage(py("pass"), done=bad_probe))
    assert rec.status is StageStatus.SUCCEEDED  # a broken probe means "not done": run it


def test_verify_failure_fails_the_stage(tmp_path):
    def verify(ctx):
        return [CheckResult(id="torch-npu", title="torch_npu imports", status=Status.FAIL,
                            summary="import torch_npu failed"),
                CheckResult(id="other", title="x", status=Status.OK, summary="fine")]

    sink = Collect()
    rec, _ = run(tmp_path, stage(py("pass"), verify=verify), [sink])
    assert rec.status is StageStatus.FAILED and rec.reason == "verify: torch-npu fail"
    assert rec.failed_step is None and rec.exit_code == 0
    assert "✗ torch-npu: import torch_npu failed" in sink.texts("wizard")
    rec, _ = run(tmp_path, stage(py("pass"), verify=lambda c: 1 / 0))
    assert rec.status is StageStatus.FAILED and rec.reason == "verify could not run: unexpected error: division by zero"


def test_line_matcher_records_remedies(tmp_path):
    code = ("import sys\nprint('Collecting torch')\nprint(\"ModuleNotFoundError: No module named 'torch_npu'\")\n"
            "for i in range(5000): print('noise', i)\n"
            "print('ERROR: out of memory', file=sys.stderr)\nprint('Killed', file=sys.stderr)")
    matcher = LineMatcher({"no-module": r"No module named '([\w.]+)'", "oom": r"out of memory|OOM",
                           "killed": r"^Killed$", "never": r"\bHCCL\b"})

    class Sub(LineMatcher):  # overrides line(): must get Lines, wizard ones included
        def __init__(self):
            super().__init__()
            self.seen = []

        def line(self, line):
            self.seen.append(line.stream)

    sub = Sub()
    rec, _ = run(tmp_path, stage(py(code)), [matcher, sub])
    assert matcher.ids == ["no-module", "oom", "killed"]
    assert rec.remedies == ["no-module", "oom", "killed"]
    first = matcher.matches[0]
    assert first.line.text.endswith("'torch_npu'") and first.match == "No module named 'torch_npu'"
    assert first.line.stream == "stdout" and matcher.matches[1].line.stream == "stderr"
    assert sub.seen.count("stdout") == 5002 and "wizard" in sub.seen


def test_a_broken_sink_is_dropped_not_fatal(tmp_path):
    class Broken(Collect):
        def line(self, line):
            raise ValueError("sink bug")

    good = Collect()
    rec, _ = run(tmp_path, stage(py("print('hello')")), [Broken(), good])
    assert rec.status is StageStatus.SUCCEEDED
    assert "hello" in good.texts("stdout")
    assert any("a sink failed and was dropped: Broken: ValueError: sink bug" in t for t in good.texts("wizard"))
