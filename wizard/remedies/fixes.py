"""Provides the remedy fix actions that really run: file patches, profile lines, recorded decisions.

Every action takes a `FixContext` (the Host where the files are, the state folder, the values
the recipe gives) and returns a `FixResult`. Actions that edit a file keep a backup
(`<file>.pi05-wizard.orig`), are idempotent (applying twice changes nothing the second time) and
reversible (`revert_fix`). Remedies without a safe automatic fix return their instructions and
the stage to re-run.

File edits go through the Host: a `LocalHost` (rooted or not) is edited through its real paths;
any other Host (the container) by running `python3 -c <small program> ARGS` on it, argv only.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from checks.host import Host
from wizard.hints import command
from wizard.locations import Locations
from wizard.remedies.catalogue import Catalogue, load_catalogue
from wizard.remedies.matcher import classify_numpy_line

#: Marks every line the wizard adds to someone else's file.
MARKER = "# pi05-wizard:"
BACKUP_SUFFIX = ".pi05-wizard.orig"
TOOLKIT_SET_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
NNAL_SET_ENV = "/usr/local/Ascend/nnal/atb/set_env.sh"


class FixError(Exception):
    """A fix could not run (a file missing, an edit that would break the file); the message says why."""


@dataclass
class FixContext:
    """What a fix needs to know.

    Attributes:
        host: where the files live and commands run (the container for lerobot files).
        locations: the wizard's state folder (decisions are recorded under `state_dir/remedies/`).
        confirm: asked before anything destructive (container recreation, installs); True = go.
        dataset_path: the local dataset folder on `host` (e.g. /data/koch_test).
        lerobot_dir: the lerobot clone on `host`.
        quantile_script: path of the quantile script relative to `lerobot_dir`.
        patch_file: the patch lerobot gets (absolute, or relative to `lerobot_dir`).
        train_scripts: training scripts (absolute, or relative to `lerobot_dir`).
        visible_npus: how many NPUs training should use (None: count ASCEND_RT_VISIBLE_DEVICES or /dev/davinciN).
        profile: the shell profile that should source set_env.sh files (root's in the container).
        toolkit_set_env, nnal_set_env: the CANN env scripts.
        python: the Python executable on `host`.
        shm_size: the recipe's shm size (e.g. "500g").
        log_text: output to take numpy-conflict lines from (the failed stage's log).
        benign: the recipe's harmless `pip check` list (`recipe.dependencies.benign`), the same list
            the dependencies stage judges by; None = the shipped recipe's.
        recreate_container: callable(confirm) -> str that recreates the container with the recipe's
            settings (from `wizard.container`), or None when not available.
        run_converter: allow `hub-push-local-path` to re-run the converter when the dataset is not v3.0.
        container_shm: callable() -> the current container's /dev/shm size in bytes (Docker's
            HostConfig.ShmSize) and whether it uses `--ipc=host`, or None when there is no
            container or no engine; None = unknown.
    """

    host: Host
    locations: Locations
    confirm: Callable[[str], bool] = lambda _q: False
    dataset_path: str | None = None
    lerobot_dir: str | None = None
    quantile_script: str = "src/lerobot/datasets/v30/augment_dataset_quantile_stats.py"
    patch_file: str | None = None
    train_scripts: list[str] = field(default_factory=lambda: ["test/train_full.sh", "test/train_performance.sh"])
    visible_npus: int | None = None
    profile: str = "/root/.bashrc"
    toolkit_set_env: str = TOOLKIT_SET_ENV
    nnal_set_env: str = NNAL_SET_ENV
    python: str = "python3"
    shm_size: str = "500g"
    log_text: str = ""
    benign: Sequence | None = None
    recreate_container: Callable[[Callable[[str], bool]], str] | None = None
    run_converter: bool = True
    container_shm: Callable[[], "tuple[int, bool] | None"] | None = None

    def under_lerobot(self, path: str) -> str:
        """An absolute path on the host for a path relative to the lerobot clone."""
        if path.startswith("/") or not self.lerobot_dir:
            return path
        return f"{self.lerobot_dir.rstrip('/')}/{path}"


@dataclass
class FixResult:
    """What a fix did.

    Attributes:
        id: the remedy id.
        ok: the problem is fixed (or found already fixed / harmless).
        changed: something was written or run.
        message: plain sentences for the operator.
        rerun: the stage to re-run now ("" for none).
        details: one line per file touched or command run.
        automatic: False when only instructions could be given.
    """

    id: str
    ok: bool
    changed: bool
    message: str
    rerun: str = ""
    details: list[str] = field(default_factory=list)
    automatic: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"id": self.id, "ok": self.ok, "changed": self.changed, "message": self.message,
                "rerun": self.rerun, "details": self.details, "automatic": self.automatic}


# -- file access through a Host ----------------------------------------------------------------

_WRITE_PROG = "import os,sys\np=sys.argv[1]\nt=p+'.pi05-wizard.tmp'\nopen(t,'w',encoding='utf-8').write(sys.argv[2])\nos.replace(t,p)"
_REMOVE_PROG = "import os,sys\ntry: os.remove(sys.argv[1])\nexcept FileNotFoundError: pass"


def _read(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path, max_bytes=16 << 20)
    except OSError:
        return None


def _write(host: Host, path: str, text: str) -> None:
    real = getattr(host, "real_path", None)
    if callable(real):
        p = Path(real(path))
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".pi05-wizard.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(p)
        return
    res = host.run(["python3", "-c", _WRITE_PROG, path, text], timeout=60)
    if not res.ok:
        raise FixError(f"could not write {path} on {host.name}: {res.stderr.strip() or res.returncode}")


def _remove(host: Host, path: str) -> None:
    real = getattr(host, "real_path", None)
    if callable(real):
        Path(real(path)).unlink(missing_ok=True)
        return
    host.run(["python3", "-c", _REMOVE_PROG, path], timeout=60)


def _backup_once(host: Host, path: str, original: str) -> None:
    if host.stat(path + BACKUP_SUFFIX) is None:
        _write(host, path + BACKUP_SUFFIX, original)


def _edit(host: Host, path: str, original: str, new: str) -> None:
    """Replace a file's text, first keeping its original as `<path>.pi05-wizard.orig` (once; an empty
    original, i.e. a file the fix creates, needs no backup)."""
    if original:
        _backup_once(host, path, original)
    _write(host, path, new)


def _record(locations: Locations, name: str, data: dict) -> Path:
    folder = locations.state_dir / "remedies"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**data, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}, indent=2, ensure_ascii=False))
    tmp.replace(path)
    return path


def read_record(locations: Locations, name: str) -> dict | None:
    """A decision recorded by a fix (`state_dir/remedies/<name>.json`), or None."""
    try:
        return json.loads((locations.state_dir / "remedies" / f"{name}.json").read_text())
    except (OSError, ValueError):
        return None


# -- hub-push-local-path -----------------------------------------------------------------------

_PUSH_LINE = re.compile(r"^(?P<ind>[ \t]*)(?P<call>[\w.\[\]'\"]+\.push_to_hub\(.*\))[ \t]*(?:#.*)?$")
_HUB_MARK = f"{MARKER} hub-push-local-path"


def patch_quantile_script(text: str) -> tuple[str, bool]:
    """Stop a script from pushing to the Hub after it saved locally (pure function).

    Inside a function, a `return` is inserted before the `<x>.push_to_hub(...)` call (the Hub tag
    calls after it are skipped too); at module level the call is commented out. Each added or
    changed line carries `# pi05-wizard: hub-push-local-path`, which makes the patch detectable and
    reversible (`unpatch_quantile_script`). Shape: lerobot's augment_dataset_quantile_stats.py at
    the pinned commit, `write_stats(...)` then `dataset.push_to_hub()`.

    Returns:
        (new text, changed). Unchanged when the marker is already there.

    Raises:
        FixError: no push_to_hub() call found, or the result would not compile.
    """
    if _HUB_MARK in text:
        return text, False
    lines = text.split("\n")
    out: list[str] = []
    found = False
    for ln in lines:
        m = _PUSH_LINE.match(ln)
        if m and not ln.lstrip().startswith("#"):
            found = True
            ind = m.group("ind")
            if ind:
                out.append(f"{ind}return  {_HUB_MARK} (saved locally above; a local dataset is not pushed)")
                out.append(ln)
            else:
                out.append(f"{_HUB_MARK} | {ln}")
            continue
        out.append(ln)
    if not found:
        raise FixError("no push_to_hub() call found in the script: it may already have been edited by hand")
    new = "\n".join(out)
    try:
        compile(new, "<patched>", "exec")
    except SyntaxError as exc:
        raise FixError(f"the patched script would not compile ({exc.msg}, line {exc.lineno}); left unchanged") from None
    return new, True


def unpatch_quantile_script(text: str) -> tuple[str, bool]:
    """Undo `patch_quantile_script` (pure function); returns (text, changed)."""
    if _HUB_MARK not in text:
        return text, False
    out = []
    for ln in text.split("\n"):
        if _HUB_MARK not in ln:
            out.append(ln)
        elif ln.startswith(f"{_HUB_MARK} | "):
            out.append(ln[len(f"{_HUB_MARK} | "):])
        # else: an inserted `return` line: drop it
    return "\n".join(out), True


def dataset_saved_state(host: Host, dataset_path: str | None) -> tuple[bool, bool, list[str]]:
    """What a local dataset already has: (quantiles saved, is v3.0, sentences saying so).

    Reads `<path>/meta/stats.json` (quantiles = `q01` and `q99` for some feature) and
    `<path>/meta/info.json` (`codebase_version`), as lerobot writes them (datasets/tiny_v30).
    """
    notes: list[str] = []
    if not dataset_path:
        return False, False, ["no dataset path known; cannot tell whether the work was saved"]
    has_q = is_v30 = False
    raw = _read(host, f"{dataset_path}/meta/stats.json")
    if raw is not None:
        try:
            stats = json.loads(raw)
            has_q = isinstance(stats, dict) and any(
                isinstance(v, dict) and "q01" in v and "q99" in v for v in stats.values())
        except ValueError:
            notes.append(f"{dataset_path}/meta/stats.json is not valid JSON")
    raw = _read(host, f"{dataset_path}/meta/info.json")
    if raw is not None:
        try:
            info = json.loads(raw)
            is_v30 = isinstance(info, dict) and str(info.get("codebase_version", "")).startswith("v3")
        except ValueError:
            notes.append(f"{dataset_path}/meta/info.json is not valid JSON")
    notes.append(f"quantile statistics {'are already saved' if has_q else 'are not yet saved'} in {dataset_path}/meta/stats.json")
    notes.append(f"the dataset {'is already in format v3.0' if is_v30 else 'is not (yet) in format v3.0'}")
    return has_q, is_v30, notes


def fix_hub_push_local_path(ctx: FixContext) -> FixResult:
    """Check what was saved, patch the quantile script to save locally, re-run the converter if needed."""
    rid = "hub-push-local-path"
    has_q, is_v30, notes = dataset_saved_state(ctx.host, ctx.dataset_path)
    details = list(notes)
    changed = False
    script = ctx.under_lerobot(ctx.quantile_script)
    text = _read(ctx.host, script)
    if text is None:
        details.append(f"quantile script not found at {script}; nothing patched")
    else:
        new, did = patch_quantile_script(text)
        if did:
            _edit(ctx.host, script, text, new)
            changed = True
            details.append(f"patched {script}: it now stops after saving meta/stats.json (backup {script}{BACKUP_SUFFIX})")
        else:
            details.append(f"{script} is already patched")
    if ctx.dataset_path and not is_v30 and ctx.run_converter:
        old = ctx.dataset_path.rstrip("/") + "_old"
        if ctx.host.stat(old) is not None and ctx.host.stat(ctx.dataset_path) is not None:
            details.append(f"not re-running the converter: both {ctx.dataset_path} and {old} exist, and the "
                           f"converter would restore the old copy over the converted one; move one aside first")
        elif ctx.host.stat(ctx.dataset_path) is not None:
            argv = [ctx.python, "-m", "lerobot.datasets.v30.convert_dataset_v21_to_v30",
                    f"--repo-id={ctx.dataset_path}", "--push-to-hub=false"]
            res = ctx.host.run(argv, timeout=6 * 3600, cwd=ctx.lerobot_dir)
            changed = True
            details.append(f"ran {' '.join(argv)}: exit {res.returncode}")
            if not res.ok:
                return FixResult(rid, False, changed, "The converter failed again; see its output.", "dataset",
                                 details + [res.stderr.strip()[-2000:]])
    msg = ("The work was already saved locally; the Hub push was the only thing that failed. "
           if has_q or is_v30 else "")
    msg += "The quantile script no longer pushes to the Hub; the converter runs with --push-to-hub=false."
    return FixResult(rid, True, changed, msg, "dataset", details)


def revert_hub_push_local_path(ctx: FixContext) -> FixResult:
    """Undo the quantile-script patch (marker lines removed; the backup deleted when it matches)."""
    rid = "hub-push-local-path"
    script = ctx.under_lerobot(ctx.quantile_script)
    text = _read(ctx.host, script)
    if text is None:
        return FixResult(rid, False, False, f"{script} not found", "")
    new, did = unpatch_quantile_script(text)
    if did:
        _write(ctx.host, script, new)
    backup = _read(ctx.host, script + BACKUP_SUFFIX)
    if backup is not None and backup == new:
        _remove(ctx.host, script + BACKUP_SUFFIX)
    return FixResult(rid, True, did, f"{script} restored" if did else f"{script} was not patched", "dataset")


# -- world-size-mismatch -----------------------------------------------------------------------

_WORLD = re.compile(r"^(?P<head>[ \t]*(?:export[ \t]+)?world_size=)(?P<q>[\"']?)(?P<n>\d+)(?P=q)", re.MULTILINE)


def set_world_size(text: str, n: int) -> tuple[str, bool]:
    """Rewrite every `world_size=N` assignment (shell; optional export and quotes) to `n` (pure)."""
    changed = False

    def sub(m: re.Match[str]) -> str:
        nonlocal changed
        if int(m.group("n")) == n:
            return m.group(0)
        changed = True
        return f"{m.group('head')}{m.group('q')}{n}{m.group('q')}"

    return _WORLD.sub(sub, text), changed


def count_visible_npus(host: Host) -> int | None:
    """NPUs training would see: ASCEND_RT_VISIBLE_DEVICES's count, else the /dev/davinciN nodes."""
    vis = host.environ().get("ASCEND_RT_VISIBLE_DEVICES", "").strip()
    if vis:
        ids = [x for x in re.split(r"[,\s]+", vis) if x.isdigit()]
        if ids:
            return len(ids)
    n = sum(1 for name in host.listdir("/dev") if re.fullmatch(r"davinci\d+", name))
    return n or None


