"""Provides `toggle_full_screen`: one pane of a screen shown full screen (`d`), or back to the layout."""

from __future__ import annotations

from textual.screen import Screen


def toggle_full_screen(screen: Screen, selector: str) -> None:
    """Maximize the widget `selector` names on `screen`, or restore the layout when it already is.

    Set directly, since `Screen.maximize` refuses scroll containers (their `ALLOW_MAXIMIZE` is False),
    which is what the details panes are.
    """
    pane = screen.query_one(selector)
    if screen.maximized is pane:
        screen.minimize()
    else:
        screen.maximized = pane
