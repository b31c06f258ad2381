"""Provides `pi05-wizard serve`: the same wizard in a web browser, through textual-serve (optional).

For operators who reach the host only through a web console. Each browser tab starts its own
`pi05-wizard` process with the same `--root/--recipe/--state-dir`. textual-serve is an optional
dependency (`pip install 'pi05-wizard[serve]'`); without it the command says so and exits 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `serve` subcommand."""
    p = subparsers.add_parser(
        "serve", help="serve the wizard to a web browser (needs textual-serve)",
        description="Run the wizard behind a small web server so it can be used from a browser. "
                    "Anyone who can reach the port can drive the wizard: bind to localhost and tunnel.")
    p.add_argument("--host", default="localhost", help="address to listen on (default: localhost)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    p.add_argument("--demo", action="store_true", help="serve `pi05-wizard demo` instead")
    p.set_defaults(func=handle)


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve starts per browser session (argv quoted with `shlex.join`)."""
    argv = [sys.executable, "-m", "wizard"]
    for opt in ("root", "recipe", "state_dir"):
        value = getattr(args, opt, None)
        if value:
            argv += [f"--{opt.replace('_', '-')}", str(value)]
    if getattr(args, "demo", False):
        argv.append("demo")
    return shlex.join(argv)


def handle(args: argparse.Namespace) -> int:
    """Start the web server (blocks until Ctrl-C). Raises UsageError when textual-serve is missing."""
    from wizard.cli import UsageError

    try:
        from textual_serve.server import Server
    except ImportError:
        raise UsageError("`serve` needs textual-serve: pip install 'pi05-wizard[serve]' "
                         "(or run `textual serve \"python -m wizard\"` from textual-dev)") from None
    Server(app_command(args), host=args.host, port=args.port, title="pi05-wizard").serve()
    return 0