def fix_world_size(ctx: FixContext) -> FixResult:
    """Set `world_size=` in the training scripts to the number of visible NPUs (backup kept)."""
    rid = "world-size-mismatch"
    n = ctx.visible_npus or count_visible_npus(ctx.host)
    if not n:
        return FixResult(rid, False, False, "Cannot tell how many NPUs are visible (no ASCEND_RT_VISIBLE_DEVICES, "
                         "no /dev/davinciN); set world_size by hand.", "train")
    details, changed, found = [], False, 0
    for rel in ctx.train_scripts:
        path = ctx.under_lerobot(rel)
        text = _read(ctx.host, path)
        if text is None:
            details.append(f"{path}: not found")
            continue
        if not _WORLD.search(text):
            details.append(f"{path}: no world_size= line")
            continue
        found += 1
        new, did = set_world_size(text, n)
        if did:
            _edit(ctx.host, path, text, new)
            changed = True
            details.append(f"{path}: world_size={n} (backup {path}{BACKUP_SUFFIX})")
        else:
            details.append(f"{path}: already world_size={n}")
    if not found:
        return FixResult(rid, False, False, "No training script with a world_size= line was found.", "train", details)
    return FixResult(rid, True, changed, f"Training world size set to {n}, the number of visible NPUs.", "train", details)


