"""Lets `python -m wizard` behave like the `pi05-wizard` console script."""

from wizard.cli import main

raise SystemExit(main())
