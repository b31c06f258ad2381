"""Reusable parts of the wizard's screens: stage list, step list, stage log, check rows."""
