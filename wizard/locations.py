"""Provides every place pi05-wizard keeps files: config, state, logs (platformdirs), overridable.

One module owns the paths so tests can point them at a temporary folder (`Locations(base=tmp)`)
and never touch the real user directories.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "pi05-wizard"


@dataclass(frozen=True)
class Locations:
    """Folders for config, state and logs.

    Attributes:
        config_dir: holds `recipe.toml`, the user's override of the default recipe.
        state_dir: holds one JSON record per stage (`stages/<id>.json`), the lock file,
            and `logs/` with one log file per stage run.
    """

    config_dir: Path
    state_dir: Path

    @classmethod
    def default(cls, state_dir: str | Path | None = None, config_dir: str | Path | None = None,
                root: str | Path | None = None) -> "Locations":
        """The platformdirs locations, with optional overrides.

        Args:
            state_dir: `--state-dir`; when given it always wins.
            config_dir: the config folder; default the platformdirs user config dir.
            root: `--root` (a simulated host). Without `state_dir`, each root gets its own state
                folder, `<platformdirs state dir>/roots/<hash>-<basename>` (see `root_state_dir`),
                so a simulated host never shows or locks the real machine's stage records.
        """
        if state_dir:
            state = Path(state_dir)
        elif root:
            state = root_state_dir(root)
        else:
            state = Path(platformdirs.user_state_dir(APP_NAME))
        return cls(
            config_dir=Path(config_dir) if config_dir else Path(platformdirs.user_config_dir(APP_NAME)),
            state_dir=state,
        )

    @classmethod
    def from_args(cls, args: object) -> "Locations":
        """`default()` from parsed CLI arguments with `.state_dir` and `.root` (missing ones are None)."""
        return cls.default(state_dir=getattr(args, "state_dir", None), root=getattr(args, "root", None))

    @classmethod
    def under(cls, base: str | Path) -> "Locations":
        """Everything under one folder (tests, the demo)."""
        base = Path(base)
        return cls(config_dir=base / "config", state_dir=base / "state")

    @property
    def user_recipe(self) -> Path:
        """The user's recipe override file."""
        return self.config_dir / "recipe.toml"

    @property
    def stages_dir(self) -> Path:
        """One JSON record per stage: the last run of that stage."""
        return self.state_dir / "stages"

    @property
    def logs_dir(self) -> Path:
        """One log file per stage run."""
        return self.state_dir / "logs"

    @property
    def lock_file(self) -> Path:
        """Held by the one wizard that may run stages on this host."""
        return self.state_dir / "wizard.lock"

    @property
    def welcome_seen(self) -> Path:
        """Exists once the first-run welcome has been shown."""
        return self.state_dir / "welcome-seen"


def root_state_dir(root: str | Path) -> Path:
    """The default state folder of the simulated host at `root`.

    `<platformdirs user state dir>/roots/<first 12 hex digits of sha256 of the absolute root>-<basename>`:
    the hash keeps two roots with the same basename apart, the basename keeps it readable.
    """
    absolute = os.path.abspath(os.fspath(root))
    digest = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = os.path.basename(absolute.rstrip(os.sep)) or "root"
    return Path(platformdirs.user_state_dir(APP_NAME)) / "roots" / f"{digest}-{name}"
