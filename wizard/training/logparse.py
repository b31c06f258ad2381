"""Provides pure parsers for lerobot training log lines (`ot_train.py` / `lerobot_train.py`).

Formats read (sources):
- lerobot at the pinned commit, as printed (RECIPE.md "Facts checked", case 27):
  `INFO 2025-10-21 12:00:00 ot_train.py:347 step:20 smpl:2K ep:7 epch:0.08 loss:2.021 grdn:1.234 lr:2.9e-07 updt_s:1.230 data_s:0.450`
- the field report's retyped form (seed report, section 8): `step=20 smpl=1640 ep=2 loss=2.021 ... udpt_s=1.23 data_s=0.45`
- newer lerobot's extra `key:value` tokens (`prep_s step_s smp/s mem_gb`), kept in `extra`.
- other lines worth reading: `cfg.steps=30000 (30K)`, `dataset.num_frames=...`,
  `Effective batch size: 8 x 16 = 128`, `Checkpoint policy after step N`, `End of training`.

`step`, `smpl` and `ep` are rounded by lerobot with suffixes K M B T Q (divisor 1000, no decimals,
round-half-to-even), so a suffixed value is only approximate: `Counter.exact` says which.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

_SUFFIX = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12, "Q": 10**15}

#: One `key:value` or `key=value` token; values are numbers with an optional K..Q suffix, or nan/inf.
_TOKEN = re.compile(r"(?<![\w/.])([A-Za-z_][\w/]*)[:=](-?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf)[KMBTQ]?)(?=\s|$)",
                    re.IGNORECASE)
#: A metrics record starts at a `step` token (a pasted line may hold several records).
_RECORD_START = re.compile(r"(?<![\w/.])step[:=]\d", re.IGNORECASE)
_CFG_STEPS = re.compile(r"cfg\.steps\s*=\s*(\d+)")
_NUM_FRAMES = re.compile(r"dataset\.num_frames\s*=\s*(\d+)")
_NUM_EPISODES = re.compile(r"dataset\.num_episodes\s*=\s*(\d+)")
_EFFECTIVE_BATCH = re.compile(r"Effective batch size:\s*(\d+)\s*x\s*(\d+)\s*=\s*(\d+)")
_CHECKPOINT = re.compile(r"Checkpoint policy after step (\d+)")
_END = re.compile(r"\bEnd of training\b")

#: Aliases: the report's `udpt_s` is a retyping of lerobot's `updt_s`.
_ALIASES = {"udpt_s": "updt_s"}


@dataclass(frozen=True)
class Counter:
    """A counter as lerobot prints it.

    Attributes:
        text: as printed, e.g. "2K".
        value: the number it stands for (2000 for "2K"); approximate when `exact` is False.
        exact: False when a K..Q suffix rounded it (the true value is within +-0.5 of the unit).
    """

    text: str
    value: float
    exact: bool


@dataclass(frozen=True)
class TrainRecord:
    """One metrics record (logged every `log_freq` steps).

    Attributes:
        step: optimizer steps done (exact unless suffixed).
        smpl: samples seen across all ranks; ep: episodes seen; epch: epochs (float).
        loss, grdn (gradient norm), lr (learning rate): floats, may be nan/inf (a failure sign).
        updt_s: seconds per optimizer step (averaged over the interval); data_s: seconds waiting for data.
        extra: any other numeric `key:value` tokens (newer lerobot: prep_s, step_s, smp/s, mem_gb).
    """

    step: Counter
    smpl: Counter | None = None
    ep: Counter | None = None
    epch: float | None = None
    loss: float | None = None
    grdn: float | None = None
    lr: float | None = None
    updt_s: float | None = None
    data_s: float | None = None
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def finite(self) -> bool:
        """False when loss or gradient norm is nan or infinite."""
        return all(v is None or math.isfinite(v) for v in (self.loss, self.grdn))


@dataclass(frozen=True)
class TrainEvent:
    """A non-metrics line worth knowing.

    Attributes:
        kind: "total_steps", "num_frames", "num_episodes", "effective_batch", "checkpoint", "end".
        value: the number it carries (steps, frames, episodes, global batch size, checkpoint step); 0 for "end".
        detail: for "effective_batch", (per-rank batch, ranks).
    """

    kind: str
    value: int
    detail: tuple[int, ...] = ()


def parse_counter(text: str) -> Counter:
    """Read a lerobot counter: "320" -> exact 320; "2K" -> about 2000.

    Raises:
        ValueError: when the text is not a number with an optional K/M/B/T/Q suffix.
    """
    t = text.strip()
    suffix = t[-1:].upper() if t[-1:].isalpha() else ""
    if suffix and suffix not in _SUFFIX:
        raise ValueError(f"not a counter: {text!r}")
    number = float(t[:-1] if suffix else t)
    return Counter(text=t, value=number * _SUFFIX[suffix], exact=not suffix)


def _record_from_tokens(tokens: list[tuple[str, str]]) -> TrainRecord | None:
    values: dict[str, str] = {}
    for key, raw in tokens:
        key = key.lower()
        values.setdefault(_ALIASES.get(key, key), raw)
    try:
        step = parse_counter(values.pop("step"))
        smpl = parse_counter(values.pop("smpl")) if "smpl" in values else None
        ep = parse_counter(values.pop("ep")) if "ep" in values else None
    except (KeyError, ValueError):
        return None
    floats: dict[str, float] = {}
    for key, raw in values.items():
        try:
            floats[key] = float(raw)
        except ValueError:
            continue  # a suffixed value under an unknown key: not a metric we read
    known = {k: floats.pop(k, None) for k in ("epch", "loss", "grdn", "lr", "updt_s", "data_s")}
    return TrainRecord(step=step, smpl=smpl, ep=ep, extra=floats, **known)


def parse_line(line: str) -> list[TrainRecord | TrainEvent]:
    """Everything one log line says: metrics records (several when records were pasted on one
    line) and events. Never raises; a line it does not recognise gives [].
    """
    if not isinstance(line, str) or not line:
        return []
    out: list[TrainRecord | TrainEvent] = []
    starts = [m.start() for m in _RECORD_START.finditer(line)]
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(line)
        tokens = _TOKEN.findall(line[start:end])
        record = _record_from_tokens(tokens)
        if record is not None:
            out.append(record)
    for pattern, kind in ((_CFG_STEPS, "total_steps"), (_NUM_FRAMES, "num_frames"),
                          (_NUM_EPISODES, "num_episodes"), (_CHECKPOINT, "checkpoint")):
        m = pattern.search(line)
        if m:
            out.append(TrainEvent(kind=kind, value=int(m.group(1))))
    m = _EFFECTIVE_BATCH.search(line)
    if m:
        out.append(TrainEvent(kind="effective_batch", value=int(m.group(3)),
                              detail=(int(m.group(1)), int(m.group(2)))))
    if _END.search(line):
        out.append(TrainEvent(kind="end", value=0))
    return out
