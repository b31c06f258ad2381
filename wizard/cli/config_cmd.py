"""Provides `pi05-wizard config [--json]`: the effective recipe and the file each value came from."""

from __future__ import annotations

import argparse
import json
from typing import Any, Iterator

from wizard.cli import EXIT_OK
from wizard.cli.output import quiet_broken_pipe
from wizard.recipe import DEFAULT_RECIPE_PATH, Recipe, recipe_as_dict


def register(subparsers: Any) -> None:
    """Add the `config` subcommand."""
    p = subparsers.add_parser("config", help="show the effective recipe and where each value came from",
                              description="Show the effective recipe: the shipped default, overridden by your "
                                          "config file, overridden by --recipe FILE.")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=handle)


def leaves(data: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(dotted path, value) for every value; tables are walked, lists are one value."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*prefix, key))
    else:
        yield ".".join(prefix), data


def effective(recipe: Recipe) -> list[dict[str, Any]]:
    """Every value with its source: [{"field", "value", "source"}], in recipe order."""
    return [{"field": path, "value": value, "source": recipe.source_of(path)}
            for path, value in leaves(recipe_as_dict(recipe))]


@quiet_broken_pipe
def handle(args: argparse.Namespace) -> int:
    """Print the effective recipe; exit 0, or 2 for a bad recipe file."""
    from wizard.session import Session

    session = Session.from_args(args)
    user = session.locations.user_recipe
    files = {"default": str(DEFAULT_RECIPE_PATH), "user_config": str(user),
             "user_config_exists": user.is_file(), "override": getattr(args, "recipe", None)}
    rows = effective(session.recipe)
    if args.json:
        print(json.dumps({"files": files, "values": rows}, indent=2))
        return EXIT_OK
    print(f"# default:     {files['default']}")
    print(f"# user config: {files['user_config']}{'' if files['user_config_exists'] else '  (not present)'}")
    print(f"# --recipe:    {files['override'] or '(none)'}")
    for row in rows:
        src = "" if row["source"] == "default" else f"   # from {row['source']}"
        print(f"{row['field']} = {json.dumps(row['value'], ensure_ascii=False)}{src}")
    return EXIT_OK
