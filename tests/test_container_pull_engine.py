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


def test_container_stage_with_a_missing_image_fails_at_the_pull(tmp_path, docker_client, empty_registry):  # noqa: F811
    import threading
    import uuid

    from container_fixtures import sim_host, recipe_for_test
    from wizard.events import Sink
    from wizard.hosts.local import LocalHost
    from wizard.locations import Locations
    from wizard.runner import run_stage
    from wizard.stages.base import StageContext
    from wizard.stages.container import STAGE
    from wizard.state import StageStatus, StateStore

    class Lines(Sink):
        def __init__(self):
            self.text = []

        def line(self, line):
            self.text.append(line.text)

    name = f"pi05-test-{uuid.uuid4().hex[:10]}"
    root = sim_host(tmp_path / "sim")
    ctx = StageContext(recipe=recipe_for_test(f"{empty_registry}/ascendhub/cann:gone", name), host=LocalHost(root),
                       locations=Locations.under(tmp_path / "state"), options={"docker_client": docker_client})
    sink = Lines()
    rec = run_stage(STAGE, ctx, [sink], threading.Event(), StateStore(ctx.locations), force=True)
    assert rec.status is StageStatus.FAILED and rec.failed_step.index == 1
    text = "\n".join(sink.text)
    assert "does not exist in its registry" in text and "[remedy: image-not-found]" in text
    with pytest.raises(Exception):
        docker_client.containers.get(name)
