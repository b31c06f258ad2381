"""Provides `CHECKS`, the preflight in its fixed display order, and `run_checks`, which runs them at once.

Every check runs in its own daemon thread, bounded by one shared deadline: a check that hangs
(an `npu-smi` that never answers) becomes an `error` result at the deadline while the others
finish, and never keeps the process alive. An exception inside a check becomes an `error` result.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from checks import cann, devices, docker_check, network, npu, system
from checks.common import TITLES, error
from checks.context import CheckContext
from checks.result import CheckResult, Status

#: Seconds every check together may take (each command inside has its own, shorter timeout).
DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Check:
    """One preflight check: a stable id, its title and the function that asks the host."""

    id: str
    title: str
    func: Callable[[CheckContext], CheckResult]


def _c(check_id: str, func: Callable[[CheckContext], CheckResult]) -> Check:
    return Check(check_id, TITLES[check_id], func)


CHECKS: tuple[Check, ...] = (
    _c("arch", system.check_arch),
    _c("devices", devices.check_devices),
    _c("driver", npu.check_driver),
    _c("firmware", npu.check_firmware),
    _c("npu-smi", npu.check_npu_smi),
    _c("msnpureport", npu.check_msnpureport),
    _c("hccn-conf", npu.check_hccn_conf),
    _c("shm", system.check_shm),
    _c("cann-toolkit", cann.check_cann_toolkit),
    _c("cann-kernels", cann.check_cann_kernels),
    _c("nnal", cann.check_nnal),
    _c("compat", cann.check_compat),
    _c("docker", docker_check.check_docker),
    _c("disk", system.check_disk),
    _c("memory", system.check_memory),
    _c("python", system.check_python),
    _c("visible-devices", devices.check_visible_devices),
    _c("network", network.check_network),
)
"""Every check, in the order results are shown."""

CHECK_IDS: tuple[str, ...] = tuple(c.id for c in CHECKS)


def select(only: Iterable[str] | None) -> list[Check]:
    """The checks named in `only` (all when None), in the fixed order.

    Raises:
        ValueError: `only` names an unknown check id (the message lists the known ones).
    """
    if only is None:
        return list(CHECKS)
    wanted = list(only)
    unknown = [i for i in wanted if i not in CHECK_IDS]
    if unknown:
        raise ValueError(f"unknown check id(s): {', '.join(unknown)}; known: {', '.join(CHECK_IDS)}")
    return [c for c in CHECKS if c.id in wanted]


def run_one(check: Check, ctx: CheckContext) -> CheckResult:
    """Run one check; an exception becomes an `error` result. Sets `duration_s`."""
    start = time.monotonic()
    try:
        res = check.func(ctx)
    except Exception as exc:  # noqa: BLE001 - the error funnel: a broken check is a result, not a traceback
        res = CheckResult(id=check.id, title=check.title, status=Status.ERROR,
                          summary=f"check crashed: {type(exc).__name__}",
                          messages=[error(f"The check itself failed: {type(exc).__name__}: {exc}"[:300])])
    return res.model_copy(update={"duration_s": round(time.monotonic() - start, 4)})


def run_checks(
    ctx: CheckContext,
    only: Iterable[str] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> list[CheckResult]:
    """Run the selected checks concurrently, each in a daemon thread, all bounded by `timeout_s`.

    Args:
        ctx: the context every check gets.
        only: check ids to run (default: all); unknown ids raise ValueError.
        on_result: called once per result, from the worker thread as each check finishes (from the
            calling thread for checks that time out). Exceptions it raises are swallowed.
        timeout_s: seconds from the start after which unfinished checks become `error` results.

    Returns:
        One result per selected check, in the fixed order of `CHECKS`.
    """
    checks = select(only)
    results: dict[str, CheckResult] = {}
    lock = threading.Lock()
    closed = False

    def deliver(res: CheckResult) -> None:
        if on_result is not None:
            try:
                on_result(res)
            except Exception:  # noqa: BLE001 - a display callback must not break the run
                pass

    def work(check: Check) -> None:
        res = run_one(check, ctx)
        with lock:
            if closed:
                return
            results[check.id] = res
        deliver(res)

    start = time.monotonic()
    threads = [threading.Thread(target=work, args=(c,), name=f"check:{c.id}", daemon=True) for c in checks]
    for t in threads:
        t.start()
    deadline = start + timeout_s
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    with lock:
        closed = True
        late = [c for c in checks if c.id not in results]
        for c in late:
            results[c.id] = CheckResult(
                id=c.id, title=c.title, status=Status.ERROR, summary=f"no answer within {timeout_s:g} s",
                messages=[error(f"The check did not finish within {timeout_s:g} s and was abandoned.")],
                duration_s=round(time.monotonic() - start, 4))
    for c in late:
        deliver(results[c.id])
    return [results[c.id] for c in checks]
