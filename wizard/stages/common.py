"""Provides what several stage declarations share: probes that may be unanswerable, argv builders.

A `done()` probe that needs the container cannot answer when Docker or the container is absent;
it raises `ProbeUnavailable` instead of guessing, and `plan` prints "unknown (<reason>)".
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping, Sequence

from checks.host import CommandResult, Host
from checks.result import CheckResult
from wizard.stages.base import StageContext, Where

#: Seconds a done()/skip_if probe command may take.
PROBE_TIMEOUT_S = 60.0


class ProbeUnavailable(Exception):
    """A probe could not be answered (no container, command missing or timed out): neither yes nor no."""


def container_of(ctx: StageContext) -> Host:
    """The container host, or ProbeUnavailable (with `ContainerUnavailable`'s sentence) when it cannot be had."""
    try:
        return ctx.host_for(Where.CONTAINER)
    except ProbeUnavailable:
        raise
    except Exception as exc:  # Docker unreachable, container missing: any of the SDK's errors
        raise ProbeUnavailable(plain_error(exc)) from None


def plain_error(exc: BaseException) -> str:
    """An error as operator text: the message of our own plain-sentence errors, else message without class name.

    `ContainerUnavailable` and `ProbeUnavailable` already say what happened and what to do; an OS
    error says what failed on which path. Anything else is a bug or an unexpected library error: its
    message, marked as unexpected so the operator knows to report it (the log has the details).
    """
    from wizard.hosts.container import ContainerUnavailable

    text = " ".join(str(exc).split())
    if isinstance(exc, (ContainerUnavailable, ProbeUnavailable, OSError)) and text:
        return text
    return f"unexpected error: {text}" if text else f"unexpected error ({exc.__class__.__qualname__})"


def probe_run(host: Host, argv: Sequence[str], cwd: str | None = None,
              env: Mapping[str, str] | None = None, timeout: float = PROBE_TIMEOUT_S) -> CommandResult:
    """Run a probe command; raise ProbeUnavailable when it could not run to an exit code.

    Raises:
        ProbeUnavailable: the executable is missing, it timed out, or the host refused to run it.
    """
    try:
        res = host.run(list(argv), timeout=timeout, env=env, cwd=cwd)
    except Exception as exc:  # a ContainerHost whose container vanished
        raise ProbeUnavailable(plain_error(exc)) from None
    if res.not_found:
        raise ProbeUnavailable(f"{argv[0]} not found on {host.name}")
    if res.timed_out:
        raise ProbeUnavailable(f"{argv[0]} did not finish within {timeout:.0f} s on {host.name}")
    if res.returncode is None:  # it never started: the host says why (a missing or stopped container)
        raise ProbeUnavailable(res.stderr.strip() or f"{argv[0]} could not start on {host.name}")
    return res


def read_or_none(host: Host, path: str) -> str | None:
    """A file's text, or None when it is missing or unreadable.

    Raises:
        ProbeUnavailable: the host itself cannot be reached (a missing or stopped container), which
            says nothing about the file.
    """
    from wizard.hosts.container import ContainerUnavailable

    try:
        return host.read_text(path)
    except ContainerUnavailable as exc:
        raise ProbeUnavailable(str(exc)) from None
    except OSError:
        return None


def described(text: str) -> Callable[[Callable], Callable]:
    """Attach a readable description to a skip_if probe (`plan` prints it as "skip if: ...")."""
    def wrap(fn: Callable) -> Callable:
        fn.describe = text  # type: ignore[attr-defined]
        return fn
    return wrap


def sourced(env_files: Iterable[str], argv: Sequence[str]) -> list[str]:
    """argv that sources shell environment scripts first, then execs `argv` (paths stay one element).

    `sourced(["/a/set_env.sh"], ["python3", "x.py"])` ->
    `["bash", "-c", 'for f in "$@"; ...', "sourced", "/a/set_env.sh", "--", "python3", "x.py"]`:
    the scripts and the command travel as positional arguments, never spliced into the shell text.
    """
    script = ('while [ "$1" != "--" ]; do source "$1" || exit 1; shift; done; shift; exec "$@"')
    return ["bash", "-c", script, "sourced", *env_files, "--", *argv]


def pip(ctx: StageContext, *args: str) -> list[str]:
    """`<python> -m pip ARGS...` with the recipe's interpreter."""
    return [ctx.recipe.python.executable, "-m", "pip", *args]


_RUNNING = re.compile(r"^\s*(?P<key>[A-Za-z0-9_]+)\s*=\s*(?P<value>.*?)\s*$")
_BRACKET = re.compile(r"\[([^\]]*)\]")


def running_version(version_cfg: str, key: str) -> str | None:
    """The CANN version of `key` in a toolkit `version.cfg` (the part after ':' in its brackets).

    Format (samples/version.cfg_8.1.RC1_with_install_history.txt): `toolkit_running_version=
    [7.7.T20.0.B210:8.1.RC1]`. `*_installed_version` keeps history `[old][new]`; only the given key
    is read, and of several brackets the last one. None when the key is absent or empty.
    """
    for line in version_cfg.splitlines():
        m = _RUNNING.match(line)
        if not m or m.group("key") != key:
            continue
        brackets = _BRACKET.findall(m.group("value"))
        if not brackets:
            return None
        last = brackets[-1]
        return (last.rsplit(":", 1)[-1] or None) if last else None
    return None


def key_value_version(text: str, keys: Sequence[str]) -> str | None:
    """The first of `keys` in a `key : value` or `key=value` version file (NNAL, driver).

    Formats: samples/nnal_atb_version.info_8.0.T63.txt (`Ascend-cann-atb : 8.0.T63`),
    samples/driver_version.info_*.txt (`Version=25.3.rc1`).
    """
    wanted = {k.lower() for k in keys}
    for line in text.splitlines():
        for sep in (":", "="):
            if sep in line:
                k, _, v = line.partition(sep)
                if k.strip().lower() in wanted and v.strip():
                    return v.strip()
                break
    return None


def verdict(check_id: str, title: str, ok: bool, summary: str, problem: str | None = None,
            remedy: str | None = None) -> CheckResult:
    """A verify result: ok with `summary`, or fail carrying `problem` as an error message."""
    from checks.result import Level, Message, Status

    if ok:
        return CheckResult(id=check_id, title=title, status=Status.OK, summary=summary)
    return CheckResult(id=check_id, title=title, status=Status.FAIL, summary=summary,
                       messages=[Message(level=Level.ERROR, text=problem or summary, remedy=remedy)])


def guarded(check_id: str, title: str, fn: Callable[[], list[CheckResult]]) -> list[CheckResult]:
    """Run a verify body; an unanswerable probe or a crash becomes one `error` result, never a traceback."""
    from checks.result import Level, Message, Status

    try:
        return fn()
    except Exception as exc:  # unanswerable probe, or a crash: a verify must never crash the run (doctor rule)
        text = plain_error(exc)
        return [CheckResult(id=check_id, title=title, status=Status.ERROR, summary=f"could not check: {text}",
                            messages=[Message(level=Level.ERROR, text=text)])]


def container_state(name: str, client_factory: Callable[[], object] | None = None) -> tuple[bool, str]:
    """Whether the named container is running, through the Docker SDK: (running, reason when not).

    Never raises: an unreachable engine or a missing or stopped container is a reason, the same
    sentence `ContainerHost` gives (`container_problem`, `engine_problem`), e.g. (False, "The container
    'pi' does not exist yet: run the container stage first (pi05-wizard run container).").
    """
    from wizard.hosts.container import container_problem, engine_problem

    try:
        if client_factory is None:
            import docker

            client = docker.from_env(timeout=5)
        else:
            client = client_factory()
        container = client.containers.get(name)  # type: ignore[attr-defined]
        status = getattr(container, "status", "unknown")
    except Exception as exc:  # docker.errors.NotFound, DockerException, connection errors
        if type(exc).__name__ == "NotFound":
            return False, container_problem(name)
        return False, engine_problem(exc)
    if status != "running":
        return False, container_problem(name, status)
    return True, ""
