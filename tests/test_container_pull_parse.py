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
