"""Provides the `container` stage: pull the base image and run the `pi` container as the recipe says.

Steps (each a Docker SDK call; `plan` shows the equivalent `docker` command):
1. check the host's NPU devices and mount sources (a missing NPU device fails here; a missing
   mount source is left out with a warning naming it);
2. `docker pull --platform=linux/arm64 IMAGE`, skipped when the image is present and runnable;
3. `docker run -itd -u root --privileged --net=host --shm-size ... --device ... -v ...`: create
   and start, or reuse / start / (confirmed) recreate an existing container.
Verify: the container's configuration against the recipe, field by field, then the preflight
checks that belong inside it (`shm`, `devices`, `driver`, `npu-smi`) through the ContainerHost.
"""

from __future__ import annotations

from docker.errors import DockerException, NotFound

from checks.result import CheckResult, Level, Message, Status
from wizard.container.engine import confirmer, docker_client
from wizard.container.lifecycle import compare, describe_engine_error, ensure_container
from wizard.container.pull import ensure_image, image_arch_problem
from wizard.container.spec import ContainerSpec, SpecError, build_spec, real_path_of, settings_from_recipe
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where

#: Preflight checks that run inside the container after it starts (ids of `checks.registry`).
IN_CONTAINER_CHECKS = ("shm", "devices", "driver", "npu-smi")

#: Remedy id for a container that differs from the recipe and was not recreated.
REMEDY_DRIFT = "container-drift"


def container_spec(ctx: StageContext) -> ContainerSpec:
    """The desired container for this run (recipe + host). Raises SpecError."""
    return build_spec(settings_from_recipe(ctx.recipe), ctx.host, arch=ctx.options.get("arch"))  # type: ignore[arg-type]


def _check_host(ctx: StageContext, io: ActionIO) -> int:
    try:
        spec = container_spec(ctx)
    except SpecError as exc:
        for p in exc.problems:
            io.emit(p, stream="stderr")
        return 1
    io.emit(f"{spec.variant} container: {len(spec.devices)} device(s), {len(spec.mounts)} bind mount(s)")
    for w in spec.warnings:
        io.emit(f"warning: {w}", stream="stderr")
    return 0


def _image_ready(ctx: StageContext) -> bool:
    """skip_if of the pull: the image is present and the engine can run it."""
    spec = container_spec(ctx)
    client = docker_client(ctx)
    try:
        image = client.images.get(spec.image)
    except NotFound:
        return False
    return image_arch_problem(image.attrs, client.info().get("Architecture", ""), spec.variant) is None


_image_ready.describe = "the image is present and built for this engine's architecture"  # type: ignore[attr-defined]


def _pull(ctx: StageContext, io: ActionIO) -> int:
    spec = container_spec(ctx)
    result = ensure_image(docker_client(ctx), spec.image, spec.platform, io.emit, io.cancelled, spec.variant)
    _emit_result(io, result)
    return 0 if result.status is Status.OK else 1


def _emit_result(io: ActionIO, result: CheckResult) -> None:
    io.emit(f"{result.status.mark} {result.summary}",
            stream="stdout" if result.status is Status.OK else "stderr")
    for m in result.messages:
        io.emit(f"  {m.text}" + (f" [remedy: {m.remedy}]" if m.remedy else ""), stream="stderr")


def _run(ctx: StageContext, io: ActionIO) -> int:
    spec = container_spec(ctx)
    client = docker_client(ctx)
    try:
        result = ensure_container(client, spec, io.emit, confirmer(ctx), real_path_of(ctx.host))
    except DockerException as exc:
        io.emit(describe_engine_error(exc), stream="stderr")
        return 1
    if not result.ok:
        io.emit(f"[remedy: {REMEDY_DRIFT}]", stream="stderr")
        return 1
    return 0


