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
    rest_delay_frames_min: -1           # every shot: today's rest detector declares rest at most 1 frame
    rest_delay_frames_max: 1            #   before / after the recorded frame (hil/rest.py; also rest_delay_s)
    rest_missed_max: 0                  # shots whose frames never come to rest under today's detector
    rest_lag_frames_min: 0              # every shot: rest declared no earlier than the balls really stopped
    rest_lag_frames_max: 4              #   (truth), and at most 4 frames after (also rest_lag_s)
    planner_agreement_min: 1.0          # planned shots decided again as recorded (hil/plans.py)
    robot_planner_agreement_min: 1.0    # the same, the robot's shots alone
    planner_tolerance:                  # not a threshold: what "as recorded" allows (hil.plans.TOLERANCE)
      {phi: 0.05, theta: 0.05, V: 0.005, a: 0.0005, b: 0.0005, cue_pos: 0.0005}   # deg, deg, m/s, m, m, m

For a figure measured per shot (rest_delay_*, rest_lag_*), ``_min`` bounds the smallest value
over the shots and ``_max`` the largest: every shot must hold it.

A figure the replay could not measure (no truth, no shot frames) violates its threshold: a suite
that asks for it must bring recordings that have it.
"""
from __future__ import annotations

from pathlib import Path

import yaml

SIDE = "{side}"  # in a path: "min" for a name_min threshold, "max" for name_max (per-shot figures)
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
    "rest_delay_frames": (("rest", "delay_frames", SIDE), " frames"),
    "rest_delay_s": (("rest", "delay_s", SIDE), " s"),
    "rest_missed": (("rest", "missed"), " shots"),
    "rest_lag_frames": (("rest", "lag_frames", SIDE), " frames"),
    "rest_lag_s": (("rest", "lag_s", SIDE), " s"),
    "planner_agreement": (("planner", "agreement"), ""),
    "robot_planner_agreement": (("planner", "robot_agreement"), ""),
}
TOLERANCE_KEY = "planner_tolerance"


class ThresholdError(ValueError):
    """A thresholds file that cannot be used; the message names the file and the key."""


def _number(value, where: str, least: float | None = None) -> float:
    """``value`` as a float; ThresholdError naming ``where`` (file: key) if it is no number or
    below ``least``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (least is not None and value < least):
        what = "a number" if least is None else f"a number >= {least:g}"
        raise ThresholdError(f"{where} must be {what}, got {value!r}")
    return float(value)


def parse_thresholds(data, source: str) -> dict[str, float]:
    """{name_min|name_max: bound} from a YAML mapping. Raises ThresholdError naming ``source``
    and the key for an unknown figure or a bound that is not a number."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ThresholdError(f"{source}: thresholds must be a mapping of name_min/name_max: number")
    out = {}
    for key, bound in data.items():
        if key == TOLERANCE_KEY:
            continue
        name, _, side = str(key).rpartition("_")
        if side not in ("min", "max") or name not in FIGURES:
            raise ThresholdError(f"{source}: unknown threshold {key!r}; known: "
                                 f"{', '.join(f'{n}_min|_max' for n in FIGURES)}")
        out[str(key)] = _number(bound, f"{source}: {key}")
    return out


def parse_tolerance(data, source: str) -> dict[str, float]:
    """The ``planner_tolerance`` mapping of a thresholds mapping ({} when absent): keys of
    ``hil.plans.TOLERANCE``, non-negative numbers. Raises ThresholdError naming ``source``."""
    from hil.plans import TOLERANCE
    tol = data.get(TOLERANCE_KEY) if isinstance(data, dict) else None
    if tol is None:
        return {}
    if not isinstance(tol, dict):
        raise ThresholdError(f"{source}: {TOLERANCE_KEY} must be a mapping of {', '.join(TOLERANCE)}: number")
    out = {}
    for k, v in tol.items():
        if k not in TOLERANCE:
            raise ThresholdError(f"{source}: unknown {TOLERANCE_KEY} key {k!r}; known: {', '.join(TOLERANCE)}")
        out[str(k)] = _number(v, f"{source}: {TOLERANCE_KEY}.{k}", least=0.0)
    return out


def load_thresholds(path: str | Path) -> tuple[dict[str, float], dict[str, float]]:
    """Read a thresholds YAML file (see the module docstring): (thresholds, planner tolerance).
    Raises ThresholdError."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ThresholdError(f"{path}: cannot read the thresholds ({e})") from None
    return parse_thresholds(data, str(path)), parse_tolerance(data, str(path))


def figure(summary: dict, name: str, side: str = "max") -> float | None:
    """The figure ``name`` (a FIGURES key) of a replay summary, None if not measured; ``side``
    ("min" or "max") picks the smallest or largest of a per-shot figure."""
    v = summary
    for k in FIGURES[name][0]:
        k = side if k == SIDE else k
        v = v.get(k) if isinstance(v, dict) else None
    return None if v is None else float(v)


def violations(summary: dict, thresholds: dict[str, float]) -> list[str]:
    """One sentence per violated threshold, naming it, e.g. ``centre_error_mm_p95_max: 7.31 mm >
    2.0 mm``; empty when every threshold holds."""
    out = []
    for key, bound in thresholds.items():
        name, _, side = key.rpartition("_")
        unit = FIGURES[name][1]
        v = figure(summary, name, side)
        if v is None:
            out.append(f"{key}: not measured by these recordings (bound {bound:g}{unit})")
        elif side == "min" and v < bound:
            out.append(f"{key}: {v:.4g}{unit} < {bound:g}{unit}")
        elif side == "max" and v > bound:
            out.append(f"{key}: {v:.4g}{unit} > {bound:g}{unit}")
    return out
