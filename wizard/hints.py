"""Provides `command(...)`: a `pi05-wizard ...` command line to print as advice, ready to copy and paste.

Every "run this" hint the wizard prints goes through here, so it carries the global options
(`--root`, `--recipe`, `--state-dir`) this invocation was given; without them a re-run would act
on the real machine, the default recipe or the default state folder. Words are shell-quoted
(`shlex.join`), so paths with spaces or quotes survive a copy-paste into bash.

The CLI handlers and the TUI's `run_app` call `remember(args)` once; engine code that has no `args`
(a stage's `describe`, the container host's "run the container stage first" sentence, raised deep
inside the Docker layer) then gets the same options. Code that has a `wizard.session.Session` uses
`Session.command(...)` (the session keeps the options it was built from). Without `remember`, the
engine's hints are bare.
"""

from __future__ import annotations

import os
import shlex
from typing import Any, Callable, Sequence

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


def command(*words: str, args: Any = None, options: Sequence[str] | None = None) -> str:
    """`pi05-wizard [global options] WORDS...` as one shell-quoted line.

    Args:
        words: the command and its arguments, e.g. `("run", "preflight")`.
        args: parsed arguments to take the global options from; default the remembered ones.
        options: the global options as argv words already (`global_options(args)`, as a
            `Session` keeps them); used when `args` is None.

    Returns:
        e.g. `"pi05-wizard --root '/tmp/sim host' run preflight"`.
    """
    if args is not None:
        opts = global_options(args)
    else:
        opts = list(options) if options is not None else list(_remembered)
    return shlex.join([PROG, *opts, *(str(w) for w in words)])


def fill(text: str, *words: str, build: Callable[..., str] | None = None) -> str:
    """`text` with every bare `pi05-wizard WORDS` (as the remedy catalogue writes it) given the global options.

    Args:
        text: e.g. a remedy's instructions, "... run `pi05-wizard fix shm-too-small` ...".
        words: the command to look for, e.g. `("fix", "shm-too-small")`.
        build: makes the full line from `words` (a `Session.command`); default `command` (remembered options).

    Returns:
        the text, unchanged when it does not name that command.
    """
    bare = shlex.join([PROG, *(str(w) for w in words)])
    return text.replace(bare, (build or command)(*words)) if bare in text else text
