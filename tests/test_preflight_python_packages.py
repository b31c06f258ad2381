"""The `python` check inside the container reads torch / torch_npu / numpy / transformers / lerobot.

The fixture host's `python3` prints canned JSON for the `-c` program. That JSON shape is ours
(`checks.python_packages.PROGRAM` prints it), not a captured format; the versions in it are from
the cases (case 01: torch 2.7.1 with torch_npu 2.7.1.dev20251014; case 12: numpy 2.x with CANN).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from checks.context import CheckContext, Requirements
from checks.python_packages import PACKAGES, PROGRAM, package_messages, parse_versions
from checks.result import Level, Status
from checks.system import check_python
from wizard.hosts.local import LocalHost

GOOD = {"torch": "2.7.1", "torch_npu": "2.7.1", "numpy": "1.26.0", "transformers": "4.53.3", "lerobot": "0.4.1"}


def _host(tmp_path, stdout: str, code: int = 0):
    root = tmp_path / "ctr root"
    script = root / "usr/bin/python3"
    script.parent.mkdir(parents=True, exist_ok=True)
    (root / "canned.txt").write_text(stdout)
    script.write_text("#!/bin/sh\n"
                      'if [ "$1" = "--version" ]; then echo "Python 3.10.12"; exit 0; fi\n'
                      f'cat {shlex.quote(str(root / "canned.txt"))}\nexit {code}\n')
    script.chmod(0o755)
    return LocalHost(root)


def _run(tmp_path, versions=None, stdout=None, code=0, inside=True):
    text = stdout if stdout is not None else json.dumps(versions) + "\n"
    ctx = CheckContext(host=_host(tmp_path, text, code), requirements=Requirements(), offline=True,
                       inside_container=inside)
    return check_python(ctx)


def test_pinned_versions_are_ok(tmp_path):
    res = _run(tmp_path, GOOD)
    assert res.status is Status.OK, res.messages
    assert res.details["packages"] == GOOD
    assert "torch 2.7.1" in res.summary and "numpy 1.26.0" in res.summary


def test_case01_dev_torch_npu_warns(tmp_path):
    res = _run(tmp_path, {**GOOD, "torch_npu": "2.7.1.dev20251014"})
    assert res.status is Status.WARN
    (m,) = res.messages
    assert m.level is Level.WARN and "nightly/dev" in m.text and "torch-npu==2.7.1" in m.text


def test_numpy2_with_cann_is_an_error_with_the_remedy(tmp_path):
    res = _run(tmp_path, {**GOOD, "numpy": "2.2.6"})
    assert res.status is Status.FAIL
    (m,) = res.messages
    assert m.level is Level.ERROR and m.remedy == "numpy-conflict" and "numpy < 2" in m.text


@pytest.mark.parametrize("field, value, remedy", [
    ("torch", "2.6.0", None),
    ("torch_npu", "2.6.0.post3", "torch-npu-cann-mismatch"),
    ("torch_npu", "2.8.0.dev20250901", "torch-npu-cann-mismatch"),  # a dev build of another release
    ("torch_npu", "not-a-version", "torch-npu-cann-mismatch"),
])
def test_wrong_pins_are_errors(tmp_path, field, value, remedy):
    res = _run(tmp_path, {**GOOD, field: value})
    assert res.status is Status.FAIL
    (m,) = [x for x in res.messages if x.level is Level.ERROR]
    assert m.remedy == remedy and field in m.text


def test_nothing_installed_yet_is_info_only(tmp_path):
    res = _run(tmp_path, {**GOOD, "torch": None, "torch_npu": None, "transformers": None, "lerobot": None})
    assert res.status is Status.OK
    assert len([m for m in res.messages if m.level is Level.INFO]) == 4


@pytest.mark.parametrize("stdout, code", [
    ("", 0), ('{"torch": "2.7.1"', 0), ("\x00\xff binary", 0), ("Traceback (most recent call last):\n", 1),
    ('{"torch": 2.7}\n', 0), ("x" * 200_000, 0),
], ids=["empty", "truncated", "binary", "traceback", "wrong-type", "huge"])
def test_bad_output_is_a_warning_not_a_traceback(tmp_path, stdout, code):
    res = _run(tmp_path, stdout=stdout, code=code)
    assert res.status is Status.WARN
    assert any("Could not read the installed package versions" in m.text for m in res.messages)


def test_host_side_does_not_ask_for_packages(tmp_path):
    res = _run(tmp_path, {**GOOD, "numpy": "2.2.6"}, inside=False)
    assert res.status is Status.OK and "packages" not in res.details


def test_parse_takes_the_last_json_line():
    text = "sitecustomize says hi\n" + json.dumps(GOOD) + "\n"
    assert parse_versions(text) == GOOD


def test_program_runs_on_this_python():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    versions = parse_versions(out.stdout)
    assert set(versions) == set(PACKAGES)
    assert versions["numpy"] is not None  # numpy is a dependency of this project


def test_messages_without_a_host():
    assert package_messages(GOOD, "2.7.1", "2.7.1") == []
