"""Data shipped with pi05-wizard: the default recipe, the remedy catalogue, sample files for the demo host."""
