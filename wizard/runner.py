"""Provides `run_stage`: runs one stage's steps, streams their output to sinks, records the run.

A command step starts in its own process group (a new session) on the step's host, its
stdout and stderr are read concurrently as they come (`wizard.streaming`), and every line goes
to every sink. A step that outlives its timeout, or a run the operator cancels, gets SIGTERM to
its whole group, then SIGKILL after a grace period. On Linux the group leader also gets SIGKILL
if the wizard itself dies (`PR_SET_PDEATHSIG`), so a `kill -9`'d wizard leaves no step running.

Steps inside the container go through the host's `stream(argv, env, cwd)` (see
`wizard.hosts.container.ContainerHost`); hosts with neither `stream` nor `resolve` (test
fixtures with canned outputs) fall back to `Host.run` and their output is replayed as lines.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Protocol, Sequence

from wizard.events import Line, Sink, StepOutcome
from wizard.hosts.container import ContainerUnavailable
from wizard.sinks import ConsoleSink, LineMatcher, LogFileSink, uses_batches
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where
from wizard.stages.common import plain_error
from wizard.state import FailedStep, StageRecord, StageStatus, StateStore, utcnow
from wizard.streaming import LineSplitter, read_pipes

if TYPE_CHECKING:  # pragma: no cover
    from checks.host import Host

__all__ = ["run_stage", "DEFAULT_GRACE_S", "LogFileSink", "ConsoleSink", "LineMatcher", "StepProcess",
           "log_path_for"]

#: Seconds between SIGTERM and SIGKILL when a step is cancelled or times out.
DEFAULT_GRACE_S = 5.0

_PR_SET_PDEATHSIG = 1
try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
    _PRCTL = _LIBC.prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux
    _PRCTL = None


class StepProcess(Protocol):
    """A started command, local or in a container, as the runner drives it."""

    def chunks(self) -> Iterator[tuple[str, bytes] | None]:
        """Yield `(stream, bytes)` as output arrives, None on idle ticks; ends at end of output."""
        ...

    def poll(self) -> int | None:
        """The exit code once the command ended, else None."""
        ...

    def signal(self, sig: int) -> None:
        """Send `sig` to the command's whole process group (ignored when it is gone)."""
        ...

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for the exit code (None when unknown after `timeout` seconds)."""
        ...


class _LocalProcess:
    """A local child in its own session, its pipes read by `read_pipes`."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: str | None, tick_s: float):
        parent = os.getpid()

        def _die_with_parent() -> None:  # runs in the child between fork and exec
            if _PRCTL is not None:
                _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:
                os._exit(137)

        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, start_new_session=True, preexec_fn=_die_with_parent, bufsize=0,
        )
        self._tick = tick_s

    def chunks(self) -> Iterator[tuple[str, bytes] | None]:
        out = os.dup(self.proc.stdout.fileno())  # type: ignore[union-attr]
        err = os.dup(self.proc.stderr.fileno())  # type: ignore[union-attr]
        self.proc.stdout.close()  # type: ignore[union-attr]
        self.proc.stderr.close()  # type: ignore[union-attr]
        return read_pipes({out: "stdout", err: "stderr"}, tick_s=self._tick)

    def poll(self) -> int | None:
        return self.proc.poll()

    def signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


