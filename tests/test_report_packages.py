"""`pi05-wizard report`: the host's Python is labelled as the wizard's environment, and the container's
torch / torch_npu / numpy / transformers / lerobot come from the container (or "container not running")."""

from __future__ import annotations

import json
from types import SimpleNamespace

from checks.python_packages import PACKAGES
from tests.preflight_fixtures import FakeHost, ran
from wizard.cli import main
from wizard.cli.report_cmd import container_packages
from wizard.hosts.container import ContainerUnavailable

RECIPE = SimpleNamespace(container=SimpleNamespace(name="pi"), python=SimpleNamespace(executable="python3"))
INSTALLED = {"torch": "2.7.1", "torch_npu": "2.7.1", "numpy": "1.26.4", "transformers": "4.53.3", "lerobot": None}


def _session(container) -> SimpleNamespace:
    def container_host():
        if isinstance(container, BaseException):
            raise container
        return container

    return SimpleNamespace(recipe=RECIPE, container_host=container_host)


def test_running_container_versions_through_the_python_checks_probe():
    inside = FakeHost(commands={"true": ran(), "python3": ran("sitecustomize noise\n" + json.dumps(INSTALLED) + "\n")})
    text = container_packages(_session(inside))
    lines = text.splitlines()
    assert lines[0] == "container pi:" and [ln.split()[0] for ln in lines[1:]] == list(PACKAGES)
    assert "numpy         1.26.4" in text and "lerobot       not installed" in text


def test_container_missing_stopped_or_engine_down_says_not_running():
    missing = ContainerUnavailable("No container named pi: run the container stage first.", "missing")
    assert container_packages(_session(missing)) == "container not running (No container named pi: run the " \
                                                    "container stage first.)"
    stopped = FakeHost(commands={"true": ran(stderr="Container pi is stopped; start it.", rc=None)})
    assert container_packages(_session(stopped)) == "container not running (Container pi is stopped; start it.)"
    assert container_packages(_session(RuntimeError("boom"))) == "container not running (Docker: RuntimeError)"


def test_running_container_without_readable_versions_says_why():
    odd = FakeHost(commands={"true": ran(), "python3": ran("\x00\xff", "ModuleNotFoundError: importlib\n", rc=1)})
    assert container_packages(_session(odd)) == ("container pi is running, but its package versions could not be "
                                                 "read (ModuleNotFoundError: importlib)")


def test_report_labels_the_wizards_environment_and_has_a_container_section(tmp_path):
    from wizard.simhost import build_sim_host

    sim = build_sim_host(tmp_path / "sim")
    out = tmp_path / "report.md"
    assert main(["--root", str(sim), "--state-dir", str(tmp_path / "state"), "report", "--output", str(out)]) == 0
    text = out.read_text()
    assert "### Python and key packages on the host (`python3` on PATH: the wizard's environment, not the " \
           "container's)" in text
    section = text.split("### Python packages in the container", 1)[1].split("##", 1)[0]
    assert "container not running (" in section or "container pi:" in section or "container pi is running" in section
