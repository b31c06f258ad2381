"""Provides the `image` stage: commit the finished container and save it as a `.tar.gz` archive.

Report, "镜像复用": the finished environment became `pi-8.3.rc1-910b-ubuntu22.04-py3.10-<date>.tar.gz`.
Steps (Docker SDK calls; `plan` shows the equivalent commands): `docker commit pi pi:<tag>`, then
`docker save pi:<tag> | gzip > <data folder>/<file>`. An existing archive is never overwritten unless
`options["force"]` (`image save --force`). `options["output"]` sets the archive path (a host path).
The reverse, `image load FILE`, lives in `wizard.cli.image_cmd` and `load_and_run` here.
"""

from __future__ import annotations

import datetime as _dt
import shlex
from pathlib import Path

from docker.errors import DockerException, NotFound

from checks.result import CheckResult, Level, Message, Status
from wizard.container.engine import confirmer, docker_client
from wizard.container.image import ArchiveExists, Cancelled, archive_names, commit_container, save_image
from wizard.container.lifecycle import EnsureResult, describe_engine_error, ensure_container, human_bytes
from wizard.container.spec import real_path_of
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where


def _day(ctx: StageContext) -> _dt.date:
    day = ctx.options.get("date")
    return day if isinstance(day, _dt.date) else _dt.date.today()


def image_reference(ctx: StageContext) -> str:
    """`pi:8.3.rc1-910b-ubuntu22.04-py3.10-<date>` for this run's date."""
    repository, tag, _ = archive_names(ctx.recipe.archive, _day(ctx))
    return f"{repository}:{tag}"


def archive_path(ctx: StageContext) -> str:
    """The archive as a host path: `options["output"]`, else the data folder + the recipe's file name."""
    output = ctx.options.get("output")
    if output:
        return str(output)
    _, _, file = archive_names(ctx.recipe.archive, _day(ctx))
    return f"{ctx.recipe.container.data.host_path.rstrip('/')}/{file}"


def _real_archive(ctx: StageContext) -> Path:
    """The archive's real path (under `--root` when set). An explicit `--output` is taken as given."""
    if ctx.options.get("output"):
        return Path(str(ctx.options["output"]))
    return Path(real_path_of(ctx.host)(archive_path(ctx)))


def _commit(ctx: StageContext, io: ActionIO) -> int:
    ref = image_reference(ctx)
    repository, _, tag = ref.rpartition(":")
    try:
        commit_container(docker_client(ctx), ctx.recipe.container.name, repository, tag, io.emit)
    except NotFound:
        from wizard.hosts.container import container_problem

        io.emit(container_problem(ctx.recipe.container.name), stream="stderr")
        return 1
    except DockerException as exc:
        io.emit(describe_engine_error(exc), stream="stderr")
        return 1
    return 0


def _save(ctx: StageContext, io: ActionIO) -> int:
    ref = image_reference(ctx)
    dest = _real_archive(ctx)
    try:
        image = docker_client(ctx).images.get(ref)
        save_image(image, ref, dest, io.emit, force=bool(ctx.options.get("force")), cancelled=io.cancelled)
    except ArchiveExists as exc:
        io.emit(str(exc), stream="stderr")
        return 1
    except Cancelled:
        io.emit("save cancelled; the partial archive was removed", stream="stderr")
        return 1
    except (DockerException, OSError) as exc:
        io.emit(f"could not save {ref} to {dest}: {exc}", stream="stderr")
        return 1
    return 0


def _archive_exists(ctx: StageContext) -> bool:
    """skip_if of the commit: only when the archive exists and will not be overwritten."""
    return _real_archive(ctx).exists() and not ctx.options.get("force")


_archive_exists.describe = "the archive already exists (and --force was not given)"  # type: ignore[attr-defined]


def steps(ctx: StageContext) -> list[Step]:
    """Commit, then save; descriptions show the equivalent docker commands."""
    ref = image_reference(ctx)
    dest = archive_path(ctx)
    name = ctx.recipe.container.name
    return [
        Step(title="Commit the container to an image", action=_commit, timeout_s=None, skip_if=_archive_exists,
             describe=shlex.join(["docker", "commit", name, ref])),
        Step(title="Save the image as a .tar.gz archive", action=_save, timeout_s=None,
             describe=f"docker save {shlex.quote(ref)} | gzip -1 > {shlex.quote(dest)}   (refuses to overwrite "
                      f"without --force)"),
    ]


def verify(ctx: StageContext) -> list[CheckResult]:
    """The archive exists and is a gzip file of plausible size."""
    path = _real_archive(ctx)
    title = "Image archive"
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
        size = path.stat().st_size
    except OSError as exc:
        return [CheckResult(id="image-archive", title=title, status=Status.FAIL, summary=f"no archive: {exc}",
                            messages=[Message(level=Level.ERROR, text=f"{path} is missing or unreadable")])]
    if magic != b"\x1f\x8b":
        return [CheckResult(id="image-archive", title=title, status=Status.FAIL, summary=f"{path} is not gzip",
                            messages=[Message(level=Level.ERROR, text="the archive does not start with the gzip magic")])]
    return [CheckResult(id="image-archive", title=title, status=Status.OK,
                        summary=f"{path} ({human_bytes(size)})", details={"path": str(path), "bytes": size})]


def done(ctx: StageContext) -> bool:
    """True when today's archive already exists."""
    return _real_archive(ctx).exists()


def load_and_run(ctx: StageContext, archive: Path, io: ActionIO) -> int:
    """`docker load -i ARCHIVE`, then start the recipe's container from the loaded image, same flags.

    An existing container of that name from another image is a difference: it is replaced only when
    the operator confirmed (`options["yes"]` / `options["confirm"]`). Returns an exit code.
    """
    from wizard.container.image import load_archive
    from wizard.stages.container import container_spec
    from wizard.container.spec import SpecError

    client = docker_client(ctx)
    try:
        names = load_archive(client, archive, io.emit, io.cancelled)
    except FileNotFoundError as exc:
        io.emit(str(exc), stream="stderr")
        return 1
    except Cancelled:
        io.emit("load cancelled", stream="stderr")
        return 1
    except DockerException as exc:
        io.emit(f"the engine could not load {archive}: {exc}", stream="stderr")
        return 1
    image = names[0]
    try:
        spec = container_spec(ctx).with_image(image)
    except SpecError as exc:
        for p in exc.problems:
            io.emit(p, stream="stderr")
        return 1
    for w in spec.warnings:
        io.emit(f"warning: {w}", stream="stderr")
    io.emit(f"$ {spec.run_command()}")
    try:
        result: EnsureResult = ensure_container(client, spec, io.emit, confirmer(ctx), real_path_of(ctx.host),
                                                check_image=True)
    except DockerException as exc:
        io.emit(describe_engine_error(exc), stream="stderr")
        return 1
    return 0 if result.ok else 1


STAGE = Stage(
    id="image",
    title="Save the image",
    description=("Commits the finished container to an image and saves it as a .tar.gz archive, so another "
                 "910B host can load it and start training without repeating the setup."),
    where=Where.HOST,
    steps=steps,
    depends_on=("container",),
    done=done,
    verify=verify,
    verify_describe="the saved archive exists and is a gzip file of plausible size",
)
