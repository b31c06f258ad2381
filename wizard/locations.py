"""Provides every place pi05-wizard keeps files: config, state, logs (platformdirs), overridable.

One module owns the paths so tests can point them at a temporary folder (`Locations(base=tmp)`)
and never touch the real user directories.
"""

from __future__ import annotations

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
    def default(cls, state_dir: str | Path | None = None, config_dir: str | Path | None = None) -> "Locations":
        """The platformdirs locations, with optional overrides (`--state-dir`)."""
        return cls(
            config_dir=Path(config_dir) if config_dir else Path(platformdirs.user_config_dir(APP_NAME)),
            state_dir=Path(state_dir) if state_dir else Path(platformdirs.user_state_dir(APP_NAME)),
        )

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