def revert_world_size(ctx: FixContext) -> FixResult:
    """Restore the training scripts from their backups."""
    rid = "world-size-mismatch"
    details, changed = [], False
    for rel in ctx.train_scripts:
        path = ctx.under_lerobot(rel)
        backup = _read(ctx.host, path + BACKUP_SUFFIX)
        if backup is None:
            continue
        _write(ctx.host, path, backup)
        _remove(ctx.host, path + BACKUP_SUFFIX)
        changed = True
        details.append(f"{path}: restored")
    return FixResult(rid, True, changed, "Training scripts restored." if changed else "Nothing to restore.", "train", details)


# -- cann-env-not-sourced / nnal-missing -------------------------------------------------------

def _source_lines(ctx: FixContext, rid: str) -> list[str]:
    files = [ctx.toolkit_set_env] + ([ctx.nnal_set_env] if rid == "nnal-missing" else [])
    return [f"source {f}" for f in files]


#: The record (`state_dir/remedies/stage-env.json`) of the set_env.sh files container steps source:
#: `{"source": [file, ...], "by": {remedy id: [file, ...]}, "time": ...}` (`by` says which fix wants which).
STAGE_ENV_RECORD = "stage-env"


def stage_env_sources(locations: Locations) -> list[str]:
    """set_env.sh files a stage's commands must source first (recorded by the env fixes; read by the runner)."""
    rec = read_record(locations, STAGE_ENV_RECORD)
    files = rec.get("source") if isinstance(rec, dict) else None
    return [s for s in files if isinstance(s, str)] if isinstance(files, list) else []


