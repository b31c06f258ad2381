"""`pi05-wizard image save|load` on a real Docker engine: commit, save as .tar.gz, load, run again.

Runs the `image` subcommand's parser and handlers with the CLI's global options `--root` (a
simulated host), `--recipe` (an override pointing at the busybox test image and unique names) and
`--state-dir` (a temp folder). The parser holds only `image`, so these tests do not depend on the
other subcommand modules.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import tarfile
import uuid

import pytest

from container_fixtures import (sim_host, busybox_image, can_privileged, container_name, remove_image,  # noqa: F401
                                docker_client)
from wizard.cli import EXIT_USAGE, UsageError, add_global_options
from wizard.cli import image_cmd
from wizard.container.lifecycle import ensure_container
from wizard.container.spec import real_path_of
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import load_recipe
from wizard.stages.base import StageContext
from wizard.stages.container import container_spec

pytestmark = pytest.mark.docker


def main(argv: list[str]) -> int:
    """`pi05-wizard ARGV` restricted to the `image` subcommand (same exit-code rules as `wizard.cli.main`)."""
    import argparse

    parser = argparse.ArgumentParser(prog="pi05-wizard")
    add_global_options(parser)
    image_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError:
        return EXIT_USAGE


@pytest.fixture
def setup(tmp_path, docker_client, busybox_image, container_name, can_privileged):  # noqa: F811
    root = sim_host(tmp_path / "sim host")
    repo = f"pi05-test-pi-{uuid.uuid4().hex[:8]}"
    privileged = can_privileged
    override = tmp_path / "recipe override.toml"
    override.write_text(
        f'[image]\nbase = "{busybox_image}"\n\n'
        f'[container]\nname = "{container_name}"\nprivileged = {str(privileged).lower()}\ncommand = ["/bin/sh"]\n\n'
        f'[container.data]\nhost_path = "/data/pi05"\n\n'
        f'[archive]\nrepository = "{repo}"\n')
    state = tmp_path / "state"
    recipe = load_recipe(Locations.under(tmp_path / "cfg"), override)
    ctx = StageContext(recipe=recipe, host=LocalHost(root), locations=Locations.under(state),
                       options={"docker_client": docker_client})
    spec = container_spec(ctx)
    assert ensure_container(docker_client, spec, lambda *a, **k: None, lambda d: False, real_path_of(ctx.host)).ok
    docker_client.containers.get(container_name).exec_run(["sh", "-c", "echo built-inside > /tmp/marker"])
    argv = ["--root", str(root), "--recipe", str(override), "--state-dir", str(state)]
    tag = f"8.3.rc1-910b-ubuntu22.04-py3.10-{dt.date.today():%Y%m%d}"
    yield argv, f"{repo}:{tag}", spec
    remove_image(docker_client, f"{repo}:{tag}")


def test_save_then_load_round_trip(setup, tmp_path, docker_client, container_name, capsys):  # noqa: F811
    argv, ref, spec = setup
    archive = tmp_path / "out dir" / "pi image.tar.gz"
    assert main([*argv, "image", "save", "--output", str(archive)]) == 0
    out = capsys.readouterr().out
    assert "saved" in out and ref in out
    with gzip.open(archive) as gz, tarfile.open(fileobj=gz) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
    assert manifest[0]["RepoTags"] == [ref]
    assert not list(archive.parent.glob("*.partial"))

    # Refuses to overwrite without --force; overwrites with it.
    before = archive.stat().st_mtime_ns
    assert main([*argv, "image", "save", "--output", str(archive)]) == 1
    assert "already exists; pass --force" in capsys.readouterr().out
    assert archive.stat().st_mtime_ns == before
    assert main([*argv, "image", "save", "--output", str(archive), "--force"]) == 0
    capsys.readouterr()

    # Gone from the engine, then back from the archive, running with the same flags.
    docker_client.containers.get(container_name).remove(force=True)
    remove_image(docker_client, ref)
    assert main([*argv, "image", "load", str(archive)]) == 0
    out = capsys.readouterr().out
    assert f"Loaded image: {ref}" in out and "--shm-size 500g" in out
    c = docker_client.containers.get(container_name)
    assert c.status == "running" and c.attrs["Config"]["Image"] == ref
    assert c.attrs["HostConfig"]["ShmSize"] == spec.shm_size
    assert len(c.attrs["HostConfig"]["Devices"]) == len(spec.devices)
    res = c.exec_run(["cat", "/tmp/marker"])
    assert res.exit_code == 0 and res.output.decode().strip() == "built-inside"

    # Loading again: the running container from that image is reused.
    assert main([*argv, "image", "load", str(archive)]) == 0
    assert "reusing the running container" in capsys.readouterr().out
    assert docker_client.containers.get(container_name).id == c.id


def test_load_does_not_replace_another_container_without_yes(setup, tmp_path, docker_client, container_name, capsys):  # noqa: F811
    argv, ref, spec = setup
    archive = tmp_path / "pi.tar.gz"
    assert main([*argv, "image", "save", "--output", str(archive)]) == 0
    old = docker_client.containers.get(container_name).id  # runs the busybox image, not the archive's
    assert main([*argv, "image", "load", str(archive)]) == 1
    out = capsys.readouterr().out
    assert "image: wanted " + ref in out and "--yes" in out
    assert docker_client.containers.get(container_name).id == old
    assert main([*argv, "image", "load", str(archive), "--yes"]) == 0
    assert docker_client.containers.get(container_name).attrs["Config"]["Image"] == ref


def test_load_of_a_missing_or_bad_archive(setup, tmp_path, capsys):
    argv, _, _ = setup
    assert main([*argv, "image", "load", str(tmp_path / "nope.tar.gz")]) == 2
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    assert main([*argv, "image", "load", str(bad)]) == 1
    assert "could not load" in capsys.readouterr().out
