"""The runner's batch fast path: `TextBatch`, `LineMatcher`'s prefilter, `LogFileSink`'s writes, greedy pipe reads.

Each optimised path is checked against the plain per-line reference it replaces.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from wizard.events import Line
from wizard.sinks import LineMatcher, LogFileSink, _guards
from wizard.streaming import CHUNK, LineSplitter, TextBatch, read_pipes

TAG = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} (out |err |wiz |out~|err~) ")

PATTERNS = [
    ("no-module", r"No module named '([\w.]+)'"),
    ("oom", r"out of memory|OOM"),
    ("hccl", r"HCCL.*(timeout|error)"),
    ("pip", r"^ERROR: pip's dependency resolver"),
    ("killed", r"\bKilled\b"),
    ("icase", re.compile(r"segmentation fault", re.IGNORECASE)),
    ("icase-k", re.compile(r"kill", re.IGNORECASE)),
    ("percent", r"(\d+)%$"),  # no literal: searched whole
    ("same-line-twice", r"OOM.*OOM"),
]

LINES = [
    "00000001 INFO step=1 loss=0.5",
    "ERROR: No module named 'torch_npu'",
    "RuntimeError: NPU out of memory. OOM while allocating",
    "HCCL init ok",  # hint present, regex fails
    "HCCL op timeout on rank 3",
    "  ERROR: pip's dependency resolver does not ...",  # ^ anchor: no match
    "ERROR: pip's dependency resolver does not currently take into account",
    "Killed",
    "Unkilled process",
    "SEGMENTATION FAULT (core dumped)",
    "\u212aILL -9 sent",  # the Kelvin sign lower-cases to k
    "download 42%",
    "OOM then OOM again",
    "",
    "résumé: Killed while saving",
]


def reference(texts: list[str]) -> list[tuple[str, str, str]]:
    """Per-line matching, the semantics `LineMatcher` promises: (id, line, matched text) in line order."""
    out = []
    for text in texts:
        for pid, rx in PATTERNS:
            m = re.compile(rx).search(text) if isinstance(rx, str) else rx.search(text)
            if m is not None:
                out.append((pid, text, m.group(0)))
    return out


def got(matcher: LineMatcher) -> list[tuple[str, str, str]]:
    return [(m.id, m.line.text, m.match) for m in matcher.matches]


@pytest.mark.parametrize("ascii_only", [True, False])
def test_matcher_batch_equals_per_line_reference(ascii_only):
    texts = [t for t in LINES if t.isascii()] if ascii_only else LINES
    expected = reference(texts)
    assert {e[0] for e in expected} >= {"no-module", "oom", "hccl", "pip", "killed", "icase", "percent"}
    for batch in (TextBatch("\n".join(texts)), list(texts)):
        m = LineMatcher(PATTERNS)
        m.line_batch(batch, "stdout", 1.0, 0, False)
        assert got(m) == expected, type(batch)
    one = LineMatcher(PATTERNS)  # and line by line through the per-line API
    for t in texts:
        one.line(Line(t, "stderr", 1.0, 0, False))
    assert got(one) == expected
    if not ascii_only:
        assert ("icase-k", "\u212aILL -9 sent", "\u212aILL") in expected


def test_matcher_hits_keep_time_step_stream_and_skip_progress_and_wizard():
    m = LineMatcher({"killed": r"\bKilled\b"})
    m.line_batch(TextBatch("x\nKilled"), "stderr", 12.5, 3, False)
    m.line_batch(["Killed"], "stdout", 13.0, 3, True)  # a progress update: not matched
    m.line_batch(["Killed"], "wizard", 13.0, 3, False)  # the wizard's own line: not matched
    [hit] = m.matches
    assert hit.line == Line("Killed", "stderr", 12.5, 3, False)
    assert m.ids == ["killed"]


def test_matcher_hostile_batches():
    m = LineMatcher(PATTERNS)
    for batch in ([], [""], TextBatch(""), ["\x00\xff" * 10_000], TextBatch("a\r\n" * 3)):
        m.line_batch(batch, "stdout", 0.0, 0, False)
    assert m.matches == []
    huge = TextBatch("OOM " * 250_000)  # one 1 MB line full of hits
    m.line_batch(huge, "stdout", 0.0, 0, False)
    assert got(m) == [("oom", huge[0], "OOM"), ("same-line-twice", huge[0], huge[0][:-1])]


def test_guards_are_characters_of_the_hint():
    assert _guards("OOM", False) == ["M", "O"]
    assert all(len(g) == 1 and g in "No module named '" for g in _guards("No module named '", False))
    assert _guards("killed", True)[0] == "kK"  # both cases for IGNORECASE
    assert _guards("é", True) == []  # non-ASCII letters are never guards for IGNORECASE


def test_text_batch_is_the_split_list_with_its_blob():
    [(texts, progress)] = LineSplitter().feed(b"a\nb\xc3\xa9\n\nc\npartial")
    assert isinstance(texts, TextBatch) and not progress
    assert texts == ["a", "b\u00e9", "", "c"] and texts.blob == "\n".join(texts)


def test_log_file_sink_writes_each_line_with_time_and_tag(tmp_path):
    path = tmp_path / "logs" / "run.log"
    sink = LogFileSink(path, progress_interval_s=10.0)
    sink.line_batch(TextBatch("one\ntwo"), "stdout", 1.0, 0, False)
    sink.line_batch(["bad \udcff surrogate"], "stderr", 1.0, 0, False)
    sink.line_batch(["50%", "60%"], "stdout", 20.0, 0, True)
    sink.line_batch(["70%"], "stdout", 21.0, 0, True)  # held back (rate limit) ...
    sink.line(Line("done", "stdout", 22.0, 0, False))  # ... written before the next normal line
    sink.close()
    sink.close()
    raw = path.read_bytes()
    lines = raw.decode("utf-8").splitlines()
    assert all(TAG.match(x) for x in lines), lines
    assert [x[24:] for x in lines] == ["out  one", "out  two", "err  bad ? surrogate", "out~ 60%",
                                       "out~ 70%", "out  done"]
    assert raw.endswith(b"\n")
    LogFileSink(path).close()  # appends, never truncates
    assert path.read_bytes() == raw


def test_read_pipes_greedy_reads_serve_both_streams_and_lose_nothing():
    code = ("import sys, os\n"
            "blob = b'x' * 4096 + b'\\n'\n"
            "for i in range(600):\n"
            "    os.write(1, blob)\n"
            "    if i % 100 == 0: os.write(2, b'err %d\\n' % i)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fds = {os.dup(proc.stdout.fileno()): "stdout", os.dup(proc.stderr.fileno()): "stderr"}
    proc.stdout.close()
    proc.stderr.close()
    got_bytes = {"stdout": 0, "stderr": b""}
    biggest = 0
    for item in read_pipes(fds, tick_s=0.05):
        if item is None:
            continue
        name, chunk = item
        biggest = max(biggest, len(chunk))
        if name == "stdout":
            got_bytes["stdout"] += len(chunk)
        else:
            got_bytes["stderr"] += chunk
    assert proc.wait(10) == 0
    assert got_bytes["stdout"] == 600 * 4097
    assert got_bytes["stderr"] == b"".join(b"err %d\n" % i for i in range(0, 600, 100))
    assert biggest <= CHUNK
