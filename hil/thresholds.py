"""Replay thresholds: which figures of a replay summary must hold, read from YAML.

A thresholds file (or a suite's ``thresholds:`` mapping) names figures of
``hil.replay.summarise`` with a bound, ``*_min`` (the figure must be at least the bound) or
``*_max`` (at most):

    recall_min: 0.99                    # detected / true balls
    false_balls_per_frame_max: 0.05
    centre_error_mm_p95_max: 2.0        # matched balls, 95th percentile [mm]
    centre_error_px_p95_max: 1.0
    identity_accuracy_min: 0.95         # matched balls given their true id
    ruling_agreement_min: 1.0           # replayed rulings equal to the recorded ones
    facts_agreement_min: 0.9            # replayed observed facts equal to the recorded ones
    latency_ms_p95_max: 40              # detection time per frame [ms]

A figure the replay could not measure (no truth, no shot frames) violates its threshold: a suite
that asks for it must bring recordings that have it.
"""
from __future__ import annotations

from pathlib import Path

import yaml

FIGURES = {      # threshold name -> (path into the summary, unit for messages)
    "recall": (("detection", "recall"), ""),
    "false_balls_per_frame": (("detection", "false_balls_per_frame"), " per frame"),
    "centre_error_mm_p95": (("detection", "centre_error_mm", "p95"), " mm"),
    "centre_error_mm_max": (("detection", "centre_error_mm", "max"), " mm"),
    "centre_error_px_p95": (("detection", "centre_error_px", "p95"), " px"),
    "identity_accuracy": (("detection", "label_accuracy"), ""),
    "ruling_agreement": (("referee", "ruling_agreement"), ""),
    "facts_agreement": (("referee", "facts_agreement"), ""),
    "latency_ms_p95": (("latency_ms", "p95"), " ms"),
}


class ThresholdError(ValueError):
    """A thresholds file that cannot be used; the message names the file and the key."""


def parse_thresholds(data, source: str) -> dict[str, float]:
    """{name_min|name_max: bound} from a YAML mapping. Raises ThresholdError naming ``source``
    and the key for an unknown figure or a bound that is not a number."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ThresholdError(f"{source}: thresholds must be a mapping of name_min/name_max: number")
    out = {}
    for key, bound in data.items():
        name, _, side = str(key).rpartition("_")
        if side not in ("min", "max") or name not in FIGURES:
            raise ThresholdError(f"{source}: unknown threshold {key!r}; known: "
                                 f"{', '.join(f'{n}_min|_max' for n in FIGURES)}")
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise ThresholdError(f"{source}: {key} must be a number, got {bound!r}")
        out[str(key)] = float(bound)
    return out


def load_thresholds(path: str | Path) -> dict[str, float]:
    """Read a thresholds YAML file (see the module docstring). Raises ThresholdError."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ThresholdError(f"{path}: cannot read the thresholds ({e})") from None
    return parse_thresholds(data, str(path))


def figure(summary: dict, name: str) -> float | None:
    """The figure ``name`` (a FIGURES key) of a replay summary, None if not measured."""
    v = summary
    for k in FIGURES[name][0]:
        v = v.get(k) if isinstance(v, dict) else None
    return None if v is None else float(v)


def violations(summary: dict, thresholds: dict[str, float]) -> list[str]:
    """One sentence per violated threshold, naming it, e.g. ``centre_error_mm_p95_max: 7.31 mm >
    2.0 mm``; empty when every threshold holds."""
    out = []
    for key, bound in thresholds.items():
        name, _, side = key.rpartition("_")
        unit = FIGURES[name][1]
        v = figure(summary, name)
        if v is None:
            out.append(f"{key}: not measured by these recordings (bound {bound:g}{unit})")
        elif side == "min" and v < bound:
            out.append(f"{key}: {v:.4g}{unit} < {bound:g}{unit}")
        elif side == "max" and v > bound:
            out.append(f"{key}: {v:.4g}{unit} > {bound:g}{unit}")
    return out
