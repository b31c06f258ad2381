"""Provides `TrainingPanel`: live training figures above a stage's log (progress, loss, speed, problems).

The figures come from `wizard.training.metrics.TrainingMetrics.snapshot()` (lerobot's
`step:... loss:...` records, case 27). The panel never reads lines itself: the stage screen passes
the same `TrainingMetrics` sink to the runner (which shares it with its progress recorder) and
calls `show(snapshot)` on a timer.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Sparkline, Static

from screens.widgets.status import format_duration


def pick_reference(references: Sequence[Any] | None) -> Any | None:
    """The recipe's reference run to compare speed with: the 910B one when listed, else the first.

    Args:
        references: `Recipe.train.reference` entries (platform, global_batch, loss, samples_per_s), or None.
    """
    refs = list(references or [])
    return next((r for r in refs if "910B" in str(getattr(r, "platform", ""))), refs[0] if refs else None)


def eta_seconds(snap: Any) -> float | None:
    """Seconds left: remaining steps x global batch / samples per second; None when a figure is missing."""
    if snap.step is None or not snap.total_steps or not snap.samples_per_s or not snap.global_batch:
        return None
    left = max(0.0, snap.total_steps - snap.step) * snap.global_batch / snap.samples_per_s
    return left if math.isfinite(left) else None


def _num(value: float | None, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def figures_text(snap: Any, reference: Any | None) -> Text:
    """Loss now vs first, lr, grad norm; then samples/s as a share of the reference run's, and the batch."""
    out = Text()
    out.append("loss ", style="dim")
    out.append(_num(snap.loss, ".4g"), style="bold")
    if snap.first_loss is not None and snap.loss is not None:
        trend = "↓" if snap.loss < snap.first_loss else ("↑" if snap.loss > snap.first_loss else "=")
        out.append(f" {trend} from {snap.first_loss:.4g}", style="dim")
    out.append("   lr ", style="dim")
    out.append(_num(snap.lr, ".2g"))
    out.append("   grad norm ", style="dim")
    out.append(_num(snap.grdn, ".3g"))
    out.append("\n")
    out.append(_num(snap.samples_per_s, ".1f"), style="bold")
    out.append(" samples/s", style="dim")
    if reference is not None:
        if snap.samples_per_s is not None:
            out.append(f", {100 * snap.samples_per_s / reference.samples_per_s:.0f} % of", style="dim")
        else:
            out.append(", reference", style="dim")
        out.append(f" {reference.samples_per_s:g} on {reference.platform}", style="dim")
    if snap.global_batch:
        world = f", {snap.world_size} ranks" if snap.world_size else ""
        out.append(f"   batch {snap.global_batch}{world}", style="dim")
    return out


def progress_line(snap: Any) -> Text:
    """`step 40 / 30000  0.1 %  ETA 2h14m` (only the figures known so far)."""
    if snap.step is None:
        return Text("waiting for the first metrics line…", style="dim")
    out = Text(f"step {snap.step:g}")
    if snap.total_steps:
        out.append(f" / {snap.total_steps}")
    if snap.fraction is not None:
        out.append(f"  {snap.fraction * 100:.1f} %", style="bold")
    eta = eta_seconds(snap)
    if eta is not None:
        out.append(f"  ETA {format_duration(eta)}", style="dim")
    if snap.ended:
        out.append("  training ended", style="green")
    return out


def problems_text(problems: Sequence[str]) -> Text:
    """The sink's problem sentences, one per line, marked `!`."""
    return Text("\n".join(f"! {p}" for p in problems), style="bold yellow")


class TrainingPanel(Vertical):
    """Progress bar, figures, a loss sparkline over the recent records, and problems in plain words.

    Args:
        reference: the recipe's reference run (see `pick_reference`), or None.
    """

    DEFAULT_CSS = """
    TrainingPanel { height: auto; border: round $accent; padding: 0 1; }
    TrainingPanel #tp-top { height: 1; }
    TrainingPanel #tp-bar { width: auto; margin-right: 2; }
    TrainingPanel #tp-step { width: 1fr; }
    TrainingPanel #tp-mid { height: auto; }
    TrainingPanel #tp-figures { width: 1fr; }
    TrainingPanel #tp-loss { width: 30%; min-width: 16; height: 2; margin-left: 1; }
    TrainingPanel #tp-problems { height: auto; }
    TrainingPanel #tp-problems.-none { display: none; }
    """

    def __init__(self, reference: Any | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reference = reference

    def compose(self) -> ComposeResult:
        with Horizontal(id="tp-top"):
            yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="tp-bar")
            yield Static(id="tp-step")
        with Horizontal(id="tp-mid"):
            yield Static(id="tp-figures")
            yield Sparkline([], id="tp-loss")
        yield Static(id="tp-problems", classes="-none")

    def on_mount(self) -> None:
        self.border_title = "Training"

    def show(self, snap: Any) -> None:
        """Redraw from a `MetricsSnapshot` (UI thread)."""
        bar = self.query_one("#tp-bar", ProgressBar)
        if snap.total_steps:
            bar.update(total=snap.total_steps, progress=min(snap.step or 0, snap.total_steps))
        self.query_one("#tp-step", Static).update(progress_line(snap))
        self.query_one("#tp-figures", Static).update(figures_text(snap, self.reference))
        losses = [r.loss for r in snap.recent if r.loss is not None and math.isfinite(r.loss)]
        self.query_one("#tp-loss", Sparkline).data = losses
        self.border_subtitle = f"loss over the last {len(losses)} records" if losses else ""
        problems = self.query_one("#tp-problems", Static)
        problems.set_class(not snap.problems, "-none")
        problems.update(problems_text(snap.problems))
