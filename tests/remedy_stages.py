"""Test-only stages for the remedy-record tests, loaded through `PI05_WIZARD_EXTRA_STAGES=remedy_stages:stages`."""

from __future__ import annotations

import os
import sys

from wizard.stages.base import Stage, Step, Where

#: The line the torch import prints when the CANN env is not sourced (the catalogue's `cann-env-not-sourced`).
HCCL_LINE = "ImportError: libhccl.so: cannot open shared object file: No such file or directory"

STAGE_ID = "t-hccl"
ENV = {"PI05_WIZARD_EXTRA_STAGES": "remedy_stages:stages"}
HERE = os.path.dirname(os.path.abspath(__file__))


def stages() -> list[Stage]:
    """`t-hccl`: one host step that prints `HCCL_LINE` on stderr and exits 1."""
    program = f"import sys; print({HCCL_LINE!r}, file=sys.stderr); sys.exit(1)"
    return [Stage(id=STAGE_ID, title="Test: torch import without the CANN env", description="", where=Where.HOST,
                  steps=lambda ctx: [Step("import torch_npu", argv=[sys.executable, "-c", program])])]
