"""Every command the wizard prints for the operator to type carries this run's --root/--recipe/--state-dir:
`fix`'s "Then re-run", `check`'s `fix ID` suggestions, the shm fix's manual text, and the TUI's lines
(taken from the session, which keeps the options it was built from)."""

from __future__ import annotations

import argparse
import shlex
from types import SimpleNamespace

import pytest

from tests.remedies_fixtures import write_train_scripts
from wizard import hints
from wizard.cli import main
from wizard.hosts.local import LocalHost
from wizard.locations import Locations


@pytest.fixture(autouse=True)
def _no_remembered_options():
    hints.forget()
    yield
    hints.forget()


def _options_of(line: str, prefix: str) -> list[str]:
    words = shlex.split(line[line.index(prefix) + len(prefix):])
    assert words[0] == "pi05-wizard"
    return words


def test_fix_then_rerun_carries_root_and_state_dir(tmp_path, capsys):
    root = tmp_path / "sim 'host'"
    scripts = write_train_scripts(root)
    state = tmp_path / "state dir"
    assert main(["--root", str(root), "--state-dir", str(state), "fix", "world-size-mismatch"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "Then re-run:" in ln)
    assert _options_of(line, "Then re-run:") == ["pi05-wizard", "--root", str(root), "--state-dir", str(state),
                                                 "run", "train"]


def test_check_suggests_fix_with_options():
    from wizard.cli.check_cmd import remedy_sentence

    assert "`pi05-wizard fix shm-too-small`" in remedy_sentence("shm-too-small")
    hints.remember(argparse.Namespace(root="/tmp/a b", recipe=None, state_dir="/tmp/st"))
    sentence = remedy_sentence("shm-too-small")
    assert f"`{shlex.join(['pi05-wizard', '--root', '/tmp/a b', '--state-dir', '/tmp/st', 'fix', 'shm-too-small'])}`" \
        in sentence, sentence


def test_shm_fix_manual_text_carries_options(tmp_path):
    from wizard.remedies.fixes import FixContext, fix_shm

    hints.remember(argparse.Namespace(root=str(tmp_path / "r"), recipe=None, state_dir=None))
    res = fix_shm(FixContext(host=LocalHost(), locations=Locations.under(tmp_path / "wiz")))
    assert not res.ok and res.rerun == "container"
    assert f"`pi05-wizard --root {tmp_path / 'r'} run container --yes`" in res.message


def test_session_keeps_its_options_and_the_app_uses_them(tmp_path):
    from screens.app import make_app
    from wizard.session import Session

    args = argparse.Namespace(root=str(tmp_path / "my root"), recipe=None, state_dir=str(tmp_path / "st"))
    session = Session.from_args(args)
    expected = shlex.join(["pi05-wizard", "--root", str(tmp_path / "my root"), "--state-dir", str(tmp_path / "st"),
                           "fix", "npu-oom"])
    assert session.command("fix", "npu-oom") == expected
    assert make_app(session, stages=[], welcome=False).command("fix", "npu-oom") == expected
    # A session-shaped object without `command` falls back to the remembered options.
    bare = SimpleNamespace(locations=Locations.under(tmp_path / "b"), demo=False)
    assert make_app(bare, stages=[], welcome=False).command("run", "x") == "pi05-wizard run x"


def test_failure_view_fills_the_fix_command(tmp_path):
    from screens.widgets.failure import failure_lines

    remedy = SimpleNamespace(id="shm-too-small", title="Shared memory too small", explanation="why",
                             instructions="run `pi05-wizard fix shm-too-small` now", fix=None)
    other = SimpleNamespace(id="npu-oom", title="Out of NPU memory", explanation="", instructions="", fix=None)
    catalogue = {"shm-too-small": remedy, "npu-oom": other}
    matches = [SimpleNamespace(id="shm-too-small", severity="error", line=""),
               SimpleNamespace(id="npu-oom", severity="error", line="")]

    def command(*words: str) -> str:
        return shlex.join(["pi05-wizard", "--root", "/r x", *words])

    text = "\n".join(t.plain for t in failure_lines(None, None, matches, catalogue, False, [], command=command))
    assert "pi05-wizard --root '/r x' fix shm-too-small" in text
    assert "(pi05-wizard --root '/r x' explain npu-oom)" in text
    assert "`pi05-wizard fix" not in text


def test_fill_leaves_other_text_alone():
    assert hints.fill("nothing here", "fix", "x") == "nothing here"
    hints.remember(argparse.Namespace(root="/r", recipe=None, state_dir=None))
    assert hints.fill("a `pi05-wizard fix x` b", "fix", "x") == "a `pi05-wizard --root /r fix x` b"
