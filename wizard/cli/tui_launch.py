"""Provides the lazy launch of the Textual app (the only place the engine touches the UI)."""

from __future__ import annotations

import argparse


def launch(args: argparse.Namespace) -> int:
    """Start the TUI with the same --root / --recipe / --state-dir as the CLI; returns an exit code."""
    from screens.app import run_app  # noqa: PLC0415  (lazy on purpose)

    return run_app(args)
