"""Pull failures on a real Docker engine, as plain results with remedies.

"Image missing" talks to a tiny registry served by this test on 127.0.0.1 (Docker treats loopback
registries as insecure by default, so plain HTTP works): it answers `GET /v2/` like a registry and
404 `MANIFEST_UNKNOWN` for every manifest (Docker Registry HTTP API v2 error shape). "Unreachable"
uses a loopback port nothing listens on.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from checks.result import Status
from container_fixtures import busybox_image, docker_client  # noqa: F401
from wizard.container.pull import REMEDY_IMAGE_MISSING, REMEDY_REGISTRY_UNREACHABLE, ensure_image

pytestmark = pytest.mark.docker


class _Registry(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path.rstrip("/") == "/v2":
            body, code = b"{}", 200
        else:
            body = json.dumps({"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown",
                                           "detail": {}}]}).encode()
            code = 404
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Docker-Distribution-Api-Version", "registry/2.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture
def empty_registry():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_missing_image_is_a_plain_result(docker_client, empty_registry):  # noqa: F811
    lines = []
    res = ensure_image(docker_client, f"{empty_registry}/ascendhub/cann:no-such-tag", "linux/arm64",
                       lambda t, **kw: lines.append(t))
    assert res.status is Status.FAIL
    assert res.remedies == [REMEDY_IMAGE_MISSING]
    assert "does not exist in its registry" in res.summary
    assert any("pulling" in line for line in lines)


def test_unreachable_registry_is_a_plain_result(docker_client):  # noqa: F811
    res = ensure_image(docker_client, f"127.0.0.1:{_free_port()}/ascendhub/cann:8.1.rc1", "linux/arm64",
                       lambda t, **kw: None)
    assert res.status is Status.FAIL
    assert res.remedies == [REMEDY_REGISTRY_UNREACHABLE]
    assert "cannot reach the registry" in res.summary


def test_present_image_skips_the_pull(docker_client, busybox_image):  # noqa: F811
    lines = []
    res = ensure_image(docker_client, busybox_image, "linux/arm64", lambda t, **kw: lines.append(t))
    assert res.status is Status.OK and "present" in res.summary
    assert lines == [l for l in lines if "skipping the pull" in l] and lines
