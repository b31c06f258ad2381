"""Every remedy id the code names exists in the catalogue (so code and catalogue cannot drift apart).

The scan reads the source of `checks/`, `wizard/` and `screens/` with `ast` and collects ids from:
`remedy="..."` keywords (also through a module constant or either branch of `a if c else b`),
the message helpers `info/warn/error(text, "id")`, module constants named `REMEDY_*`,
`[remedy: id]` markers inside strings, and comparisons with a variable named `remedy_id`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from wizard.remedies.catalogue import load_catalogue

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("checks", "wizard", "screens")
MARKER = "[remedy: "


def _strings(node: ast.AST, consts: dict[str, str]) -> list[str]:
    """String values an expression can take: a constant, a known module constant, or IfExp branches."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in consts:
        return [consts[node.id]]
    if isinstance(node, ast.IfExp):
        return _strings(node.body, consts) + _strings(node.orelse, consts)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e, consts)]
    return []


def referenced_ids(source: str) -> set[str]:
    """Remedy ids named in one module's source (see the module docstring for the forms)."""
    tree = ast.parse(source)
    consts: dict[str, str] = {}
    ids: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    consts[t.id] = node.value.value
                    if t.id.startswith("REMEDY_"):
                        ids.add(node.value.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "remedy":
                    ids.update(_strings(kw.value, consts))
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name in ("info", "warn", "error") and len(node.args) >= 2:
                ids.update(_strings(node.args[1], consts))
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "remedy_id":
            for c in node.comparators:
                ids.update(_strings(c, consts))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MARKER in node.value:
            for part in node.value.split(MARKER)[1:]:
                rid = part.split("]", 1)[0]
                if rid and "{" not in rid:
                    ids.add(rid)
    return ids


def _all_references() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for rid in referenced_ids(path.read_text(encoding="utf-8")):
                found.setdefault(rid, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_referenced_remedy_id_is_catalogued():
    catalogue = load_catalogue()
    refs = _all_references()
    missing = {rid: sorted(where) for rid, where in refs.items() if rid not in catalogue}
    assert missing == {}
    # the scan really sees the code: the container package's and the checks' ids are among them
    assert {"image-not-found", "registry-unreachable", "container-drift", "exec-format-error",
            "shm-too-small", "driver-not-mounted", "numpy-conflict"} <= set(refs)


def test_scanner_finds_every_form_and_ignores_other_strings():
    source = '''
REMEDY_A = "a-one"
OTHER = "b-two"
def f(x):
    Message(level=1, text="t", remedy=OTHER)
    Message(level=1, text="t", remedy="c-three" if x else REMEDY_A)
    warn("text", "d-four")
    emit(f"[remedy: e-five] and [remedy: {x}]")
    if remedy_id == "f-six" or remedy_id in ("g-seven", "h-eight"):
        pass
    unrelated("i-nine", label="j-ten")
'''
    assert referenced_ids(source) == {"a-one", "b-two", "c-three", "d-four", "e-five", "f-six", "g-seven", "h-eight"}


def test_a_missing_id_is_reported():
    catalogue = load_catalogue()
    ids = referenced_ids('Message(level=1, text="t", remedy="no-such-remedy")')
    assert [i for i in ids if i not in catalogue] == ["no-such-remedy"]


def test_catalogue_check_and_stage_ids_match_the_registries():
    from checks.registry import CHECKS
    from wizard.remedies.catalogue import CHECK_IDS, STAGE_IDS
    from wizard.stages.registry import STAGE_IDS as STAGES

    assert CHECK_IDS == {c.id for c in CHECKS}
    assert STAGE_IDS == set(STAGES)
