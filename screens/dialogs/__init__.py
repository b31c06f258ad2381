"""Modal screens of the wizard: confirm, help, plan, log viewer, remedy."""
