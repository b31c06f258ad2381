"""Provides `pi05-wizard report [--output FILE] [--no-redact]`: one Markdown file to paste into a ticket.

It holds the wizard and recipe versions, host facts (arch, OS, NPU table, CANN/driver/NNAL
versions, the host's Python and key packages, i.e. the wizard's own environment), the container's
torch / torch_npu / numpy / transformers / lerobot versions (or that it is not running), every
preflight check result (offline), each stage's last status, and the tail of each failed stage's log with what the remedy catalogue recognized in it.
Tokens and passwords are always redacted; IP and MAC addresses and user and host names are replaced
unless `--no-redact` (`wizard.cli.report_redact`); the last line printed counts each kind replaced.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

from wizard.cli.output import quiet_broken_pipe
from wizard.cli.report_redact import redact_counted, summary

#: Lines of a failed stage's log included in the report.
LOG_TAIL_LINES = 80

#: Packages whose versions the report lists.
KEY_PACKAGES = ("torch", "torch-npu", "torch_npu", "numpy", "lerobot", "transformers", "mindspeed", "accelerate",
                "opencv-python-headless", "torchcodec", "av", "huggingface-hub", "datasets", "te")

def redact(text: str, names: bool = True, users: tuple[str, ...] = (), hosts: tuple[str, ...] = (),
           keep_hosts: tuple[str, ...] = ()) -> str:
    """Hide secrets (always) and, when `names`, IP/MAC addresses and user and host names.

    See `wizard.cli.report_redact` for exactly what is replaced; `<user>`, `<host>`, `<ip>`, `<mac>`
    and `<redacted>` are the placeholders. The user name `root` is kept (it is in paths like /root/lerobot).
    """
    return redact_counted(text, names=names, users=users, hosts=hosts, keep_hosts=keep_hosts)[0]


def register(subparsers: Any) -> None:
    """Add the `report` subcommand."""
    p = subparsers.add_parser("report", help="write a Markdown report to paste into a support ticket",
                              description="Collect versions, host facts, check results, stage states and the "
                                          "failed stage's log tail into one Markdown file (secrets redacted).")
    p.add_argument("--output", "-o", metavar="FILE", default=None,
                   help="where to write it (default: pi05-wizard-report-<date>.md in the current folder; - for stdout)")
    p.add_argument("--no-redact", action="store_true", help="keep IP/MAC addresses and user and host names (secrets are always hidden)")
    p.set_defaults(func=handle)


def _fence(text: str) -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}text\n{text.rstrip()}\n{ticks}"


def _first_value(text: str, keys: tuple[str, ...]) -> str | None:
    for ln in text.splitlines():
        ln = re.sub(r"^\s*\d+\s+", "", ln)  # `cat -n` numbering (case 06)
        m = re.match(r"\s*([\w .-]+?)\s*[=:]\s*(.+?)\s*$", ln)
        if m and m.group(1).strip().lower() in keys:
            return m.group(2)
    return None


def host_facts(host) -> list[tuple[str, str]]:
    """(name, value) pairs about the host: arch, OS, driver/CANN/NNAL versions (from their version files)."""
    facts: list[tuple[str, str]] = []
    res = host.run(["uname", "-m"], timeout=10)
    arch = res.stdout.strip() if res.ok else "unknown"
    facts.append(("arch", arch))
    try:
        os_rel = host.read_text("/etc/os-release")
        facts.append(("OS", (_first_value(os_rel, ("pretty_name",)) or "unknown").strip('"')))
    except OSError:
        facts.append(("OS", "unknown (no /etc/os-release)"))
    files = [
        ("NPU driver", "/usr/local/Ascend/driver/version.info", ("version", "package_version")),
        ("firmware", "/usr/local/Ascend/firmware/version.info", ("version",)),
        ("CANN toolkit", f"/usr/local/Ascend/ascend-toolkit/latest/{arch}-linux/ascend_toolkit_install.info", ("version",)),
        ("NNAL/ATB", "/usr/local/Ascend/nnal/atb/latest/version.info", ("ascend-cann-atb", "version")),
    ]
    for name, path, keys in files:
        try:
            value = _first_value(host.read_text(path), keys) or "unreadable"
        except OSError:
            value = f"not found ({path})"
        facts.append((name, value))
    return facts


def npu_smi_text(res) -> str:
    """The report's NPU section from a `npu-smi info` CommandResult.

    On success its stdout. Otherwise what it printed on both streams (trimmed; npu-smi prints
    case 03's "dcmi module initialize failed. ret is -8005" on stdout) and its exit code, or that
    it is not installed / timed out.
    """
    if res.ok:
        return res.stdout
    if res.not_found:
        return "npu-smi info failed: npu-smi not found (the Ascend driver is not installed or not on PATH)"
    how = "timed out" if res.timed_out else (
        f"exit code {res.returncode}" if res.returncode is not None else "did not run")
    parts = [f"npu-smi info failed ({how})"]
    for name, text in (("stdout", res.stdout), ("stderr", res.stderr)):
        text = (text or "").strip()
        if text:
            if len(text) > 4000:
                text = text[:4000] + " ..."
            parts.append(f"{name}:\n{text}")
    if len(parts) == 1:
        parts.append("(it printed nothing)")
    return "\n".join(parts)


def _packages(host, python: str) -> str:
    res = host.run([python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"], timeout=60)
    if not res.ok:
        return f"(pip list failed: {(res.stderr or 'not found').strip()[:200]})"
    wanted = {k.replace("_", "-") for k in KEY_PACKAGES}
    keep = [ln for ln in res.stdout.splitlines() if ln.split("==")[0].lower().replace("_", "-") in wanted]
    ver = host.run([python, "--version"], timeout=10)
    head = (ver.stdout or ver.stderr).strip()
    return "\n".join([head, *keep]) if keep else head + "\n(no key package installed)"


def container_packages(session, python: str = "python3", timeout_s: float = 30.0) -> str:
    """Versions of torch, torch_npu, numpy, transformers and lerobot inside the recipe's container.

    Asked through `session.container_host()` with the python check's probe
    (`checks.python_packages.probe_versions`). Returns lines `name version` ("not installed" for a
    missing one), or one line saying the container is not running (missing, stopped, or no engine).
    """
    from wizard.hosts.container import ContainerUnavailable

    name = getattr(getattr(session.recipe, "container", None), "name", "pi")
    try:
        container = session.container_host()
    except ContainerUnavailable as exc:
        return f"container not running ({exc})"
    except Exception as exc:  # noqa: BLE001 - a report must still be written
        return f"container not running (Docker: {type(exc).__name__})"
    from checks.python_packages import PACKAGES, probe_versions

    res = container.run(["true"], timeout=10)
    if res.returncode is None and not res.timed_out and not res.not_found:
        return f"container not running ({(res.stderr.strip() or 'no answer')[:200]})"
    versions, why = probe_versions(container, python, timeout_s)
    if versions is None:
        return f"container {name} is running, but its package versions could not be read ({why})"
    width = max(len(p) for p in PACKAGES)
    return "\n".join([f"container {name}:"] + [f"{p:<{width}}  {versions[p] or 'not installed'}" for p in PACKAGES])


def build_report(session, check_results=None, include_packages: bool = True) -> str:
    """The report as Markdown (not redacted). `check_results` default: every check, offline."""
    from wizard.remedies.catalogue import load_catalogue
    from wizard.remedies.matcher import match_text

    host = session.host
    cat = load_catalogue()
    try:
        from importlib.metadata import version

        wiz = version("pi05-wizard")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        wiz = "unknown"
    recipe_file = Path(__file__).resolve().parents[2] / "assets" / "recipe.toml"
    try:
        recipe_hash = hashlib.sha256(recipe_file.read_bytes()).hexdigest()[:12]
    except OSError:
        recipe_hash = "unknown"
    user_recipe = session.locations.user_recipe
    out = ["# pi05-wizard report", "",
           f"- generated: {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
           f"- wizard: {wiz} (Python {sys.version.split()[0]} running the wizard)",
           f"- recipe: default sha256 {recipe_hash}; user override: {'yes' if user_recipe.exists() else 'no'}; "
           f"CANN target {getattr(getattr(session.recipe, 'cann', None), 'version', '?')}",
           f"- host: {host.name}", "", "## Host", "", "| fact | value |", "| --- | --- |"]
    out += [f"| {k} | {v.replace('|', '/')} |" for k, v in host_facts(host)]
    res = host.run(["npu-smi", "info"], timeout=30)
    out += ["", "### NPUs (`npu-smi info`)", "", _fence(npu_smi_text(res))]
    if include_packages:
        python = getattr(getattr(session.recipe, "python", None), "executable", "python3")
        out += ["", f"### Python and key packages on the host (`{python}` on PATH: the wizard's environment, "
                "not the container's)", "", _fence(_packages(host, python))]
        out += ["", "### Python packages in the container", "", _fence(container_packages(session, python))]

    out += ["", "## Preflight checks (offline)", ""]
    if check_results is None:
        try:
            from checks.registry import run_checks

            check_results = run_checks(session.check_context(offline=True))
        except Exception as exc:  # noqa: BLE001 - a report must still be written
            out.append(f"(checks could not run: {type(exc).__name__}: {exc})")
            check_results = []
    for r in check_results:
        status = getattr(r.status, "value", str(r.status))
        out.append(f"- **{r.id}** {status}: {r.summary}")
        for m in r.messages:
            rem = f" (remedy `{m.remedy}`)" if m.remedy else ""
            out.append(f"  - {getattr(m.level, 'value', m.level)}: {m.text}{rem}")

    out += ["", "## Stages (last run)", ""]
    try:
        records = session.store.all()
    except Exception as exc:  # noqa: BLE001
        records = {}
        out.append(f"(state unreadable: {exc})")
    if not records:
        out.append("No stage has run yet.")
    else:
        out += ["| stage | status | exit | finished | remedies |", "| --- | --- | --- | --- | --- |"]
        for sid, rec in records.items():
            out.append(f"| {sid} | {rec.status.value} | {rec.exit_code if rec.exit_code is not None else ''} | "
                       f"{rec.finished or ''} | {', '.join(rec.remedies)} |")
    for sid, rec in records.items():
        if rec.status.value not in ("failed", "interrupted", "cancelled"):
            continue
        out += ["", f"### {sid}: {rec.status.value}" + (f" — {rec.reason}" if rec.reason else ""), ""]
        text = ""
        if rec.log_path:
            try:
                with open(rec.log_path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(64 << 20)
            except OSError as exc:
                out.append(f"(log {rec.log_path} unreadable: {exc.strerror})")
        tail = "\n".join(text.splitlines()[-LOG_TAIL_LINES:])
        if tail:
            out += [f"Last {LOG_TAIL_LINES} lines of the log:", "", _fence(tail), ""]
        matches = match_text(text, cat) if text else []
        if matches:
            out.append("Recognized:")
            for m in matches:
                out.append(f"- `{m.id}` ({m.severity}, line {m.line_no}): {cat[m.id].title}")
        else:
            out.append("Nothing in the catalogue matched this log.")
    return "\n".join(out) + "\n"


@quiet_broken_pipe
def handle(args: argparse.Namespace) -> int:
    """Write the report; print where it went."""
    from wizard.cli import EXIT_OK, UsageError
    from wizard.recipe import RecipeError
    from wizard.session import Session

    try:
        session = Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from exc
    text = build_report(session)
    users = (getpass.getuser(),)
    hosts = (socket.gethostname(), socket.gethostname().split(".")[0])
    try:
        keep = tuple(session.requirements().download_hosts)
    except Exception:  # noqa: BLE001 - the defaults of Requirements then
        from checks.context import Requirements

        keep = tuple(Requirements().download_hosts)
    text, counts = redact_counted(text, names=not args.no_redact, users=users, hosts=hosts, keep_hosts=keep)
    if args.output == "-":
        sys.stdout.write(text)
        print(summary(counts, not args.no_redact), file=sys.stderr)
        return EXIT_OK
    path = Path(args.output or f"pi05-wizard-report-{time.strftime('%Y%m%d-%H%M%S')}.md")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"report written to {path} ({len(text.splitlines())} lines); {summary(counts, not args.no_redact)}")
    return EXIT_OK
