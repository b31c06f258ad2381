"""`pi05-wizard explain` as text: the fix command named once, with the global options; the paste prompt."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from wizard import hints
from wizard.cli import main
from wizard.cli.explain_cmd import fix_text

CASES = Path("/work/shared/cases")


def test_fix_command_named_once_per_match_on_every_case(tmp_path, capsys, monkeypatch):
    hints.forget()
    monkeypatch.setenv("COLUMNS", "4000")  # one line per printed line, so a command is not split
    seen = 0
    for case in sorted(CASES.glob("*.txt")):
        main(["--root", str(tmp_path / "sim host"), "explain", str(case)])
        out = capsys.readouterr().out
        for block in re.split(r"\n(?=(?:ERROR|WARN |INFO ) )", out):
            rid = block.split()[1]
            if f"fix {rid}" in block:
                assert block.count(f"fix {rid}") == 1, (case.name, block)
                assert f"--root '{tmp_path / 'sim host'}' fix {rid}" in block, (case.name, block)
                seen += 1
    assert seen >= 5  # the cases do exercise fixable remedies


def test_fix_text_rewrites_or_appends():
    hints.forget()
    assert fix_text("Run `pi05-wizard fix a-b` now.", "a-b", True).count("fix a-b") == 1
    assert fix_text("Do it by hand.", "a-b", True).endswith("(pi05-wizard fix a-b)")
    assert fix_text("Do it by hand.", "a-b", False) == "Do it by hand."


class _Stdin(io.TextIOWrapper):
    def __init__(self, data: bytes, tty: bool):
        super().__init__(io.BytesIO(data))
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_paste_prompt_only_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _Stdin(b"error: patch failed: a.py:3\n", tty=True))
    assert main(["explain", "-"]) == 1
    err = capsys.readouterr().err
    assert err == "Paste the log or error text, then press Ctrl-D\n"
    monkeypatch.setattr(sys, "stdin", _Stdin(b"error: patch failed: a.py:3\n", tty=False))
    assert main(["explain", "-"]) == 1
    assert capsys.readouterr().err == ""