def container_config_result(ctx: StageContext) -> CheckResult:
    """Check id "container-config": the running container against the recipe, field by field."""
    title = "Container configuration"
    try:
        spec = container_spec(ctx)
        container = docker_client(ctx).containers.get(spec.name)
    except SpecError as exc:
        return CheckResult(id="container-config", title=title, status=Status.FAIL, summary=str(exc),
                           messages=[Message(level=Level.ERROR, text=p) for p in exc.problems])
    except NotFound:
        return CheckResult(id="container-config", title=title, status=Status.FAIL,
                           summary="no container named " + settings_from_recipe(ctx.recipe).name)
    except DockerException as exc:
        return CheckResult(id="container-config", title=title, status=Status.ERROR,
                           summary=f"cannot ask the Docker engine: {exc}")
    diffs = compare(spec, container.attrs, real_path_of(ctx.host))
    messages = [Message(level=Level.ERROR, text=d.text(),
                        remedy="shm-too-small" if d.field == "shm_size" else REMEDY_DRIFT) for d in diffs]
    if container.status != "running":
        messages.append(Message(level=Level.ERROR, text=f"container {spec.name} is {container.status}"))
    messages += [Message(level=Level.WARN, text=w) for w in spec.warnings]
    status = Status.FAIL if any(m.level is Level.ERROR for m in messages) else (
        Status.WARN if messages else Status.OK)
    summary = (f"{spec.name} runs {spec.image} as the recipe says ({len(spec.devices)} devices, "
               f"{len(spec.mounts)} mounts)") if status is not Status.FAIL else \
        f"{spec.name} differs from the recipe in {len(diffs)} way(s)" if diffs else f"{spec.name} is not running"
    return CheckResult(id="container-config", title=title, status=status, summary=summary, messages=messages,
                       details={"run": spec.run_command()})


def in_container_results(ctx: StageContext) -> list[CheckResult]:
    """The preflight checks that belong inside the container, run through the ContainerHost."""
    from checks.registry import run_checks
    from wizard.session import check_context_for

    cctx = check_context_for(ctx.recipe, ctx.host_for(Where.CONTAINER), offline=True, inside_container=True)
    return run_checks(cctx, only=list(IN_CONTAINER_CHECKS))


def verify(ctx: StageContext) -> list[CheckResult]:
    """Container configuration, then (when it runs) the in-container checks."""
    first = container_config_result(ctx)
    if first.status.is_problem:
        return [first]
    try:
        return [first, *in_container_results(ctx)]
    except Exception as exc:  # the ContainerHost could not be had: one error result, not a traceback
        from wizard.stages.common import plain_error

        return [first, CheckResult(id="container-checks", title="Checks inside the container", status=Status.ERROR,
                                   summary=f"could not run the checks inside the container: {plain_error(exc)}")]


def done(ctx: StageContext) -> bool:
    """True when the container exists, runs and matches the recipe (needs the engine)."""
    from wizard.stages.common import ProbeUnavailable

    try:
        spec = container_spec(ctx)
        container = docker_client(ctx).containers.get(spec.name)
    except NotFound:
        return False
    except (DockerException, SpecError) as exc:
        from wizard.hosts.container import engine_problem
        from wizard.stages.common import plain_error

        raise ProbeUnavailable(engine_problem(exc) if isinstance(exc, DockerException) else plain_error(exc)) \
            from None
    return container.status == "running" and not compare(spec, container.attrs, real_path_of(ctx.host))


def steps(ctx: StageContext) -> list[Step]:
    """The three steps; their descriptions show the equivalent `docker` commands."""
    settings = settings_from_recipe(ctx.recipe)
    try:
        run_text = container_spec(ctx).run_command()
    except SpecError as exc:
        run_text = f"docker run ... {settings.image}   (cannot be built yet: {exc})"
    return [
        Step(title="Check NPU devices and mount sources", action=_check_host, timeout_s=60,
             describe="check /dev/davinciN, /dev/davinci_manager, /dev/hisi_hdc, /dev/devmm_svm and every mount source"),
        Step(title="Pull the base image", action=_pull, timeout_s=None, skip_if=_image_ready,
             describe=f"docker pull --platform={settings.platform} {settings.image}"),
        Step(title="Create and start the container", action=_run, timeout_s=600, describe=run_text),
    ]


STAGE = Stage(
    id="container",
    title="Container",
    description=("Pulls the CANN base image for arm64 and starts the privileged container with every NPU "
                 "device, the driver and firmware mounts, host networking and a large /dev/shm. An existing "
                 "container is reused when it matches and recreated only when you confirm."),
    where=Where.HOST,
    steps=steps,
    depends_on=("preflight",),
    done=done,
    verify=verify,
    verify_describe=("the running container matches the recipe (image, devices, mounts, /dev/shm size), then "
                     "the shm, devices, driver and npu-smi checks run inside it"),
)
