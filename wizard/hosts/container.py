"""Provides `ContainerHost`: the recipe's container (`pi`) as a Host, through the Docker SDK exec API.

Never shells out to `docker`. Every question is a small command exec'd in the container
(`exec_create` + `exec_start(stream=True, demux=True)`), given as an argv list; the few that need
`sh -c` pass paths as positional arguments (`"$1"`), never spliced into the script.

Killing (timeouts and cancel): `docker exec` starts each process as the leader of its own
session, so its process group is everything it started. We signal that group from the host
(`os.killpg` on the exec's host pid from `exec_inspect`) and, when the host refuses (not root,
e.g. a docker-group user), from inside the container with `kill -s SIG -- -PID` using the
process's pid in the container's namespace (`NSpid` in `/proc/<pid>/status`). Both need the
engine on this machine, which is the wizard's setting (it drives the local 910B host's engine).
"""

from __future__ import annotations

import os
import queue
import signal
import threading
import time
from typing import Any, Iterator, Mapping, Sequence

from checks.host import CommandResult, DiskUsage, PathInfo
from wizard.hosts.local import OUTPUT_CAP, kind_of

#: exec exit code and message fragments meaning "the executable was not found".
_NOT_FOUND_CODES = (126, 127)
_NOT_FOUND_TEXT = (b"executable file not found", b"no such file or directory", b"not found")

_END = object()


class ContainerUnavailable(OSError):
    """The container is missing, stopped, or the Docker engine refused the exec or is unreachable.

    `str(exc)` is one plain sentence for the operator (see `container_problem`), the same
    wherever it shows: a done() probe in `plan`, a failed step, a verify result.

    Attributes:
        why: "missing", "stopped", "engine" (unreachable or refused).
    """

    def __init__(self, message: str, why: str = "engine"):
        super().__init__(message)
        self.why = why

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the container is unavailable"


def container_problem(name: str, status: str | None = None) -> str:
    """The one sentence for a container that cannot run commands.

    Args:
        name: the container's name (the recipe's, `pi`).
        status: None when no container has that name; else its Docker status (`exited`,
            `created`, `paused`, ...).

    Returns:
        e.g. "The container 'pi' does not exist yet: run the container stage first
        (pi05-wizard run container)." or "The container 'pi' is stopped (exited): run the container
        stage to start it (pi05-wizard run container)." The command carries the CLI's global options
        (`wizard.hints`).
    """
    from wizard.hints import command

    run = command("run", "container")
    if status is None:
        return f"The container {name!r} does not exist yet: run the container stage first ({run})."
    state = "paused" if status == "paused" else f"stopped ({status})"
    return f"The container {name!r} is {state}: run the container stage to start it ({run})."


def engine_problem(detail: object) -> str:
    """The one sentence for a Docker engine that cannot be reached (`detail`: the SDK's error, first line kept)."""
    first = (str(detail).splitlines() or [""])[0][:160]
    return (f"The Docker engine is not reachable ({first}): start it (systemctl start docker) and check that "
            "this user may use it (root or the docker group).")


def unavailable(client: Any, name: str, exc: BaseException | None = None) -> ContainerUnavailable:
    """Why commands cannot run in container `name`, asked from the engine: a `ContainerUnavailable`.

    Args:
        client: a `docker.DockerClient`.
        name: the container's name.
        exc: the error that showed it (an exec refused), kept in the message when the container
            exists and runs (the engine refused for another reason).
    """
    import docker.errors

    try:
        status = client.containers.get(name).status
    except docker.errors.NotFound:
        return ContainerUnavailable(container_problem(name), "missing")
    except Exception as err:  # noqa: BLE001 - engine gone between the two calls
        return ContainerUnavailable(engine_problem(err), "engine")
    if status != "running":
        return ContainerUnavailable(container_problem(name, status), "stopped")
    detail = _explain(exc) if exc is not None else "unknown reason"
    return ContainerUnavailable(f"The Docker engine refused to run a command in the container {name!r}: {detail}",
                                "engine")


