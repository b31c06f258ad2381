"""Provides `TextDialog`: a scrollable read-only page (help, plan) closed with Esc or q."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class TextDialog(ModalScreen[None]):
    """Shows a Rich renderable (or markup string) with a title; Esc / q closes it."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, body: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog wide") as scroll:
            scroll.border_title = self.title_text
            scroll.border_subtitle = "Esc close"
            yield Static(self.body, classes="dialog-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