class _Fanout:
    """Hands lines and events to every sink; a sink that raises is dropped with a note, not fatal."""

    def __init__(self, sinks: Sequence[Sink]):
        self.sinks = list(sinks)
        self._split()
        self.broken: list[str] = []
        self.reported_remedies: list[str] = []
        """Remedy ids action steps reported through `ActionIO.remedy`, in order, without repeats."""

    def report_remedy(self, remedy_id: str) -> None:
        """Record a remedy id an action step found itself (not through a line matcher)."""
        if isinstance(remedy_id, str) and remedy_id and remedy_id not in self.reported_remedies:
            self.reported_remedies.append(remedy_id)

    def _split(self) -> None:
        self.batch_sinks = [s for s in self.sinks if uses_batches(s)]
        self.line_sinks = [s for s in self.sinks if s not in self.batch_sinks]

    def _drop(self, sink: Sink, exc: BaseException) -> None:
        if sink in self.sinks:
            self.sinks.remove(sink)
            self._split()
            self.broken.append(f"{type(sink).__name__}: {type(exc).__name__}: {exc}")

    def batch(self, texts: list[str], stream: str, t: float, step: int, progress: bool) -> None:
        """The hot path: one chunk's lines from one stream."""
        for s in self.batch_sinks:
            try:
                s.line_batch(texts, stream, t, step, progress)  # type: ignore[attr-defined]
            except Exception as exc:  # noqa: BLE001 - one broken sink must not stop the run
                self._drop(s, exc)
        if self.line_sinks:
            lines = [Line(x, stream, t, step, progress) for x in texts]  # type: ignore[arg-type]
            for s in list(self.line_sinks):
                try:
                    for ln in lines:
                        s.line(ln)
                except Exception as exc:  # noqa: BLE001
                    self._drop(s, exc)

    def wizard(self, text: str, step: int = -1) -> None:
        """A line the runner itself writes (headers, verdicts)."""
        self.batch(text.split("\n"), "wizard", time.time(), step, False)

    def event(self, name: str, *args: object) -> None:
        for s in list(self.sinks):
            try:
                getattr(s, name)(*args)
            except Exception as exc:  # noqa: BLE001
                self._drop(s, exc)