class ExecStream:
    """One command exec'd in a container, streamed: the runner's `StepProcess` for containers.

    A reader thread pulls the Docker SDK's demuxed frames into a bounded queue, so `chunks()`
    can tick while the command is silent (cancel and deadline checks) and a fast producer is
    throttled instead of filling memory.

    Raises (from the constructor):
        ContainerUnavailable: the exec could not be created or started.
    """

    def __init__(self, client: Any, container: str, argv: Sequence[str], env: Mapping[str, str] | None = None,
                 cwd: str | None = None, tick_s: float = 0.1, user: str = ""):
        import docker.errors

        self._client = client
        self._container = container
        self._tick = tick_s
        self._queue: queue.Queue = queue.Queue(maxsize=256)
        self._closed = threading.Event()
        self._exit: int | None = None
        self._last_inspect = 0.0
        try:
            ex = client.api.exec_create(container, list(argv), stdout=True, stderr=True,
                                        environment=dict(env) if env else None, workdir=cwd or None,
                                        user=user)
            self.exec_id: str = ex["Id"]
            frames = client.api.exec_start(self.exec_id, stream=True, demux=True)
        except docker.errors.DockerException as exc:  # NotFound, 409 not running/paused, engine gone
            raise unavailable(client, container, exc) from exc
        except OSError as exc:  # the engine's socket went away
            raise ContainerUnavailable(engine_problem(exc), "engine") from exc
        self._reader = threading.Thread(target=self._pump, args=(frames,), daemon=True,
                                        name=f"exec-{self.exec_id[:12]}")
        self._reader.start()

    def _pump(self, frames: Iterator[tuple[bytes | None, bytes | None]]) -> None:
        try:
            for out, err in frames:
                for name, data in (("stdout", out), ("stderr", err)):
                    if data:
                        self._put((name, data))
        except Exception as exc:  # noqa: BLE001 - the engine went away mid-stream
            self._put(("stderr", f"[docker stream broke: {exc}]\n".encode()))
        finally:
            self._put(_END)

    def _put(self, item: object) -> None:
        while not self._closed.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def chunks(self) -> Iterator[tuple[str, bytes] | None]:
        """Yield `(stream, bytes)` as frames arrive, None on idle ticks, until the stream ends."""
        try:
            while True:
                try:
                    item = self._queue.get(timeout=self._tick)
                except queue.Empty:
                    yield None
                    continue
                if item is _END:
                    return
                yield item  # type: ignore[misc]
        finally:
            self._closed.set()

    def _inspect(self) -> dict:
        try:
            return self._client.api.exec_inspect(self.exec_id)
        except Exception:  # noqa: BLE001 - engine gone: treat as ended without a code
            return {"Running": False, "ExitCode": None, "Pid": 0}

    def poll(self) -> int | None:
        """The exit code once the command ended, else None (asks the engine at most every 0.5 s)."""
        if self._exit is not None:
            return self._exit
        now = time.monotonic()
        if now - self._last_inspect < 0.5 and self._reader.is_alive():
            return None
        self._last_inspect = now
        info = self._inspect()
        if info.get("Running"):
            return None
        code = info.get("ExitCode")
        self._exit = int(code) if code is not None else -1
        return self._exit

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait until the command ended (up to `timeout` seconds); its exit code, or None."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._reader.join(timeout)
        while True:
            self._last_inspect = 0.0
            code = self.poll()
            if code is not None:
                return code
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(0.05)

    def signal(self, sig: int) -> None:
        """Send `sig` to the exec'd process group (see the module docstring for how)."""
        info = self._inspect()
        pid = int(info.get("Pid") or 0)
        if pid <= 0 or not info.get("Running"):
            return  # ended: its pid may already belong to someone else
        try:
            os.killpg(pid, sig)
            return
        except ProcessLookupError:
            return
        except PermissionError:
            pass
        nspid = _namespace_pid(pid)
        if nspid is None:
            return
        try:
            ex = self._client.api.exec_create(self._container, ["kill", "-s", signal.Signals(sig).name[3:], "--",
                                                                 f"-{nspid}"], user="0")
            self._client.api.exec_start(ex["Id"])
        except Exception:  # noqa: BLE001 - nothing more we can do from here
            pass