def _stage_env_by(ctx: FixContext) -> dict[str, list[str]]:
    """The record's remedy id -> files map ({} without a record).

    A record written before it said which fix wants which file is read as the env fix that wrote
    it: `nnal-missing` when it lists NNAL's set_env.sh, else `cann-env-not-sourced`.
    """
    rec = read_record(ctx.locations, STAGE_ENV_RECORD)
    by = rec.get("by") if isinstance(rec, dict) else None
    if isinstance(by, dict):
        return {k: [f for f in v if isinstance(f, str)] for k, v in by.items()
                if isinstance(k, str) and isinstance(v, list)}
    legacy = stage_env_sources(ctx.locations)
    if not legacy:
        return {}
    return {"nnal-missing" if ctx.nnal_set_env in legacy else "cann-env-not-sourced": legacy}


def _save_stage_env(locations: Locations, by: dict[str, list[str]]) -> list[str]:
    """Write the record for `by` (removed when nothing is left); returns the files stages now source."""
    sources: list[str] = []
    for files in by.values():
        sources += [f for f in files if f not in sources]
    if sources:
        _record(locations, STAGE_ENV_RECORD, {"source": sources, "by": by})
    else:
        (locations.state_dir / "remedies" / f"{STAGE_ENV_RECORD}.json").unlink(missing_ok=True)
    return sources