def log_path_for(locations_logs_dir: Path, stage_id: str) -> Path:
    """A fresh log file path for a run: `<logs_dir>/<stage>-<YYYYmmdd-HHMMSS>.log` (suffixed if taken)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = locations_logs_dir / f"{stage_id}-{stamp}.log"
    n = 1
    while path.exists():
        n += 1
        path = locations_logs_dir / f"{stage_id}-{stamp}-{n}.log"
    return path


def _fmt_s(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def _host_name(stage: Stage, ctx: StageContext) -> str | None:
    if stage.where is Where.HOST:
        return getattr(ctx.host, "name", None)
    return "container"


def run_stage(
    stage: Stage,
    ctx: StageContext,
    sinks: Sequence[Sink],
    cancel: threading.Event,
    store: StateStore,
    force: bool = False,
    grace_s: float = DEFAULT_GRACE_S,
    tick_s: float = 0.1,
) -> StageRecord:
    """Run one stage to its end and return (and persist) its record.

    The run gets its own log file (`LogFileSink`, under `ctx.locations.logs_dir`) besides
    `sinks`. Sinks get `stage_started`, then per step `step_started`, lines, `step_finished`,
    then `stage_finished(status)` and `close()` (all sinks are closed here).

    Order: unless `force`, a stage whose `done(ctx)` is true is `skipped`; otherwise each step
    runs in order (a step's `skip_if(ctx)` true skips that step), stopping at the first one that
    fails, times out or is cancelled; then `verify(ctx)` runs and any fail/error result fails
    the stage. Remedy ids matched by `LineMatcher` sinks (their `ids`, e.g. the remedy catalogue's) go
    into the record.

    Args:
        stage: the stage to run.
        ctx: its context (recipe, host, locations, container factory, options).
        sinks: where lines and events go besides the log file (console, UI, matchers).
        cancel: set it from any thread to cancel: the running step's group gets SIGTERM, then
            SIGKILL after `grace_s` seconds; the stage ends `cancelled`.
        store: where the record is saved (as `running` at the start, then its final status).
        force: run even when `done(ctx)` says the work is there.
        grace_s: seconds between SIGTERM and SIGKILL.
        tick_s: seconds between checks of `cancel` and the deadline while a step is silent.

    Returns:
        The final `StageRecord` (also saved in `store`). Never raises for a failing step,
        probe or sink; those become the record's status and reason.
    """
    log_path = log_path_for(ctx.locations.logs_dir, stage.id)
    log_sink = LogFileSink(log_path)
    fan = _Fanout([log_sink, *sinks, *_extra_sinks(stage, ctx, sinks)])
    rec = StageRecord(stage_id=stage.id, status=StageStatus.RUNNING, started=utcnow(),
                      log_path=str(log_path), pid=os.getpid(), host=_host_name(stage, ctx))
    try:
        steps = stage.steps(ctx)
    except Exception as exc:  # noqa: BLE001
        steps = []
        rec = rec.model_copy(update={"status": StageStatus.FAILED,
                                     "reason": f"could not build the steps: {plain_error(exc)}"})
    fan.event("stage_started", stage.id, steps)
    fan.wizard(f"══ {stage.id}: {stage.title} ══")
    if rec.status is StageStatus.RUNNING:
        try:
            rec = _run_body(stage, ctx, steps, fan, cancel, store, rec, force, grace_s, tick_s)
        except BaseException as exc:  # KeyboardInterrupt, SystemExit: record it, then let it go on
            status = StageStatus.CANCELLED if isinstance(exc, KeyboardInterrupt) else StageStatus.FAILED
            store.save(rec.model_copy(update={"status": status, "finished": utcnow(),
                                              "reason": "cancelled (Ctrl-C)" if status is StageStatus.CANCELLED
                                              else "the wizard exited while the stage ran"}))
            fan.event("close")
            log_sink.close()
            raise
    remedies: list[str] = list(fan.reported_remedies)
    for s in sinks:
        try:
            ids = getattr(s, "ids", None) if isinstance(s, LineMatcher) else None
            for rid in ids or ():
                if isinstance(rid, str) and rid not in remedies:
                    remedies.append(rid)
        except Exception:  # noqa: BLE001 - a broken matcher must not lose the record
            pass
    rec = rec.model_copy(update={"finished": utcnow(), "remedies": remedies})
    fan.wizard(_stage_verdict(stage, rec))
    for note in fan.broken:
        fan.wizard(f"! a sink failed and was dropped: {note}")
    store.save(rec)
    fan.event("stage_finished", stage.id, rec.status.value)
    fan.event("close")
    log_sink.close()
    return rec


def _extra_sinks(stage: Stage, ctx: StageContext, sinks: Sequence[Sink]) -> list[Sink]:
    """Sinks a stage's declaration asks for: a metrics recorder for `metrics=True` stages.

    A `TrainingMetrics` the caller passed (the UI's live chart) is shared, not duplicated.
    """
    if not getattr(stage, "metrics", False):
        return []
    try:
        from wizard.training.metrics import TrainingMetrics
        from wizard.training.snapshot import MetricsRecorder, metrics_path

        shared = next((s for s in sinks if isinstance(s, TrainingMetrics)), None)
        return [MetricsRecorder(metrics_path(ctx.locations.stages_dir, stage.id), shared)]
    except Exception:  # noqa: BLE001 - progress is a convenience; the stage runs without it
        return []


def _stage_verdict(stage: Stage, rec: StageRecord) -> str:
    took = f" in {_fmt_s(rec.duration_s)}" if rec.duration_s is not None else ""
    if rec.status is StageStatus.SUCCEEDED:
        return f"✓ stage {stage.id} succeeded{took}"
    if rec.status is StageStatus.SKIPPED:
        return f"– stage {stage.id} skipped: {rec.reason}"
    where = f" at step {rec.failed_step.index + 1} \"{rec.failed_step.title}\"" if rec.failed_step else ""
    why = f": {rec.reason}" if rec.reason else ""
    return f"✗ stage {stage.id} {rec.status.value}{where}{why}"


def _run_body(stage: Stage, ctx: StageContext, steps: list[Step], fan: _Fanout, cancel: threading.Event,
              store: StateStore, rec: StageRecord, force: bool, grace_s: float, tick_s: float) -> StageRecord:
    if not force:
        try:
            done = bool(stage.done(ctx))
        except Exception as exc:  # noqa: BLE001
            fan.wizard(f"! the done() probe could not answer ({plain_error(exc)}); running the stage")
            done = False
        if done:
            return rec.model_copy(update={"status": StageStatus.SKIPPED,
                                          "reason": "already done (use --force to run it again)"})
    store.save(rec)
    exit_code: int | None = None
    for index, step in enumerate(steps):
        fan.event("step_started", index, step)
        where = step.where or stage.where
        fan.wizard(f"▶ [{index + 1}/{len(steps)}] {step.title}", index)
        outcome = None
        if cancel.is_set():
            outcome = StepOutcome(exit_code=None, duration_s=0.0, cancelled=True)
        elif step.skip_if is not None:
            try:
                if step.skip_if(ctx):
                    outcome = StepOutcome(exit_code=None, duration_s=0.0, skipped=True)
            except Exception as exc:  # noqa: BLE001
                fan.wizard(f"! the skip_if probe could not answer ({plain_error(exc)}); running the step", index)
        if outcome is None:
            suffix = "" if where is Where.HOST else "   (in the container)"
            fan.wizard(f"$ {step.command_text()}{suffix}", index)
            if where is Where.CONTAINER and step.argv is not None:
                step = _with_env_sources(step, ctx, fan, index)
            outcome = _run_step(step, index, where, ctx, fan, cancel, grace_s, tick_s)
        if outcome.exit_code is not None:  # an action's return value is its step's exit code too
            exit_code = outcome.exit_code
        fan.wizard(_step_verdict(index, outcome), index)
        fan.event("step_finished", index, step, outcome)
        if outcome.ok:
            continue
        failed = FailedStep(index=index, title=step.title)
        if outcome.cancelled:
            return rec.model_copy(update={"status": StageStatus.CANCELLED, "failed_step": failed,
                                          "exit_code": exit_code, "reason": "cancelled by the operator"})
        return rec.model_copy(update={"status": StageStatus.FAILED, "failed_step": failed,
                                      "exit_code": exit_code, "reason": _why(outcome)})
    rec = rec.model_copy(update={"exit_code": exit_code})
    try:
        results = list(stage.verify(ctx))
    except Exception as exc:  # noqa: BLE001
        return rec.model_copy(update={"status": StageStatus.FAILED,
                                      "reason": f"verify could not run: {plain_error(exc)}"})
    problems = []
    for r in results:
        fan.wizard(f"{r.status.mark} {r.id}: {r.summary}")
        for m in r.messages:
            fan.wizard(f"    {m.text}" + (f"  [remedy: {m.remedy}]" if m.remedy else ""))
        if r.status.is_problem:
            problems.append(r)
    if problems:
        names = ", ".join(f"{r.id} {r.status.value}" for r in problems)
        return rec.model_copy(update={"status": StageStatus.FAILED, "reason": f"verify: {names}"})
    return rec.model_copy(update={"status": StageStatus.SUCCEEDED})


def _why(o: StepOutcome) -> str:
    if o.timed_out:
        return f"timed out after {_fmt_s(o.duration_s)}"
    if o.error:
        return o.error
    return f"exit code {o.exit_code}"


def _step_verdict(index: int, o: StepOutcome) -> str:
    n = index + 1
    if o.skipped:
        return f"– step {n} skipped (its skip_if says the work is there)"
    if o.ok:
        return f"✓ step {n} done in {_fmt_s(o.duration_s)}"
    if o.cancelled:
        return f"✗ step {n} cancelled after {_fmt_s(o.duration_s)}"
    return f"✗ step {n} failed: {_why(o)}"


def _with_env_sources(step: Step, ctx: StageContext, fan: _Fanout, index: int) -> Step:
    """The step with the env scripts recorded by the `cann-env-not-sourced` / `nnal-missing` fixes sourced first.

    Uses `wizard.stages.common.sourced`: bash sources each script, then `exec`s the step's argv; the
    scripts and the argv are positional arguments of a fixed bash program, never spliced into its
    text, so quoting stays exact. A recorded script that does not exist (yet) in the container (the
    toolkit before the CANN stage installed it) is left out, with a line saying so.
    """
    from dataclasses import replace

    from wizard.remedies.fixes import stage_env_sources
    from wizard.stages.common import sourced

    try:
        recorded = stage_env_sources(ctx.locations)
    except Exception:  # noqa: BLE001 - an unreadable record must not stop the stage
        return step
    if not recorded:
        return step
    try:
        host = ctx.host_for(Where.CONTAINER)
        present = [f for f in recorded if host.stat(f) is not None]
    except Exception:  # noqa: BLE001 - no container: the step itself will say so
        return step
    for f in recorded:
        if f not in present:
            fan.wizard(f"  (not sourcing {f}: it does not exist in the container yet)", index)
    if not present:
        return step
    fan.wizard(f"  (sourcing {', '.join(present)} first, as `pi05-wizard fix` recorded)", index)
    return replace(step, argv=sourced(present, list(step.argv or [])))


def _run_step(step: Step, index: int, where: Where, ctx: StageContext, fan: _Fanout,
              cancel: threading.Event, grace_s: float, tick_s: float) -> StepOutcome:
    start = time.monotonic()
    if step.action is not None:
        return _run_action(step, index, ctx, fan, cancel, start)
    try:
        host = ctx.host_for(where)
    except Exception as exc:  # noqa: BLE001
        fan.batch([plain_error(exc)], "stderr", time.time(), index, False)
        return StepOutcome(exit_code=None, duration_s=0.0, error=plain_error(exc))
    assert step.argv is not None
    try:
        proc = _start(host, step, tick_s)
    except _NotStarted as exc:
        fan.batch([str(exc)], "stderr", time.time(), index, False)
        return StepOutcome(exit_code=None, duration_s=time.monotonic() - start, error=str(exc))
    if proc is None:  # a host without streaming: run to completion, then replay its output
        return _run_buffered(host, step, index, fan, start)
    return _drive(proc, step, index, fan, cancel, grace_s, start, tick_s)


class _NotStarted(Exception):
    pass


def _start(host: "Host", step: Step, tick_s: float) -> StepProcess | None:
    argv = list(step.argv or [])
    stream = getattr(host, "stream", None)
    if callable(stream):
        try:
            return stream(argv, env=dict(step.env), cwd=step.cwd)
        except Exception as exc:  # noqa: BLE001 - a Docker API error, a missing container
            if isinstance(exc, ContainerUnavailable):  # already one sentence saying what to do
                raise _NotStarted(str(exc)) from exc
            raise _NotStarted(f"could not start in {getattr(host, 'name', 'the container')}: {plain_error(exc)}") \
                from exc
    resolve = getattr(host, "resolve", None)
    if not callable(resolve):
        return None
    exe = resolve(argv[0])
    if exe is None:
        raise _NotStarted(f"{argv[0]}: command not found on {getattr(host, 'name', 'the host')}")
    env = dict(host.environ())
    env.update(step.env)
    real_path = getattr(host, "real_path", None)
    cwd = real_path(step.cwd) if step.cwd and callable(real_path) else step.cwd
    try:
        return _LocalProcess([exe, *argv[1:]], env, cwd, tick_s)
    except OSError as exc:
        raise _NotStarted(f"could not start {argv[0]}: {exc}") from exc


def _until_exit(chunks: Iterator[tuple[str, bytes] | None], proc: StepProcess,
                tick_s: float) -> Iterator[tuple[str, bytes] | None]:
    """The output chunks, then idle ticks while a command that closed its pipes still runs."""
    yield from chunks
    while proc.wait(tick_s) is None:
        yield None


def _drive(proc: StepProcess, step: Step, index: int, fan: _Fanout, cancel: threading.Event,
           grace_s: float, start: float, tick_s: float) -> StepOutcome:
    """Read a started process's output to the end, enforcing the timeout and cancel."""
    splitters = {"stdout": LineSplitter(), "stderr": LineSplitter()}
    deadline = start + step.timeout_s if step.timeout_s else None
    why: str | None = None  # "timeout" or "cancel" once we started killing
    term_at = exited_at = None
    killed = False
    batch = fan.batch
    chunks = proc.chunks()
    normal = False
    try:
        for item in _until_exit(chunks, proc, tick_s):
            if item is not None:
                name, data = item
                now = time.time()
                for texts, progress in splitters[name].feed(data):
                    batch(texts, name, now, index, progress)
            mono = time.monotonic()
            if why is None:
                if cancel.is_set():
                    why = "cancel"
                elif deadline is not None and mono > deadline:
                    why = "timeout"
                if why is not None:
                    fan.wizard(f"! {'cancelled' if why == 'cancel' else 'timed out'}: sending SIGTERM to the "
                               f"step's process group (SIGKILL in {grace_s:g} s)", index)
                    proc.signal(signal.SIGTERM)
                    term_at = mono
            elif not killed and term_at is not None and mono - term_at > grace_s:
                fan.wizard("! still running after the grace period: sending SIGKILL", index)
                proc.signal(signal.SIGKILL)
                killed = True
            if item is None and proc.poll() is not None:
                # The leader ended but something it started still holds the pipes open.
                if exited_at is None:
                    exited_at = mono
                elif mono - exited_at > grace_s:
                    proc.signal(signal.SIGKILL)
                    break
        normal = True
    finally:
        close = getattr(chunks, "close", None)
        if callable(close):
            close()
        if not normal:  # an exception (a sink, KeyboardInterrupt): never leave it running
            proc.signal(signal.SIGKILL)
        code = proc.wait()
        proc.signal(signal.SIGKILL)  # stragglers left in the group: no orphans
    now = time.time()
    for name, sp in splitters.items():
        for texts, progress in sp.flush():
            batch(texts, name, now, index, progress)
    took = time.monotonic() - start
    if why == "timeout":
        return StepOutcome(exit_code=None, duration_s=took, timed_out=True)
    if why == "cancel":
        return StepOutcome(exit_code=None, duration_s=took, cancelled=True)
    if code is not None and code < 0:
        return StepOutcome(exit_code=128 - code, duration_s=took, error=f"killed by signal {-code}")
    return StepOutcome(exit_code=code, duration_s=took)


def _run_buffered(host: "Host", step: Step, index: int, fan: _Fanout, start: float) -> StepOutcome:
    res = host.run(list(step.argv or []), timeout=step.timeout_s or 1e9, env=dict(step.env), cwd=step.cwd)
    now = time.time()
    for name, text in (("stdout", res.stdout), ("stderr", res.stderr)):
        sp = LineSplitter()
        for texts, progress in [*sp.feed(text.encode("utf-8")), *sp.flush()]:
            fan.batch(texts, name, now, index, progress)
    took = time.monotonic() - start
    if res.timed_out:
        return StepOutcome(exit_code=None, duration_s=took, timed_out=True)
    if res.not_found:
        return StepOutcome(exit_code=None, duration_s=took, error=f"{step.argv[0]}: command not found")  # type: ignore[index]
    return StepOutcome(exit_code=res.returncode, duration_s=took)


def _run_action(step: Step, index: int, ctx: StageContext, fan: _Fanout, cancel: threading.Event,
                start: float) -> StepOutcome:
    deadline = start + step.timeout_s if step.timeout_s else None

    def emit(text: str, stream: str = "stdout", progress: bool = False) -> None:
        fan.batch(str(text).split("\n"), stream, time.time(), index, progress)

    def cancelled() -> bool:
        """True once the operator cancelled or the step's timeout passed."""
        return cancel.is_set() or (deadline is not None and time.monotonic() > deadline)

    try:
        code = step.action(ctx, ActionIO(emit=emit, cancelled=cancelled, remedy=fan.report_remedy))  # type: ignore[misc]
    except Exception as exc:  # noqa: BLE001 - an action's crash is the step's failure
        fan.batch([plain_error(exc)], "stderr", time.time(), index, False)
        return StepOutcome(exit_code=None, duration_s=time.monotonic() - start,
                           error=plain_error(exc), cancelled=cancel.is_set())
    took = time.monotonic() - start
    if cancel.is_set():
        return StepOutcome(exit_code=None, duration_s=took, cancelled=True)
    if deadline is not None and time.monotonic() > deadline and code != 0:
        return StepOutcome(exit_code=None, duration_s=took, timed_out=True)
    return StepOutcome(exit_code=int(code) if code is not None else 0, duration_s=took)
