"""`fix_host`: the one choice of where a fix edits files, shared by `pi05-wizard fix` and the TUI's `f`."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from wizard.remedies import load_catalogue
from wizard.remedies.fixes import CONTAINER_FIXES, fix_host

ROOT = Path(__file__).resolve().parent.parent


class _Session(SimpleNamespace):
    """A session stand-in counting how often the container host is asked for."""

    def container_host(self):
        self.asked += 1
        if isinstance(self.container, Exception):
            raise self.container
        return self.container


def _session(root=None, container=None) -> _Session:
    return _Session(host="this-host", root=root, container=container or "the-container", asked=0)


def test_container_fixes_are_catalogued_fixes():
    cat = load_catalogue()
    assert CONTAINER_FIXES and all(rid in cat and cat[rid].fix for rid in CONTAINER_FIXES)


@pytest.mark.parametrize("rid", sorted(CONTAINER_FIXES))
def test_container_side_fixes_use_the_container_on_the_real_machine(rid):
    s = _session()
    assert fix_host(s, rid) == "the-container" and s.asked == 1


def test_a_simulated_root_never_reaches_for_the_container():
    s = _session(root="/tmp/sim")
    assert fix_host(s, "cann-env-not-sourced") == "this-host" and s.asked == 0


def test_host_side_fix_uses_this_host():
    s = _session()
    assert fix_host(s, "shm-too-small") == "this-host" and s.asked == 0


def test_unreachable_container_falls_back_to_this_host():
    s = _session(container=RuntimeError("Error while fetching server API version"))
    assert fix_host(s, "world-size-mismatch") == "this-host" and s.asked == 1
    # A session without a container at all (the TUI's test sessions) also falls back.
    assert fix_host(SimpleNamespace(host="h"), "nnal-missing") == "h"


@pytest.mark.parametrize("path", ["screens/stage.py", "wizard/cli/fix_cmd.py"])
def test_cli_and_tui_import_the_engine_function(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    imports = {(node.module, a.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for a in node.names}
    assert ("wizard.remedies.fixes", "fix_host") in imports
    assert not any(mod == "wizard.cli.fix_cmd" for mod, _ in imports)
