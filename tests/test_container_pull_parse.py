"""Pure pieces of the pull and image reuse: error classification, progress lines, names."""

from __future__ import annotations

import datetime as dt
import tempfile

from wizard.container.image import archive_names
from wizard.container.pull import (REMEDY_EXEC_FORMAT, REMEDY_IMAGE_MISSING, REMEDY_REGISTRY_UNREACHABLE,
                                   classify_pull_error, image_arch_problem, normalize_arch, progress_line,
                                   split_reference)
from wizard.locations import Locations
from wizard.recipe import load_recipe


def test_classify_engine_messages():
    # Texts as Docker Engine 20.10 returns them for `POST /images/create`.
    assert classify_pull_error("no matching manifest for linux/arm64/v8 in the manifest list entries") == REMEDY_EXEC_FORMAT
    assert classify_pull_error('Get "https://swr.cn-south-1.myhuaweicloud.com/v2/": dial tcp: lookup '
                               'swr.cn-south-1.myhuaweicloud.com: no such host') == REMEDY_REGISTRY_UNREACHABLE
    assert classify_pull_error('Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused') \
        == REMEDY_REGISTRY_UNREACHABLE
    assert classify_pull_error("manifest for swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:nope not found: "
                               "manifest unknown: manifest unknown") == REMEDY_IMAGE_MISSING
    assert classify_pull_error("") == REMEDY_IMAGE_MISSING
    assert classify_pull_error("\x00\xff" * 100) == REMEDY_IMAGE_MISSING


def test_progress_lines():
    assert progress_line({"status": "Downloading", "id": "a1b2", "progressDetail": {"current": 1 << 20, "total": 4 << 20}}) \
        == "a1b2: Downloading 1.0 MiB / 4.0 MiB (25%)"
    assert progress_line({"status": "Pull complete", "id": "a1b2", "progressDetail": {}}) == "a1b2: Pull complete"
    assert progress_line({"status": "Digest: sha256:abc"}) == "Digest: sha256:abc"
    assert progress_line({"progressDetail": {"current": 1}}) is None
    assert progress_line({"status": "Extracting", "id": "x", "progressDetail": {"current": 9, "total": 0}}) == "x: Extracting"
    assert progress_line({"status": "Downloading", "id": "x", "progressDetail": {"current": "bad", "total": None}}) \
        == "x: Downloading"


def test_split_reference():
    assert split_reference("swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:8.1.rc1-910b-ubuntu22.04-py3.10") == \
        ("swr.cn-south-1.myhuaweicloud.com/ascendhub/cann", "8.1.rc1-910b-ubuntu22.04-py3.10")
    assert split_reference("localhost:5000/pi") == ("localhost:5000/pi", "latest")
    assert split_reference("busybox") == ("busybox", "latest")
    assert split_reference("x@sha256:00") == ("x@sha256:00", "")


def test_architecture_rules():
    assert normalize_arch("aarch64") == "arm64" and normalize_arch("x86_64") == "amd64"
    assert normalize_arch("linux/arm64") == "arm64" and normalize_arch(None) == ""
    assert image_arch_problem({"Architecture": "arm64"}, "aarch64", "native") is None
    problem = image_arch_problem({"Architecture": "amd64"}, "aarch64", "native")
    assert problem and "exec format error" in problem
    assert image_arch_problem({"Architecture": "arm64"}, "x86_64", "qemu") is None
    assert image_arch_problem({"Architecture": "arm64"}, "x86_64", "native") is not None
    assert image_arch_problem({}, "x86_64", "native") is None


def test_archive_names_from_recipe():
    with tempfile.TemporaryDirectory() as d:
        recipe = load_recipe(Locations.under(d))
    assert archive_names(recipe.archive, dt.date(2025, 2, 28)) == (
        "pi", "8.3.rc1-910b-ubuntu22.04-py3.10-20250228", "pi-8.3.rc1-910b-ubuntu22.04-py3.10-20250228.tar.gz")


class _Images:
    def __init__(self):
        self.pulled = False

    def get(self, ref):
        from docker.errors import ImageNotFound

        if not self.pulled:
            raise ImageNotFound("no such image")
        return type("Img", (), {"attrs": {"Architecture": "arm64", "Size": 3 << 30}, "short_id": "sha256:abc"})()


class _Api:
    """Stand-in for `client.api`: replays a pull stream shaped as Docker Engine 20.10 sends it."""

    def __init__(self, images, events):
        self.images, self.events, self.calls = images, events, []

    def pull(self, repo, tag=None, platform=None, stream=False, decode=False):
        self.calls.append((repo, tag, platform))
        yield from self.events
        self.images.pulled = True


class _Client:
    def __init__(self, events):
        self.images = _Images()
        self.api = _Api(self.images, events)

    def info(self):
        return {"Architecture": "aarch64"}


def test_pull_stream_gives_per_layer_byte_progress():
    from checks.result import Status
    from wizard.container.pull import ensure_image

    events = [
        {"status": "Pulling from ascendhub/cann", "id": "8.1.rc1"},
        {"status": "Pulling fs layer", "progressDetail": {}, "id": "aaa"},
        {"status": "Downloading", "progressDetail": {"current": 1 << 20, "total": 8 << 20}, "id": "aaa"},
        {"status": "Downloading", "progressDetail": {"current": 2 << 20, "total": 8 << 20}, "id": "aaa"},
        {"status": "Downloading", "progressDetail": {"current": 4 << 20, "total": 16 << 20}, "id": "bbb"},
        {"status": "Download complete", "progressDetail": {}, "id": "aaa"},
        {"status": "Pull complete", "progressDetail": {}, "id": "aaa"},
        {"status": "Digest: sha256:0123"},
    ]
    client = _Client(events)
    lines = []
    res = ensure_image(client, "swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:8.1.rc1", "linux/arm64",
                       lambda t, stream="stdout", progress=False: lines.append((t, progress)), min_interval_s=10)
    assert res.status is Status.OK and "pulled" in res.summary
    assert client.api.calls == [("swr.cn-south-1.myhuaweicloud.com/ascendhub/cann", "8.1.rc1", "linux/arm64")]
    assert ("aaa: Downloading 1.0 MiB / 8.0 MiB (12%)", True) in lines
    # Throttled per layer: the second aaa update inside the interval is dropped, bbb's first is shown.
    assert not any("2.0 MiB / 8.0 MiB" in t for t, _ in lines)
    assert ("bbb: Downloading 4.0 MiB / 16.0 MiB (25%)", True) in lines
    assert ("aaa: Pull complete", False) in lines


def test_pull_stream_error_event_is_a_plain_result():
    from checks.result import Status
    from wizard.container.pull import ensure_image

    client = _Client([{"error": "no matching manifest for linux/arm64/v8 in the manifest list entries"}])
    res = ensure_image(client, "x/y:z", "linux/arm64", lambda *a, **k: None)
    assert res.status is Status.FAIL and res.remedies == ["exec-format-error"]