def fix_env_sourced(ctx: FixContext, rid: str) -> FixResult:
    """Make the profile and the stage env source the toolkit's (and for nnal-missing NNAL's) set_env.sh."""
    lines = _source_lines(ctx, rid)
    missing = [ln.split(" ", 1)[1] for ln in lines if ctx.host.stat(ln.split(" ", 1)[1]) is None]
    if missing:
        what = "NNAL" if any("nnal" in m for m in missing) else "the CANN toolkit"
        return FixResult(rid, False, False, f"{', '.join(missing)} does not exist: {what} is not installed here. "
                         "Run the CANN stage to install it.", "cann", [f"missing: {m}" for m in missing])
    text = _read(ctx.host, ctx.profile) or ""
    present = {" ".join(ln.split("#", 1)[0].split()) for ln in text.split("\n")}
    add = [ln for ln in lines if ln not in present]
    details = []
    changed = False
    if add:
        block = "".join(f"{ln}  {MARKER} {rid}\n" for ln in add)
        new = text + ("" if not text or text.endswith("\n") else "\n") + block
        _edit(ctx.host, ctx.profile, text, new)
        changed = True
        details.append(f"{ctx.profile}: added {', '.join(add)}")
    else:
        details.append(f"{ctx.profile}: already sources {', '.join(ln.split(' ', 1)[1] for ln in lines)}")
    before = stage_env_sources(ctx.locations)
    by = _stage_env_by(ctx)
    by[rid] = [ln.split(" ", 1)[1] for ln in lines]
    sources = _save_stage_env(ctx.locations, by)
    changed = changed or sources != before
    details.append(f"stages now source: {', '.join(sources)}")
    return FixResult(rid, True, changed, "Every login and every stage now sources " +
                     " and ".join(ln.split(" ", 1)[1] for ln in lines) + ".", "cann" if rid == "nnal-missing" else "torch",
                     details)


