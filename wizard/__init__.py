"""The headless engine of pi05-wizard: recipe, hosts, stages, runner, state, remedies, CLI."""
