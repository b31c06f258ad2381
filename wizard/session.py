"""Provides `Session`: the one place CLI commands and the TUI build their world from `--root/--recipe/--state-dir`.

A session holds the Locations, the effective Recipe, the Host (`LocalHost`, rooted when `--root`
is given), the StateStore, and creates the ContainerHost only when a stage needs it (that needs
a reachable Docker engine).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checks.host import Host
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.recipe import Recipe, load_recipe, requirements
from wizard.stages.base import StageContext


def check_context_for(recipe: Recipe, host: Host, offline: bool = False, inside_container: bool = False):
    """A `checks.context.CheckContext` for this recipe on this host."""
    from checks.context import CheckContext

    return CheckContext(host=host, requirements=requirements(recipe), offline=offline,
                        inside_container=inside_container)


@dataclass
class Session:
    """What one invocation works with.

    Attributes:
        locations: config, state and log folders.
        recipe: the effective recipe (defaults < user config < `--recipe`).
        host: the host (rooted at `--root` when given).
        root: the `--root` folder, or None for the real machine.
        options: the global options this session was built from, as argv words with absolute
            paths (`wizard.hints.global_options`), for the commands it shows (`command`).
    """

    locations: Locations
    recipe: Recipe
    host: Host
    root: str | None = None
    options: tuple[str, ...] = ()
    _store: Any = field(default=None, repr=False)
    _container: Host | None = field(default=None, repr=False)

    @classmethod
    def from_args(cls, args: Any) -> "Session":
        """Build from parsed CLI arguments with `.root`, `.recipe`, `.state_dir` (missing ones are None).

        Raises:
            RecipeError: the user's config file or `--recipe` file is bad (the CLI exits 2).
        """
        root = getattr(args, "root", None)
        locations = Locations.from_args(args)
        recipe = load_recipe(locations, getattr(args, "recipe", None))
        from wizard.hints import global_options

        return cls(locations=locations, recipe=recipe, host=LocalHost(root), root=root,
                   options=tuple(global_options(args)))

    def command(self, *words: str) -> str:
        """`pi05-wizard [this session's --root/--recipe/--state-dir] WORDS...`, shell-quoted, to show the operator."""
        from wizard.hints import command

        return command(*words, options=self.options)

    @property
    def store(self):
        """The `wizard.state.StateStore` for this session's state folder (created on first use)."""
        if self._store is None:
            from wizard.state import StateStore

            self._store = StateStore(self.locations)
        return self._store

    def container_host(self) -> Host:
        """The ContainerHost of the recipe's container, created on first call.

        Raises:
            whatever `ContainerHost` raises when Docker is unreachable (docker.errors.DockerException).
        """
        if self._container is None:
            from wizard.hosts.container import ContainerHost

            self._container = ContainerHost(name=self.recipe.container.name)
        return self._container

    def context(self, options: dict[str, object] | None = None) -> StageContext:
        """A StageContext for running or planning stages."""
        return StageContext(recipe=self.recipe, host=self.host, locations=self.locations,
                            container=self.container_host, options=dict(options or {}))

    def requirements(self):
        """The preflight `Requirements` from the recipe."""
        return requirements(self.recipe)

    def check_context(self, offline: bool = False, inside_container: bool = False):
        """A CheckContext on this session's host."""
        return check_context_for(self.recipe, self.host, offline=offline, inside_container=inside_container)