def revert_env_sourced(ctx: FixContext, rid: str) -> FixResult:
    """Remove the profile lines this fix added (marked) and its files from the stage env record.

    The record is what the runner reads (`stage_env_sources`) before each container step: after
    the revert, stages source only what the other env fix (if applied) still asks for, and the
    record file is removed when nothing is left.
    """
    text = _read(ctx.host, ctx.profile)
    details: list[str] = []
    if text is not None and f"{MARKER} {rid}" in text:
        new = "\n".join(ln for ln in text.split("\n") if f"{MARKER} {rid}" not in ln)
        _write(ctx.host, ctx.profile, new)
        details.append(f"{ctx.profile}: removed the lines marked {MARKER} {rid}")
    before = stage_env_sources(ctx.locations)
    after = _save_stage_env(ctx.locations, {k: v for k, v in _stage_env_by(ctx).items() if k != rid})
    if after != before:
        details.append(f"stages now source: {', '.join(after)}" if after else "stages no longer source any set_env.sh")
    changed = bool(details)
    return FixResult(rid, True, changed, "Profile lines and stage sources removed." if changed else "Nothing to remove.",
                     "", details)


# -- patch-already-applied ---------------------------------------------------------------------

def fix_patch_already_applied(ctx: FixContext) -> FixResult:
    """Confirm with `git apply --reverse --check` that the patch is in, then record the step as done."""
    rid = "patch-already-applied"
    if not ctx.lerobot_dir or not ctx.patch_file:
        return FixResult(rid, False, False, "No lerobot folder or patch file known.", "model-code")
    patch = ctx.under_lerobot(ctx.patch_file)
    res = ctx.host.run(["git", "-C", ctx.lerobot_dir, "apply", "--reverse", "--check", patch], timeout=120)
    if res.not_found:
        return FixResult(rid, False, False, "git is not installed here.", "system-packages")
    if not res.ok:
        return FixResult(rid, False, False, "The reverse check fails, so the patch is not (fully) applied: "
                         "see patch-does-not-apply.", "model-code", [res.stderr.strip()[-1000:]])
    first = read_record(ctx.locations, "patch-applied") is None
    _record(ctx.locations, "patch-applied", {"lerobot_dir": ctx.lerobot_dir, "patch": patch})
    return FixResult(rid, True, first, "The patch is already applied (reverse check passes); the step is done.",
                     "model-code", [f"git apply --reverse --check {patch}: ok"])


# -- numpy-conflict ----------------------------------------------------------------------------

def fix_numpy_conflict(ctx: FixContext, catalogue: Catalogue | None = None) -> FixResult:
    """Classify the numpy conflict lines; record the benign ones, offer the numpy<2 pin otherwise."""
    from wizard.remedies.matcher import match_text

    rid = "numpy-conflict"
    cat = catalogue or load_catalogue()
    found = [m for m in match_text(ctx.log_text, cat, ctx.benign) if m.id == rid]
    lines = list(found[0].numpy_lines) if found else []
    if not lines:
        return FixResult(rid, False, False, "No numpy conflict lines to classify (run the dependencies stage, "
                         "or explain its log).", "dependencies")
    details = [f"{cls:8} {text}" for text, cls in lines]
    bad = [t for t, c in lines if c != "benign"]
    if not bad:
        _record(ctx.locations, "numpy-conflict", {"decision": "benign", "lines": [t for t, _ in lines]})
        return FixResult(rid, True, True, "All numpy conflicts are on the recipe's harmless list; "
                         "recorded, continue.", "", details)
    argv = [ctx.python, "-m", "pip", "install", "numpy<2", "opencv-python-headless<4.11"]
    if not ctx.confirm(f"Pin numpy below 2 with: {' '.join(argv)} ?"):
        return FixResult(rid, False, False, "Not known to be harmless. Offer: " + " ".join(argv) +
                         " (re-run with --yes to run it).", "dependencies", details, automatic=False)
    res = ctx.host.run(argv, timeout=1800)
    details.append(f"{' '.join(argv)}: exit {res.returncode}")
    return FixResult(rid, res.ok, True, "numpy pinned below 2." if res.ok else "The pin failed; see pip's output.",
                     "dependencies", details + ([] if res.ok else [res.stderr.strip()[-1500:]]))


