"""Provides `quiet_broken_pipe`: a command whose output is cut short (`| head`) ends quietly.

When the reader of stdout goes away, the next write raises `BrokenPipeError`; Python would print a
traceback, and again at exit when it flushes stdout. The wrapper catches it, points stdout at
/dev/null (so the exit-time flush cannot fail again) and returns `EXIT_BROKEN_PIPE` (0, as
`wizard.cli.main` does for every other command).
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Callable

#: Exit code after the reader closed the pipe: 0, like `main()` (the reader took what it wanted;
#: `set -o pipefail` scripts must not fail on `pi05-wizard config | head`).
EXIT_BROKEN_PIPE = 0


def silence_stdout() -> None:
    """Point the stdout file descriptor at /dev/null so Python's final flush does not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (captured in tests)
        pass


def quiet_broken_pipe(handler: Callable[..., int]) -> Callable[..., int]:
    """Wrap a command handler: a `BrokenPipeError` while printing becomes exit code 0 (`EXIT_BROKEN_PIPE`), no traceback."""

    @functools.wraps(handler)
    def wrapped(*args, **kwargs) -> int:
        try:
            code = handler(*args, **kwargs)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            silence_stdout()
            return EXIT_BROKEN_PIPE

    return wrapped
