"""Test-only stages for the CLI tests, loaded through `PI05_WIZARD_EXTRA_STAGES=runner_stages:stages`."""

from __future__ import annotations

import os
import sys

from wizard.stages.base import Stage, Step, Where

SLEEPER = ("import os,sys,time\n"
           "print('child pid', os.getpid(), flush=True)\n"
           "print('to stderr', file=sys.stderr, flush=True)\n"
           "time.sleep(float(os.environ.get('SLEEP_S', '60')))\n"
           "print('woke up', flush=True)")


def stages() -> list[Stage]:
    """`t-ok` prints and succeeds; `t-sleep` sleeps (SLEEP_S seconds); `t-fail` exits 3 after t-ok."""
    return [
        Stage(id="t-ok", title="Test: prints", description="", where=Where.HOST,
              steps=lambda ctx: [Step("say hello", argv=[sys.executable, "-c", "print('hello from t-ok')"])]),
        Stage(id="t-sleep", title="Test: sleeps", description="", where=Where.HOST,
              steps=lambda ctx: [Step("sleep", argv=[sys.executable, "-c", SLEEPER], timeout_s=120)]),
        Stage(id="t-fail", title="Test: fails", description="", where=Where.HOST, depends_on=("t-ok",),
              steps=lambda ctx: [Step("fail", argv=[sys.executable, "-c",
                                                   "import sys; print('No module named \\'torch_npu\\'');"
                                                   " sys.exit(3)"])]),
    ]


ENV = {"PI05_WIZARD_EXTRA_STAGES": "runner_stages:stages"}
HERE = os.path.dirname(os.path.abspath(__file__))