# -- shm-too-small -----------------------------------------------------------------------------

def _current_shm(ctx: FixContext) -> str:
    """What the current container has, as a phrase ("has /dev/shm of 64.0 MiB"), or why unknown."""
    if ctx.container_shm is None:
        return "could not be inspected"
    try:
        got = ctx.container_shm()
    except Exception:  # noqa: BLE001 - engine errors: unknown
        got = None
    if got is None:
        return "does not exist or could not be inspected"
    size, ipc_host = got
    if ipc_host:
        return "shares the host's /dev/shm (--ipc=host)"
    from wizard.container.lifecycle import human_bytes

    return f"has /dev/shm of {human_bytes(size)}"


def fix_shm(ctx: FixContext) -> FixResult:
    """Recreate the container with the recipe's shm size, after confirmation.

    The question and the instructions say what the current container has (Docker's
    HostConfig.ShmSize, through `ctx.container_shm`) next to the recipe's `container.shm_size`.
    """
    rid = "shm-too-small"
    now = _current_shm(ctx)
    state = f"The current container {now}; the recipe's container.shm_size is {ctx.shm_size}."
    question = (f"{state} Remove the container and create it again with --shm-size {ctx.shm_size}? "
                "Only mounted folders (/data) survive.")
    manual = (f"{state} Recreate the container with --shm-size {ctx.shm_size}: "
              f"`{command('run', 'container', '--yes')}` recreates it when its /dev/shm is smaller than the "
              "recipe's (or docker rm -f the container and docker run it with the recipe's flags, or --ipc=host).")
    if ctx.recreate_container is None:
        return FixResult(rid, False, False, manual, "container", automatic=False)
    if not ctx.confirm(question):
        return FixResult(rid, False, False, "Not confirmed. " + manual, "container", automatic=False)
    try:
        outcome = ctx.recreate_container(ctx.confirm)
    except Exception as exc:  # noqa: BLE001 - engine errors become a plain result
        return FixResult(rid, False, False, f"Could not recreate the container: {exc}. {manual}", "container")
    return FixResult(rid, True, True, f"Container {outcome} with --shm-size {ctx.shm_size} (it {now} before).",
                     "train")


# -- dispatch ----------------------------------------------------------------------------------

def apply_fix(remedy_id: str, ctx: FixContext, catalogue: Catalogue | None = None) -> FixResult:
    """Run the fix of a remedy, or return its instructions when it has no automatic fix.

    Raises:
        KeyError: unknown remedy id.
        FixError: an edit could not be made safely.
    """
    cat = catalogue or load_catalogue()
    remedy = cat[remedy_id]
    if remedy_id == "hub-push-local-path":
        return fix_hub_push_local_path(ctx)
    if remedy_id == "world-size-mismatch":
        return fix_world_size(ctx)
    if remedy_id in ("cann-env-not-sourced", "nnal-missing"):
        return fix_env_sourced(ctx, remedy_id)
    if remedy_id == "patch-already-applied":
        return fix_patch_already_applied(ctx)
    if remedy_id == "numpy-conflict":
        return fix_numpy_conflict(ctx, cat)
    if remedy_id == "shm-too-small":
        return fix_shm(ctx)
    ok = remedy.severity == "info"
    return FixResult(remedy_id, ok, False, remedy.instructions, remedy.rerun, automatic=False)


def revert_fix(remedy_id: str, ctx: FixContext) -> FixResult:
    """Undo a file-editing fix (hub-push-local-path, world-size-mismatch, the env fixes).

    Raises:
        KeyError: the remedy has no reversible fix.
    """
    if remedy_id == "hub-push-local-path":
        return revert_hub_push_local_path(ctx)
    if remedy_id == "world-size-mismatch":
        return revert_world_size(ctx)
    if remedy_id in ("cann-env-not-sourced", "nnal-missing"):
        return revert_env_sourced(ctx, remedy_id)
    raise KeyError(f"{remedy_id} has no reversible fix")


#: Remedies whose files (lerobot's scripts, the CANN env, the profile) live in the container.
CONTAINER_FIXES = frozenset({"hub-push-local-path", "world-size-mismatch", "cann-env-not-sourced", "nnal-missing",
                             "patch-already-applied", "numpy-conflict"})


