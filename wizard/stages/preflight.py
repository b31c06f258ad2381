"""Provides the `preflight` stage: every host check at once, failing on any fail or error."""

from __future__ import annotations

from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where


def run_preflight(ctx: StageContext, io: ActionIO) -> int:
    """Run the host checks (`wizard.preflight_run.run_preflight`) on the stage's host; one line per result.

    The last line is `check`'s summary ("14 ok, 2 warnings, 1 failed, 1 skipped in 0.16 s"), so the
    two commands count the same way.

    Returns:
        0 when no result is a problem (fail or error), else 1.
    """
    import time

    from wizard.cli.check_cmd import summary_line
    from wizard.preflight_run import run_preflight as run_checks_for

    started = time.monotonic()
    results = run_checks_for(ctx, offline=bool(ctx.options.get("offline", False)))
    took = time.monotonic() - started
    problems = 0
    for res in results:
        io.emit(f"{res.status.mark} {res.title}: {res.summary}")
        for msg in res.messages:
            io.emit(f"    {msg.text}" + (f"  [fix: {msg.remedy}]" if msg.remedy else ""))
        if res.status.is_problem or res.status.value == "warn":
            for remedy_id in res.remedies:
                io.remedy(remedy_id)
        problems += res.status.is_problem
    io.emit(summary_line(results, took))
    return 1 if problems else 0


def _steps(ctx: StageContext) -> list[Step]:
    from wizard.hints import command

    return [Step(title="Check the host (NPUs, driver, Docker, disk, network)", action=run_preflight,
                 describe=f"{command('check')}   (all preflight checks at once; fails on any fail)",
                 timeout_s=300.0)]


STAGE = Stage(
    id="preflight",
    title="Host preflight",
    description=("Checks the host before anything is installed: aarch64, the eight NPU device nodes, the "
                 "driver and firmware, npu-smi and msnpureport, /etc/hccn.conf, Docker, disk space and the "
                 "download hosts. It changes nothing; any failed check stops here with its fix."),
    where=Where.HOST,
    steps=_steps,
)
