"""Provides `command(...)`: a `pi05-wizard ...` command line to print as advice, ready to copy and paste.

Every "run this" hint the wizard prints goes through here, so it carries the global options
(`--root`, `--recipe`, `--state-dir`) this invocation was given; without them a re-run would act
on the real machine, the default recipe or the default state folder. Words are shell-quoted
(`shlex.join`), so paths with spaces or quotes survive a copy-paste into bash.

The CLI handlers call `remember(args)` once; engine code that has no `args` (a stage's message,
the container host's) then gets the same options. Without `remember`, the hints are bare.
"""

from __future__ import annotations

import os
import shlex
from typing import Any

PROG = "pi05-wizard"

#: (flag, attribute on the parsed args) of the global options, in the order they are printed.
GLOBAL_OPTIONS: tuple[tuple[str, str], ...] = (("--root", "root"), ("--recipe", "recipe"),
                                               ("--state-dir", "state_dir"))

_remembered: tuple[str, ...] = ()


def global_options(args: Any) -> list[str]:
    """The global options given in `args` as argv words, paths made absolute (so a hint works from any folder).

    Args:
        args: a parsed `argparse.Namespace` (attributes `root`, `recipe`, `state_dir`; missing ones
            and None are left out), or None.

    Returns:
        e.g. `["--root", "/tmp/sim host", "--state-dir", "/tmp/state"]`.
    """
    words: list[str] = []
    for flag, attr in GLOBAL_OPTIONS:
        value = getattr(args, attr, None) if args is not None else None
        if value:
            words += [flag, os.path.abspath(os.fspath(value))]
    return words


def remember(args: Any) -> None:
    """Keep `args`' global options for every later `command()` in this process (the CLI calls this once)."""
    global _remembered
    _remembered = tuple(global_options(args))


def forget() -> None:
    """Drop the remembered options (tests)."""
    global _remembered
    _remembered = ()


def command(*words: str, args: Any = None) -> str:
    """`pi05-wizard [global options] WORDS...` as one shell-quoted line.

    Args:
        words: the command and its arguments, e.g. `("run", "preflight")`.
        args: parsed arguments to take the global options from; default the remembered ones.

    Returns:
        e.g. `"pi05-wizard --root '/tmp/sim host' run preflight"`.
    """
    opts = global_options(args) if args is not None else list(_remembered)
    return shlex.join([PROG, *opts, *(str(w) for w in words)])