def fix_host(session: Any, remedy_id: str) -> Host:
    """The Host a remedy's fix edits: the container for `CONTAINER_FIXES`, else the session's host.

    The container is used only on the real machine (no `--root`) and when it is reachable; a
    simulated host (`--root`), an unreachable Docker engine or a missing container fall back to
    `session.host`, so the fix still runs (and says what it finds there).

    Args:
        session: a `wizard.session.Session` (`.host`, `.root`, `.container_host()`).
        remedy_id: the catalogue id of the fix to apply.

    Returns:
        The Host to pass as `context_from_session(..., host=...)`. Never raises.
    """
    if remedy_id in CONTAINER_FIXES and getattr(session, "root", None) is None:
        try:
            return session.container_host()
        except Exception:  # noqa: BLE001 - no engine, no container, a session without one: this host
            return session.host
    return session.host


def context_from_session(session: Any, yes: bool = False, host: Host | None = None,
                         confirm: Callable[[str], bool] | None = None) -> FixContext:
    """A FixContext from a `wizard.session.Session` and its recipe (values read defensively).

    Args:
        session: the Session.
        yes: answer every confirmation with yes (`--yes`).
        host: where the files are (default: the session's host; the CLI passes the container host
            when the container is running).
        confirm: a question callback (the TUI's dialog); default: `yes`.
    """
    r = session.recipe

    def get(path: str, default=None):
        obj = r
        for part in path.split("."):
            obj = obj.get(part) if isinstance(obj, dict) else getattr(obj, part, None)
            if obj is None:
                return default
        return obj

    lerobot = None
    repos = get("model_code.repos", {}) or {}
    if "lerobot" in repos:
        lerobot = getattr(repos["lerobot"], "dest", None)
    modes = get("train.modes", {}) or {}
    scripts = [getattr(m, "script", None) for m in (modes.values() if isinstance(modes, dict) else [])]
    vis = str(get("train.visible_devices", "") or "")
    n = len([x for x in re.split(r"[,\s]+", vis) if x.isdigit()]) or None
    recreate = None
    try:
        from wizard.container import lifecycle, spec as spec_mod
        from wizard.container.engine import docker_client  # noqa: F401

        def recreate(confirm_fn: Callable[[str], bool]) -> str:
            import docker

            settings = spec_mod.settings_from_recipe(r)
            sp = spec_mod.build_spec(settings, session.host)
            client = docker.from_env()
            try:
                client.containers.get(sp.name).remove(force=True)
            except docker.errors.NotFound:
                pass
            res = lifecycle.ensure_container(client, sp, lambda *a, **k: None, lambda _d: True,
                                             spec_mod.real_path_of(session.host))
            return res.outcome.value
    except Exception:  # noqa: BLE001 - no container package: instructions instead
        recreate = None

    def container_shm() -> tuple[int, bool] | None:
        import docker

        try:
            attrs = docker.from_env().containers.get(str(get("container.name", "pi"))).attrs
        except Exception:  # noqa: BLE001 - no engine, no container
            return None
        hc = attrs.get("HostConfig") or {}
        return int(hc.get("ShmSize") or 0), str(hc.get("IpcMode") or "") == "host"
    return FixContext(
        host=host or session.host, locations=session.locations,
        confirm=confirm or (lambda _q: yes),
        dataset_path=get("dataset.path"), lerobot_dir=lerobot,
        quantile_script=get("dataset.quantile_script", FixContext.quantile_script),
        patch_file=(f"{get('model_code.workdir')}/{get('model_code.patch')}" if get("model_code.patch") else None),
        train_scripts=[s for s in scripts if s] or FixContext.__dataclass_fields__["train_scripts"].default_factory(),
        visible_npus=n, toolkit_set_env=get("cann.toolkit_set_env", TOOLKIT_SET_ENV),
        nnal_set_env=get("cann.nnal_set_env", NNAL_SET_ENV), python=get("python.executable", "python3"),
        shm_size=str(get("container.shm_size", "500g")), recreate_container=recreate,
        container_shm=container_shm,
        benign=get("dependencies.benign"),
    )
