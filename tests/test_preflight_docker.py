"""The `docker` check on a simulated host, arch mismatch, and plain words for SDK failures."""

from __future__ import annotations

import pytest

from checks import docker_check
from checks.context import CheckContext, Requirements
from checks.result import Status
from tests.preflight_fixtures import FakeHost, ran


class _Client:
    def __init__(self, answer=None, exc: BaseException | None = None):
        self.answer, self.exc = answer, exc

    def version(self):
        if self.exc is not None:
            raise self.exc
        return self.answer


def _ctx(host, client) -> CheckContext:
    return CheckContext(host=host, requirements=Requirements(), offline=True, docker_client=lambda: client)


def _sim_host(machine: str) -> FakeHost:
    host = FakeHost(commands={"uname": ran(machine + "\n")}, name="local:/tmp/sim")
    host.root = "/tmp/sim"  # what LocalHost(root=...) carries
    return host


AMD64 = {"Version": "20.10.24+dfsg1", "ApiVersion": "1.41", "Arch": "amd64"}


def test_simulated_aarch64_host_beside_an_amd64_engine_warns_and_says_whose_engine():
    r = docker_check.check_docker(_ctx(_sim_host("aarch64"), _Client(AMD64)))
    assert r.status is Status.WARN and r.remedies == ["exec-format-error"]
    assert r.summary == "Docker 20.10.24+dfsg1 (API 1.41, amd64) (this machine's engine, not simulated)"
    assert "runs amd64 but the host is aarch64 (arm64)" in r.messages[0].text


def test_same_arch_is_ok_and_a_real_host_has_no_simulation_note():
    r = docker_check.check_docker(_ctx(_sim_host("x86_64"), _Client(AMD64)))
    assert r.status is Status.OK and r.summary.endswith("(this machine's engine, not simulated)")
    real = FakeHost(commands={"uname": ran("x86_64\n")})
    r = docker_check.check_docker(_ctx(real, _Client(AMD64)))
    assert r.status is Status.OK and r.summary == "Docker 20.10.24+dfsg1 (API 1.41, amd64)"


@pytest.mark.parametrize("exc, why", [
    (ConnectionError("Error while fetching server API version: ('Connection aborted.', "
                     "FileNotFoundError(2, 'No such file or directory'))"), "no Docker socket"),
    (ConnectionError("Error while fetching server API version: ('Connection aborted.', "
                     "PermissionError(13, 'Permission denied'))"), "permission denied on the Docker socket"),
    (RuntimeError("Error while fetching server API version: HTTPConnectionPool(host='x', port=2375)"),
     "Error while fetching server API version"),
    (RuntimeError(""), "RuntimeError"),
])
def test_sdk_failures_are_plain_words(exc, why):
    r = docker_check.check_docker(_ctx(FakeHost(), _Client(exc=exc)))
    text = r.messages[0].text
    assert r.status is Status.FAIL and why in text
    assert "Error(" not in text and "('" not in text


def test_hostile_version_answer_stays_one_line():
    r = docker_check.check_docker(_ctx(FakeHost(), _Client({"Version": "1\n2\x00", "ApiVersion": None, "Arch": ""})))
    assert r.summary == "Docker 1 2 (API ?)"
    assert docker_check.check_docker(_ctx(FakeHost(), _Client(["not", "a", "dict"]))).summary == "Docker ? (API ?)"
