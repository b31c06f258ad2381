"""`pi05-wizard simulate DIR`: a simulated host folder for `--root`, how to use it, how to tear it down."""

from __future__ import annotations

import json
import shlex

from tests.recipe_fixtures import isolated, run_cli  # noqa: F401
from wizard.locations import root_state_dir


def test_simulate_builds_a_root_that_check_and_plan_work_on(isolated, monkeypatch):
    sim = isolated / "sim host"
    code, out, err = run_cli(["simulate", str(sim), "--variant", "missing-davinci3"], monkeypatch)
    assert code == 0, err
    q = shlex.quote(str(sim))
    assert f"pi05-wizard --root {q} check" in out and f"rm -rf {q}" in out
    assert str(root_state_dir(sim)) in out and "teardown" not in out  # nothing mounted: nothing to tear down
    assert (sim / "dev" / "davinci0").exists() and not (sim / "dev" / "davinci3").exists()
    code, out, _ = run_cli(["--root", str(sim), "check", "--json", "--only", "devices"], monkeypatch)
    assert code == 1 and "davinci3" in out
    code, out, _ = run_cli(["--root", str(sim), "plan", "preflight"], monkeypatch)
    assert code == 0 and "preflight" in out


def test_simulate_tiny_shm_says_how_to_tear_down(isolated, monkeypatch):
    from wizard.simhost import SimHostError, build_sim_host, mounted_points

    sim = isolated / "shm"
    try:  # the variant mounts a tmpfs: only where mounting is allowed
        build_sim_host(sim, "tiny-shm")
    except SimHostError:
        code, out, _ = run_cli(["simulate", str(sim), "--variant", "tiny-shm"], monkeypatch)
        assert code == 1 and "cannot build the simulated host" in out
        return
    code, out, _ = run_cli(["simulate", str(sim), "--variant", "tiny-shm"], monkeypatch)
    try:
        assert code == 0 and f"pi05-wizard simulate --teardown {shlex.quote(str(sim))}" in out
        assert mounted_points(sim) == [sim / "dev" / "shm"]
    finally:
        code, out, _ = run_cli(["simulate", "--teardown", str(sim)], monkeypatch)
    assert code == 0 and f"unmounted: {sim / 'dev' / 'shm'}" in out
    assert mounted_points(sim) == [] and str(sim / "dev" / "shm") not in open("/proc/self/mounts").read()


def test_simulate_rejects_bad_input(isolated, monkeypatch):
    (isolated / "file").write_text("x")
    code, _, err = run_cli(["simulate", str(isolated / "file")], monkeypatch)
    assert code == 2 and "not a folder" in err
    code, _, err = run_cli(["simulate", str(isolated / "s"), "--variant", "nope"], monkeypatch)
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_cli(["simulate", "--teardown", str(isolated / "never built")], monkeypatch)
    assert code == 0 and "no tmpfs mounts left" in out


def test_readme_keeps_the_two_commands_first_and_shows_simulate():
    from pathlib import Path

    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    first = text.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert first[0].startswith("pip install -e . && pi05-wizard demo") and "pytest" in first[1]
    section = text.split("## Try it without an NPU", 1)[1].split("\n## ", 1)[0]
    assert "pi05-wizard simulate" in section and "--root" in section and "--teardown" in section
    assert text.index("## Try it without an NPU") > text.index("python -m pytest")
    json.dumps(section)  # plain text
