"""Provides `Pi05WizardApp`, the Textual app of pi05-wizard, and `run_app(args)` that the CLI launches.

The app holds no domain logic: it gets a `wizard.session.Session` (recipe, host, locations, state
store) and the list of stages, and its screens call the engine (`run_checks`, `run_stage`). Tests
build the app with `make_app(session, stages=[...])` on a temporary state folder and never touch
the real user directories.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from typing import Any, Callable, Iterable, Sequence

from textual.app import App, SystemCommand
from textual.command import DiscoveryHit, Hits
from textual.system_commands import SystemCommandsProvider
from textual.binding import Binding
from textual.screen import Screen

from screens.home import HomeScreen
from screens.welcome import WelcomeScreen


def default_stages() -> list[Any]:
    """The recipe's stages in pipeline order, plus any `PI05_WIZARD_EXTRA_STAGES` (as the CLI's `run`)."""
    from wizard.stage_lookup import extra_stages
    from wizard.stages.registry import all_stages

    return list(all_stages()) + extra_stages()


class PipelineOrderCommands(SystemCommandsProvider):
    """The palette's commands as the app lists them (Textual's own provider sorts them by name, which
    scatters the stages: "Plan: CANN upgrade" before "Plan: Container"); searching still ranks by match."""

    async def discover(self) -> Hits:
        for command in self.app.get_system_commands(self.screen):
            if command.discover:
                yield DiscoveryHit(command.title, command.callback, help=command.help)


class Pi05WizardApp(App[int]):
    """The wizard: a home screen with the stage pipeline, and a screen per running step.

    Args:
        session: the world the wizard works on (`wizard.session.Session`): `.locations`,
            `.store`, `.host`, `.context()` (a `StageContext`), `.check_context()` when present.
        stages: the stages to show, in order; defaults to the registry's. Tests pass small
            stages whose steps are local commands.
        demo: show DEMO in the header; defaults to `session.demo` (set by `pi05-wizard demo`).
        clock: seconds since the epoch, for "5 min ago" and step timers; tests freeze it so
            snapshots never show a moving time.
        welcome: show the first-run welcome; defaults to "the welcome was never dismissed here".
        check_ids: the preflight check ids to run (default: all of `checks.registry.CHECKS`).
        offline: skip the network probes in preflight.
    """

    CSS_PATH = "app.tcss"
    TITLE = "pi05-wizard"
    SUB_TITLE = "Pi-0.5 on Ascend 910B"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = [Binding("ctrl+p", "command_palette", "Commands", show=False, priority=True)]
    COMMANDS = {PipelineOrderCommands}

    def __init__(
        self,
        session: Any,
        stages: Sequence[Any] | None = None,
        *,
        demo: bool | None = None,
        clock: Callable[[], float] = time.time,
        welcome: bool | None = None,
        check_ids: Sequence[str] | None = None,
        offline: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.stages: list[Any] = list(stages) if stages is not None else default_stages()
        self.demo = bool(getattr(session, "demo", False)) if demo is None else demo
        self.clock = clock
        if welcome is None:
            welcome = not session.locations.welcome_seen.exists()
        self.show_welcome = welcome
        self.check_ids = list(check_ids) if check_ids is not None else None
        self.offline = offline
        self._stage_ctx: Any = None
        self._stage_ctx_error: str | None = None
        if self.demo:
            self.title = "pi05-wizard  DEMO"
            self.sub_title = "simulated 910B host, real Docker"

    # -- the engine, as the screens see it ------------------------------------------------------

    def stage(self, stage_id: str) -> Any | None:
        """The stage with this id among the app's stages, or None."""
        return next((s for s in self.stages if s.id == stage_id), None)

    def records(self) -> dict[str, Any]:
        """Every stage's last `StageRecord`, keyed by stage id (from the state store)."""
        return self.session.store.all()

    def stage_context(self) -> Any | None:
        """The session's `StageContext`, built once; None (and `context_error` set) when it cannot be."""
        if self._stage_ctx is None and self._stage_ctx_error is None:
            try:
                self._stage_ctx = self.session.context()
            except Exception as exc:  # a bad recipe must show as a message, not a traceback
                self._stage_ctx_error = f"{type(exc).__name__}: {exc}"
        return self._stage_ctx

    @property
    def context_error(self) -> str | None:
        """Why `stage_context()` failed, if it did."""
        return self._stage_ctx_error

    def command(self, *words: str) -> str:
        """A `pi05-wizard ...` line for the operator to type, with the session's --root/--recipe/--state-dir.

        Sessions built by `Session.from_args` know their options (`Session.command`); a
        session-shaped object without `command` (tests) gets the remembered ones (`wizard.hints`).
        """
        own = getattr(self.session, "command", None)
        if callable(own):
            return str(own(*words))
        from wizard.hints import command

        return command(*words)

    # -- app lifecycle --------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())
        if self.show_welcome:
            self.push_screen(WelcomeScreen(self.session.locations, demo=self.demo), self._welcome_closed)

    def _welcome_closed(self, _: object = None) -> None:
        marker = self.session.locations.welcome_seen
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:  # a read-only state dir only means the welcome shows again next time
            pass

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key binding that applies on the current screen, then the screen's own extras (in
        pipeline order), then Textual's own commands (without its "Keys": our "Help" says the keys)."""
        seen: set[str] = set()
        builtin = [c for c in super().get_system_commands(screen) if c.title not in _BUILTIN_LEFT_OUT]
        for binding in getattr(screen, "BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.description:
                continue
            action = binding.action.split("(")[0]
            # The Footer's labels are short (80 columns); a screen may name them in full for the palette.
            title = getattr(screen, "PALETTE_NAMES", {}).get(action, binding.description)
            if title in seen or not screen.check_action(action, ()):  # False hides a key, None disables it
                continue
            seen.add(title)
            key = binding.key_display or binding.key.split(",")[0]
            yield SystemCommand(title, f"key: {key}", functools.partial(screen.run_action, binding.action))
        extra = getattr(screen, "palette_commands", None)
        if callable(extra):
            yield from extra()
        for command in builtin:
            if command.title not in seen:
                yield command


_BUILTIN_LEFT_OUT = {"Keys"}
"""Textual's system commands the palette does not offer ("Keys" shows the same keys as our "Help")."""


def make_app(session: Any, stages: Sequence[Any] | None = None, **kwargs: Any) -> Pi05WizardApp:
    """The app factory (tests and `demo` use it): see `Pi05WizardApp` for the arguments."""
    return Pi05WizardApp(session, stages, **kwargs)


NO_TERMINAL = "pi05-wizard: the wizard needs a terminal; for scripts use pi05-wizard check/plan/run/status"
"""Said on stderr (exit 2) when the wizard is started with its input or output not a terminal."""


def has_terminal() -> bool:
    """True when the wizard can draw: stdin and stdout are terminals, or a Textual driver is named.

    textual-serve (`pi05-wizard serve`) starts the app with pipes for stdin/stdout and sets
    `TEXTUAL_DRIVER` to its web driver, which talks over those pipes: that counts as a terminal.
    """
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def refuse_without_terminal() -> int | None:
    """2 (after saying `NO_TERMINAL` on stderr) when there is no terminal to draw on, else None."""
    if has_terminal():
        return None
    print(NO_TERMINAL, file=sys.stderr)
    return 2


def run_app(args: argparse.Namespace, demo: bool = False) -> int:
    """Build the session from `--root/--recipe/--state-dir`, run the app, return its exit code.

    Returns 2 at once (one line on stderr, `NO_TERMINAL`) when stdin or stdout is not a terminal:
    the wizard would otherwise write escape codes into a pipe and spin waiting for keys.

    Raises:
        wizard.cli.UsageError: when the session cannot be built (bad recipe, bad folder).
    """
    refused = refuse_without_terminal()
    if refused is not None:
        return refused
    from wizard import hints
    from wizard.cli import UsageError
    from wizard.recipe import RecipeError
    from wizard.session import Session

    hints.remember(args)  # the engine's own hints (stage steps, container messages) carry the options too
    try:
        session = Session.from_args(args)
    except RecipeError as exc:
        raise UsageError(str(exc)) from exc
    app = make_app(session, demo=demo or None)
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code)
