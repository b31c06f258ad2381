"""Provides the `network` check: a bounded HEAD to each download host of the recipe."""

from __future__ import annotations

import threading

import requests

from checks.common import error, info, result, warn
from checks.context import CheckContext
from checks.result import CheckResult, Status


def _url(host: str) -> str:
    return host if "://" in host else f"https://{host}/"


def probe(url: str, timeout_s: float) -> str | None:
    """HEAD `url` without following redirects. Returns None when any HTTP answer came back, else the reason."""
    try:
        requests.head(url, timeout=timeout_s, allow_redirects=False)
        return None
    except requests.RequestException as exc:
        return type(exc).__name__


def check_network(ctx: CheckContext) -> CheckResult:
    """Every download host answers an HTTPS HEAD within `probe_timeout_s` (all probed at once).

    Any HTTP status counts as reachable (a 403 or 405 still proves the route); TLS is verified.
    `--offline` skips the probes.
    """
    req = ctx.requirements
    if ctx.offline:
        return result("network", Status.SKIP, "offline: download hosts not probed",
                      [info("--offline was given; stages that download will need the network or local copies.")])
    hosts = list(req.download_hosts)
    if not hosts:
        return result("network", Status.SKIP, "no download hosts in the recipe")
    answers: dict[str, str | None] = {}
    lock = threading.Lock()

    def one(h: str) -> None:
        r = probe(_url(h), req.probe_timeout_s)
        with lock:
            answers[h] = r

    threads = [threading.Thread(target=one, args=(h,), daemon=True) for h in hosts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(req.probe_timeout_s + 1.0)
    with lock:
        down = {h: answers.get(h, "no answer") for h in hosts if answers.get(h, "no answer") is not None}
    up = len(hosts) - len(down)
    details = {"unreachable": down, "probed": hosts}
    if not down:
        return result("network", Status.OK, f"all {len(hosts)} download hosts answer", **details)
    listing = ", ".join(f"{h} ({why})" for h, why in down.items())
    if up == 0:
        return result("network", Status.FAIL, f"none of {len(hosts)} download hosts answer", [error(
            f"No download host answered within {req.probe_timeout_s:g} s ({listing}); set HTTPS_PROXY or run the "
            "download stages where the network is open.")], **details)
    return result("network", Status.WARN, f"{up}/{len(hosts)} download hosts answer", [warn(
        f"Unreachable: {listing}; stages that use them will fail.")], **details)
