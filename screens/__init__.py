"""The Textual UI of pi05-wizard: the App, one Screen per wizard step, dialogs and widgets."""
