"""Provides `pi05-wizard plan [STAGE...] [--json]`: every step that would run, as the exact command.

For each stage: where it runs, what it depends on, whether its `done()` probe says it can be
skipped ("yes", "no", or "unknown (<why>)" when the probe cannot answer, e.g. the container is
not running), and each step's command shell-quoted for reading (action steps show their
equivalent command), then what its verify checks after the steps ("verify: ..."). Nothing is run
except the read-only done() probes.
"""

from __future__ import annotations

import argparse
import json
import shlex
from dataclasses import replace
from typing import Any, Callable

from wizard.cli import EXIT_OK, UsageError
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.stages.common import ProbeUnavailable, container_state, plain_error
from wizard.stages.registry import STAGE_IDS, get_stage


def register(subparsers: Any) -> None:
    """Add the `plan` subcommand."""
    p = subparsers.add_parser("plan", help="show every step that would run, as exact commands",
                              description="Show the steps of the given stages (default: all), in order, as "
                                          "exact commands, where they run and whether they can be skipped.")
    p.add_argument("stages", nargs="*", metavar="STAGE", help=f"stage ids ({', '.join(STAGE_IDS)})")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=handle)


def done_state(stage: Stage, ctx: StageContext) -> tuple[bool | None, str]:
    """Ask a stage's done() probe without letting it crash: (True/False/None for unknown, reason)."""
    try:
        return bool(stage.done(ctx)), ""
    except ProbeUnavailable as exc:
        return None, str(exc)
    except Exception as exc:  # a probe must never crash `plan`
        return None, plain_error(exc)[:300]


def _no_container(reason: str) -> Callable[[], Any]:
    def factory() -> Any:
        raise ProbeUnavailable(reason)
    return factory


def step_record(index: int, step: Step, stage: Stage) -> dict[str, Any]:
    """One step as plain data (the JSON form; the text form is built from it)."""
    where = (step.where or stage.where).value
    skip = step.skip_if
    return {
        "index": index,
        "title": step.title,
        "kind": "command" if step.argv is not None else "action",
        "argv": list(step.argv) if step.argv is not None else None,
        "command": step.command_text(),
        "where": where,
        "cwd": step.cwd,
        "env": dict(step.env),
        "timeout_s": step.timeout_s,
        "skip_if": (getattr(skip, "describe", None) or getattr(skip, "__name__", "probe")) if skip else None,
    }


def build_plan(ctx: StageContext, stage_ids: list[str],
               container_probe: Callable[[], tuple[bool, str]] | None = None) -> list[dict[str, Any]]:
    """The plan of `stage_ids` as plain data: one dict per stage with its steps.

    Args:
        container_probe: returns (running, reason); default asks Docker about the recipe's container.

    Raises:
        UsageError: an unknown stage id.
    """
    unknown = [s for s in stage_ids if s not in STAGE_IDS]
    if unknown:
        raise UsageError(f"unknown stage {', '.join(map(repr, unknown))}; stages: {', '.join(STAGE_IDS)}")
    stages = [get_stage(s) for s in (stage_ids or STAGE_IDS)]
    if any(s.where is Where.CONTAINER for s in stages):
        running, why = (container_probe or (lambda: container_state(ctx.recipe.container.name)))()
        if not running:  # probes that need the container say "unknown (<why>)" instead of guessing
            ctx = replace(ctx, container=_no_container(why))
    plan = []
    for stage in stages:
        done, why = done_state(stage, ctx)
        try:
            steps = [step_record(i, st, stage) for i, st in enumerate(stage.steps(ctx))]
            error = None
        except Exception as exc:  # a declaration that cannot build its steps is shown, not raised
            steps, error = [], plain_error(exc)
        plan.append({"id": stage.id, "title": stage.title, "description": stage.description,
                     "where": stage.where.value, "depends_on": list(stage.depends_on),
                     "done": done, "done_reason": why, "steps": steps, "error": error,
                     "verify": stage.verify_describe or None})
    return plan


def render_text(plan: list[dict[str, Any]]) -> str:
    """The plan for reading: a header per stage, then numbered steps with their commands."""
    out: list[str] = []
    for st in plan:
        deps = f"; after {', '.join(st['depends_on'])}" if st["depends_on"] else ""
        out.append(f"== {st['id']}: {st['title']}  [{st['where']}{deps}]")
        done = {True: "yes (already done; skipped unless --force)", False: "no"}.get(
            st["done"], f"unknown ({st['done_reason']})")
        out.append(f"   done: {done}")
        if st["error"]:
            out.append(f"   cannot build its steps: {st['error']}")
        for step in st["steps"]:
            out.append(f"   {step['index'] + 1}. {step['title']}  [{step['where']}]")
            out.append(f"      $ {step['command']}")
            extras = []
            if step["cwd"]:
                extras.append(f"in {shlex.quote(step['cwd'])}")
            extras.append("no time limit" if step["timeout_s"] is None else f"timeout {step['timeout_s']:g} s")
            if step["skip_if"]:
                extras.append(f"skip if {step['skip_if']}")
            out.append(f"      ({'; '.join(extras)})")
        if st.get("verify"):
            out.append(f"   verify: {st['verify']}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def handle(args: argparse.Namespace) -> int:
    """Print the plan; exit 0, or 2 for an unknown stage or a bad recipe."""
    from wizard import hints
    from wizard.session import Session

    hints.remember(args)
    session = Session.from_args(args)
    plan = build_plan(session.context(), list(args.stages))
    if args.json:
        print(json.dumps({"stages": plan}, indent=2))
    else:
        print(render_text(plan), end="")
    return EXIT_OK