def _namespace_pid(host_pid: int) -> int | None:
    """The innermost-namespace pid of a host pid (last field of `NSpid:` in /proc/PID/status)."""
    try:
        with open(f"/proc/{host_pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _explain(exc: Exception) -> str:
    return str(getattr(exc, "explanation", None) or exc)


class ContainerHost:
    """A running container as a Host (`checks.host.Host`), over the Docker SDK.

    Args:
        name: the container's name (the recipe's, `pi` by default).
        client: a `docker.DockerClient`; default `docker.from_env()`.

    Attributes:
        name: the display label, `container:<name>`.
        container: the container's name.

    Raises:
        ContainerUnavailable: from the constructor when no engine is reachable (`engine_problem`).
    """

    def __init__(self, name: str = "pi", client: Any = None, tick_s: float = 0.1):
        if client is None:
            import docker
            import docker.errors

            try:
                client = docker.from_env()
            except docker.errors.DockerException as exc:
                raise ContainerUnavailable(engine_problem(exc), "engine") from exc
        self.client = client
        self.container = name
        self.name = f"container:{name}"
        self._tick = tick_s
        self._env: dict[str, str] | None = None
        self._unavailable: ContainerUnavailable | None = None

    # -- commands --------------------------------------------------------------
    def stream(self, argv: Sequence[str], env: Mapping[str, str] | None = None,
               cwd: str | None = None) -> ExecStream:
        """Start argv in the container, streamed (what the runner uses for container steps).

        Raises:
            ContainerUnavailable: the container is missing or stopped, or the engine refused.
        """
        if not argv:
            raise ValueError("empty argv")
        return ExecStream(self.client, self.container, argv, env, cwd, self._tick)

    def run(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
            cwd: str | None = None) -> CommandResult:
        """Run argv in the container to completion or until `timeout` seconds.

        On timeout the exec'd process group is killed (SIGKILL, see the module docstring) and
        the result says `timed_out=True`. An executable the container lacks gives `not_found=True`;
        a missing or stopped container gives returncode None with `container_problem`'s sentence in stderr.
        """
        if not argv:
            raise ValueError("empty argv")
        args = tuple(argv)
        start = time.monotonic()
        try:
            ex = ExecStream(self.client, self.container, args, env, cwd, self._tick)
        except ContainerUnavailable as exc:
            self._unavailable = exc
            return CommandResult(argv=args, returncode=None, stderr=str(exc), duration_s=time.monotonic() - start)
        bufs = {"stdout": bytearray(), "stderr": bytearray()}
        deadline = start + timeout
        timed_out = False
        for item in ex.chunks():
            if item is not None:
                name, data = item
                room = OUTPUT_CAP - len(bufs[name])
                if room > 0:
                    bufs[name] += data[:room]
            if not timed_out and time.monotonic() > deadline:
                timed_out = True
                ex.signal(signal.SIGKILL)
        code = ex.wait(5.0)
        out, err = bytes(bufs["stdout"]), bytes(bufs["stderr"])
        not_found = (not timed_out and code in _NOT_FOUND_CODES and b"OCI runtime exec failed" in out + err
                     and any(t in (out + err).lower() for t in _NOT_FOUND_TEXT))
        return CommandResult(
            argv=args, returncode=None if (timed_out or not_found) else code,
            stdout=out.decode("utf-8", errors="replace"), stderr=err.decode("utf-8", errors="replace"),
            duration_s=time.monotonic() - start, timed_out=timed_out, not_found=not_found,
        )

    def _small(self, argv: Sequence[str], timeout: float = 30.0) -> CommandResult:
        res = self.run(argv, timeout=timeout)
        if res.returncode is None and not res.timed_out and not res.not_found:
            last = self._unavailable
            raise ContainerUnavailable(str(last), last.why) if last else unavailable(self.client, self.container)
        return res

    def which(self, name: str) -> str | None:
        """Where an executable is found on the container's PATH (or that path, if it holds a `/`), or None."""
        if not name or name.startswith("-"):
            return None
        if "/" in name:
            info = self.stat(name)
            return name if info is not None and info.kind == "file" and info.mode & 0o111 else None
        # A PATH walk, not `command -v`: busybox's sh answers a bare "sh" for its own applets.
        script = 'IFS=:; for d in $PATH; do [ -f "$d/$1" ] && [ -x "$d/$1" ] && { echo "$d/$1"; exit 0; }; done; exit 1'
        res = self._small(["sh", "-c", script, "sh", name])
        path = res.stdout.strip()
        return path if res.returncode == 0 and path.startswith("/") else None

    def environ(self) -> Mapping[str, str]:
        """The environment an exec'd command sees (`env` in the container; cached)."""
        if self._env is None:
            res = self._small(["env"])
            env: dict[str, str] = {}
            for line in res.stdout.splitlines():
                key, sep, value = line.partition("=")
                if sep and key:
                    env[key] = value
            self._env = env
        return self._env

    # -- paths -----------------------------------------------------------------
    def read_text(self, path: str, max_bytes: int = 1 << 20) -> str:
        """Read at most `max_bytes` of a file in the container (`head -c`), UTF-8 with errors replaced.

        Raises:
            FileNotFoundError, IsADirectoryError, PermissionError: as for a local file.
            ContainerUnavailable: the container cannot be reached.
        """
        script = ('[ -d "$1" ] && exit 21; [ -e "$1" ] || exit 2; [ -r "$1" ] || exit 13; '
                  'exec head -c "$2" "$1"')
        res = self._small(["sh", "-c", script, "sh", path, str(int(max_bytes))])
        errors = {2: FileNotFoundError, 21: IsADirectoryError, 13: PermissionError}
        if res.returncode in errors:
            exc = errors[res.returncode]  # type: ignore[index]
            raise exc(res.returncode, os.strerror(res.returncode or 0), path)
        if res.returncode != 0:
            raise OSError(f"{path}: could not read in {self.name}: {res.stderr.strip() or res.returncode}")
        return res.stdout[: max_bytes] if len(res.stdout) > max_bytes else res.stdout

    def stat(self, path: str) -> PathInfo | None:
        """Describe a path in the container (`stat -L -c '%f %s %t %T'`), or None when missing."""
        res = self._small(["stat", "-L", "-c", "%f %s %t %T", path])
        if res.returncode != 0:
            return None
        try:
            mode_hex, size, major, minor = res.stdout.split()
            mode = int(mode_hex, 16)
            return PathInfo(path=path, kind=kind_of(mode), size=int(size), mode=mode,
                            extra={"rdev": os.makedev(int(major, 16), int(minor, 16))})
        except ValueError:
            return None

    def listdir(self, path: str) -> list[str]:
        """Sorted names in a folder in the container (`ls -1A`); [] when missing or not a folder."""
        res = self._small(["sh", "-c", '[ -d "$1" ] && exec ls -1A "$1"', "sh", path])
        if res.returncode != 0:
            return []
        return sorted(n for n in res.stdout.split("\n") if n)

    def disk_usage(self, path: str) -> DiskUsage | None:
        """statvfs of the filesystem holding `path` in the container (`stat -f`), in bytes; None when missing."""
        res = self._small(["stat", "-f", "-c", "%S %b %f %a", path])
        if res.returncode != 0:
            return None
        try:
            frsize, blocks, bfree, bavail = (int(x) for x in res.stdout.split())
        except ValueError:
            return None
        total = blocks * frsize
        return DiskUsage(total=total, used=total - bfree * frsize, free=bavail * frsize)
