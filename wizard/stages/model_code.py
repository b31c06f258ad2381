"""Provides the `model-code` and `dependencies` stages: the pinned repositories, the patch, `pip check`.

Report, "模型环境安装": clone DrivingSDK; in `model_examples/Pi-0.5` clone lerobot at
b954337a..., copy in `../pi05.patch` and `../test/`, `git apply pi05.patch`, `pip install -e .`;
transformers at branch `fix/lerobot_openpi` then commit dcddb970...; MindSpeed at c357f9d2...
Then "依赖冲突说明": the numpy / te conflicts `pip check` reports that are harmless for training.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from checks.result import CheckResult
from wizard.recipe import Repo
from wizard.stages.base import ActionIO, Stage, StageContext, Step, Where
from wizard.stages.common import ProbeUnavailable, container_of, described, guarded, pip, probe_run, verdict
from wizard.stages.packages import normalize


def _cloned(repo: Repo):
    @described(f"{repo.dest}/.git exists")
    def probe(ctx: StageContext) -> bool:
        return container_of(ctx).stat(f"{repo.dest}/.git") is not None
    return probe


def head_commit(ctx: StageContext, repo: Repo) -> str | None:
    """`git rev-parse HEAD` of a clone, or None when it is not a clone."""
    res = probe_run(container_of(ctx), ["git", "-C", repo.dest, "rev-parse", "HEAD"])
    return res.stdout.strip() if res.ok else None


def patch_applied(ctx: StageContext) -> bool:
    """True when the Pi-0.5 patch is already applied to lerobot (`git apply --reverse --check`)."""
    lerobot = ctx.recipe.lerobot_dir
    res = probe_run(container_of(ctx), ["git", "apply", "--reverse", "--check", ctx.recipe.model_code.patch],
                    cwd=lerobot)
    return res.ok


def _repo_steps(ctx: StageContext, name: str, repo: Repo) -> list[Step]:
    mc = ctx.recipe.model_code
    steps = [Step(title=f"Clone {name}", argv=["git", "clone", repo.url, repo.dest], timeout_s=1800.0,
                  skip_if=_cloned(repo))]
    if repo.branch:
        steps.append(Step(title=f"Check out {name} branch {repo.branch}",
                          argv=["git", "checkout", repo.branch], cwd=repo.dest, timeout_s=300.0))
    if repo.commit:
        steps.append(Step(title=f"Check out {name} at {repo.commit[:10]}",
                          argv=["git", "checkout", repo.commit], cwd=repo.dest, timeout_s=300.0))
    if repo.apply_patch:
        steps += [
            Step(title=f"Copy {mc.patch} into {name}", argv=["cp", "-f", posixpath.join(mc.workdir, mc.patch), "."],
                 cwd=repo.dest, timeout_s=60.0),
            Step(title=f"Copy the {mc.test_dir}/ folder into {name}",
                 argv=["cp", "-rf", posixpath.join(mc.workdir, mc.test_dir), "."], cwd=repo.dest, timeout_s=60.0),
            Step(title=f"Apply {mc.patch}", argv=["git", "apply", mc.patch], cwd=repo.dest, timeout_s=120.0,
                 skip_if=described(f"already applied (git apply --reverse --check {mc.patch})")(patch_applied)),
        ]
    if repo.editable_install:
        steps.append(Step(title=f"Install {name} (editable)", argv=pip(ctx, "install", "-e", "."), cwd=repo.dest,
                          timeout_s=3600.0))
    return steps


def _steps(ctx: StageContext) -> list[Step]:
    steps: list[Step] = []
    for name, repo in ctx.recipe.model_code.repos.items():
        steps += _repo_steps(ctx, name, repo)
    return steps


def _installed_dists(ctx: StageContext) -> set[str]:
    names = [r.dist_name for r in ctx.recipe.model_code.repos.values() if r.editable_install and r.dist_name]
    res = probe_run(container_of(ctx), pip(ctx, "show", *names))
    return {normalize(line.split(":", 1)[1]) for line in res.stdout.splitlines() if line.startswith("Name:")}


def _repo_results(ctx: StageContext) -> list[CheckResult]:
    out = []
    for name, repo in ctx.recipe.model_code.repos.items():
        if not repo.commit:
            ok = container_of(ctx).stat(f"{repo.dest}/.git") is not None
            out.append(verdict(f"repo-{name}", f"{name} clone", ok, f"cloned at {repo.dest}" if ok else "not cloned"))
            continue
        head = head_commit(ctx, repo)
        out.append(verdict(f"repo-{name}", f"{name} at {repo.commit[:10]}", head == repo.commit,
                           f"HEAD is {head[:10] if head else 'missing'}",
                           problem=f"{repo.dest} should be at {repo.commit}"))
    if any(r.apply_patch for r in ctx.recipe.model_code.repos.values()):
        ok = patch_applied(ctx)
        out.append(verdict("pi05-patch", "Pi-0.5 patch applied", ok, "applied" if ok else "not applied",
                           problem="pi05.patch is not applied to lerobot", remedy="patch-does-not-apply"))
    wanted = {normalize(r.dist_name) for r in ctx.recipe.model_code.repos.values()
              if r.editable_install and r.dist_name}
    missing = sorted(wanted - _installed_dists(ctx))
    out.append(verdict("editable-installs", "Editable installs", not missing,
                       "lerobot, transformers and MindSpeed installed" if not missing else f"missing: {', '.join(missing)}"))
    return out


def _done(ctx: StageContext) -> bool:
    return all(r.status.value == "ok" for r in _repo_results(ctx))


MODEL_CODE = Stage(
    id="model-code",
    title="Model code",
    description=("Clones DrivingSDK's Pi-0.5 example and, inside it, lerobot, transformers and MindSpeed at the "
                 "pinned commits; applies Ascend's Pi-0.5 patch to lerobot and installs all three in editable mode."),
    where=Where.CONTAINER,
    steps=_steps,
    depends_on=("torch", "system-packages"),
    done=_done,
    verify_describe="each repository is at its pinned commit, and pi05.patch is applied to lerobot",
    verify=lambda ctx: guarded("model-code", "Model code", lambda: _repo_results(ctx)),
)


# -- dependencies --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Conflict:
    """One complaint of `pip check`.

    Attributes:
        package: the distribution that complains (normalized).
        requirement: the name of what it requires (normalized).
        line: the line as pip printed it.
        benign: True when the recipe lists it as harmless.
        reason: why it is harmless (from the recipe), or "".
    """

    package: str
    requirement: str
    line: str
    benign: bool = False
    reason: str = ""


# pip's `check` (pip/_internal/commands/check.py): "{name} {version} requires {req}, which is not installed."
# and "{name} {version} has requirement {req}, but you have {dep} {version}."; the resolver's form after
# an install (cases/12): "{name} {version} requires {req}, but you have {dep} {version} which is incompatible."
_LINE = re.compile(r"^(?P<pkg>[A-Za-z0-9][A-Za-z0-9._-]*) \S+ (?:requires|has requirement) (?P<req>[A-Za-z0-9][A-Za-z0-9._-]*)")
_PLATFORM = re.compile(r"^(?P<pkg>[A-Za-z0-9][A-Za-z0-9._-]*) \S+ is not supported on this platform")


def _harmless(line: str, key: tuple[str, str], benign: list | tuple):
    """The recipe entry that makes this complaint harmless, or None.

    The same rule as the remedy matcher's numpy-conflict classification (one list, one judgement):
    a numpy complaint is harmless only when it asks for numpy >= 2 while numpy 1.x stays installed.
    """
    from wizard.recipe import find_benign
    from wizard.remedies.matcher import classify_numpy_line

    entry = find_benign(key[0], key[1], benign)
    if entry is None or key[1] != "numpy":
        return entry
    return entry if classify_numpy_line(line, benign=benign) == "benign" else None


def parse_pip_check(text: str, benign: list | tuple = ()) -> list[Conflict]:
    """Every complaint in `pip check` output, each marked benign or not by the recipe's list.

    Lines that are neither a complaint nor "No broken requirements found." are ignored (warnings).
    """
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        m = _LINE.match(line)
        if m:
            key = (normalize(m.group("pkg")), normalize(m.group("req")))
        else:
            m = _PLATFORM.match(line)
            if not m:
                continue
            key = (normalize(m.group("pkg")), "")
        entry = _harmless(line, key, benign)
        out.append(Conflict(package=key[0], requirement=key[1], line=line, benign=entry is not None,
                            reason=entry.reason if entry is not None else ""))
    return out


def _check(ctx: StageContext) -> tuple[list[Conflict], str]:
    res = probe_run(container_of(ctx), pip(ctx, "check"), timeout=300.0)
    return parse_pip_check(res.stdout + "\n" + res.stderr, ctx.recipe.dependencies.benign), res.stdout


def run_pip_check(ctx: StageContext, io: ActionIO) -> int:
    """Run `pip check` in the container and judge each line; 1 when any conflict is not known benign."""
    try:
        conflicts, _ = _check(ctx)
    except ProbeUnavailable as exc:
        io.emit(f"pip check could not run: {exc}", stream="stderr")
        return 1
    if not conflicts:
        io.emit("pip check: no broken requirements")
    for c in conflicts:
        io.emit(f"{'harmless' if c.benign else 'CONFLICT'}: {c.line}" + (f"  ({c.reason})" if c.reason else ""),
                stream="stdout" if c.benign else "stderr")
    bad = [c for c in conflicts if not c.benign]
    io.emit(f"{len(conflicts)} complaint(s), {len(bad)} not known to be harmless")
    return 1 if bad else 0


def _deps_verify(ctx: StageContext) -> list[CheckResult]:
    def body() -> list[CheckResult]:
        conflicts, _ = _check(ctx)
        bad = [c for c in conflicts if not c.benign]
        return [verdict("pip-check", "Python dependencies", not bad,
                        f"{len(conflicts)} known harmless conflict(s)" if not bad
                        else f"{len(bad)} conflict(s) not known to be harmless",
                        problem="; ".join(c.line for c in bad[:3]))]
    return guarded("pip-check", "Python dependencies", body)


DEPENDENCIES = Stage(
    id="dependencies",
    title="Dependency check",
    description=("Runs `pip check` in the container and sorts what it reports: the numpy and te conflicts the "
                 "report found harmless for training are explained, anything else stops here."),
    where=Where.CONTAINER,
    steps=lambda ctx: [Step(title="Check Python dependencies", action=run_pip_check, timeout_s=300.0,
                            describe=" ".join(pip(ctx, "check")) + "   (harmless: " + ", ".join(
                                f"{b.package}->{b.requirement}" for b in ctx.recipe.dependencies.benign) + ")")],
    depends_on=("model-code",),
    done=lambda ctx: not [c for c in _check(ctx)[0] if not c.benign],
    verify=_deps_verify,
    verify_describe="`pip check` reports no conflict beyond the known harmless ones",
)
