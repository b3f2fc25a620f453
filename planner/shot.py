"""The five shot parameters, what the robot can execute of them, and its execution-error model.

ShotParams units (docs/frame.md): phi and theta in degrees, V in m/s, a and b in metres of cue-tip
offset from the ball's centre as seen by the shooter (a > 0 left, b > 0 above centre).
"""
from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, fields

import numpy as np

log = logging.getLogger(__name__)

SHOT_FIELDS = ("phi", "theta", "V", "a", "b")


@dataclass(frozen=True)
class ShotParams:
    phi: float    # aim direction in the table plane [deg], 0 = +x, counter-clockwise
    theta: float  # cue elevation above horizontal [deg]
    V: float      # cue speed at impact [m/s]
    a: float = 0.0  # horizontal tip offset [m], > 0 = left of centre as the shooter sees it
    b: float = 0.0  # vertical tip offset [m], > 0 = above centre (follow)

    def as_array(self) -> np.ndarray:
        return np.array([self.phi, self.theta, self.V, self.a, self.b], dtype=np.float64)

    @classmethod
    def from_array(cls, x) -> "ShotParams":
        return cls(*(float(v) for v in x))


LIMIT_UNITS = {"theta": "deg", "V": "m/s", "a": "m", "b": "m"}
LIMIT_TOLERANCE = 1e-9    # a value this far outside a range (its units) still counts as inside


def _pair(r, name: str) -> tuple[float, float]:
    """(lo, hi) from a (lo, hi) pair or anything with ``lo`` and ``hi`` attributes."""
    lo, hi = (r.lo, r.hi) if hasattr(r, "lo") and hasattr(r, "hi") else r
    lo, hi = float(lo), float(hi)
    if not lo <= hi:
        raise ValueError(f"ShotLimits.{name} must be a range (lo, hi) with lo <= hi, got ({lo}, {hi})")
    return lo, hi


@dataclass(frozen=True)
class ShotLimits:
    """What the robot can execute: a closed range (lo, hi) per shot parameter it limits.

    theta [deg] cue elevation, V [m/s] cue speed, a and b [m] tip offsets (the units of
    ShotParams). phi is not limited here: the driver turns it by whole turns into the robot's
    range. Built from the protocol's ``RobotLimits`` (a HELLO, or config/robot.yaml) with
    ``from_ranges`` so that the planner never imports the controller.
    """
    theta: tuple[float, float]
    V: tuple[float, float]
    a: tuple[float, float]
    b: tuple[float, float]

    @classmethod
    def from_ranges(cls, theta, V, a, b) -> "ShotLimits":
        """From four ranges, each a (lo, hi) pair or an object with ``lo`` and ``hi`` (e.g. the
        ``Range`` fields of ``controller.protocol.RobotLimits``), in the units above. Raises
        ValueError for a range with lo > hi."""
        return cls(*(_pair(r, n) for r, n in ((theta, "theta"), (V, "V"), (a, "a"), (b, "b"))))

    def violations(self, shot: ShotParams) -> list[str]:
        """Human-readable reasons ``shot`` is outside the limits, one per parameter, e.g.
        ``V=6.000 m/s outside 0.100..4.500 m/s``; empty when it is inside (within
        LIMIT_TOLERANCE)."""
        out = []
        for name, unit in LIMIT_UNITS.items():
            lo, hi = getattr(self, name)
            v = getattr(shot, name)
            if not lo - LIMIT_TOLERANCE <= v <= hi + LIMIT_TOLERANCE:
                k, u = (1000.0, "mm") if unit == "m" else (1.0, unit)
                out.append(f"{name}={v * k:.3f} {u} outside {lo * k:.3f}..{hi * k:.3f} {u}")
        return out

    def contains(self, shot: ShotParams) -> bool:
        """Whether ``shot`` is inside every range (``violations`` is empty)."""
        return not self.violations(shot)


@dataclass(frozen=True)
class ErrorModel:
    """Zero-mean Gaussian execution noise, one standard deviation per shot parameter (same units)."""
    phi: float
    theta: float
    V: float
    a: float
    b: float

    def sigmas(self) -> np.ndarray:
        return np.array([getattr(self, f.name) for f in fields(self)], dtype=np.float64)

    def scaled(self, k: float) -> "ErrorModel":
        return ErrorModel(*(k * s for s in self.sigmas()))

    def perturb(self, shot: ShotParams, rng: np.random.Generator, n: int, z: np.ndarray | None = None) -> np.ndarray:
        """(n, 5) noisy copies of ``shot`` as arrays in ShotParams order.

        z: optional (n, 5) standard-normal draws to use instead of fresh ones from ``rng``
        (common random numbers: the same draws for every candidate make their comparison
        fairer). The cue cannot point below the horizontal, so a perturbed theta is clipped at 0 deg.
        """
        if z is None:
            z = rng.standard_normal((n, 5))
        out = shot.as_array()[None, :] + z * self.sigmas()[None, :]
        np.maximum(out[:, 1], 0.0, out=out[:, 1])
        return out


# PickPocket's error models (Smith 2006, Section 5): E_high and E_low = E_high / 10.
E_HIGH = ErrorModel(phi=0.185, theta=0.03, V=0.085, a=0.0008, b=0.0008)
E_LOW = E_HIGH.scaled(0.1)
PRESETS = {"high": E_HIGH, "low": E_LOW, "none": E_HIGH.scaled(0.0)}
CALIBRATED = "calibrated"   # label prefix of an error model that is not a preset


def error_label(error: ErrorModel) -> str:
    """The name a model's difficulty grid is stored under: the preset's name (``high``, ``low``,
    ``none``) when ``error`` is a preset, else ``calibrated-<8 hex digits>``, a hash of its
    sigmas, so that a calibrated model never overwrites a preset's grid nor another
    calibration's."""
    for name, preset in PRESETS.items():
        if preset == error:
            return name
    digest = hashlib.sha256(np.asarray(error.sigmas(), dtype="<f8").tobytes()).hexdigest()
    return f"{CALIBRATED}-{digest[:8]}"


def error_model_for(robot_sigmas: ErrorModel | None, preset: str) -> tuple[ErrorModel, str]:
    """The error model the planner samples with, and its label (``error_label``).

    robot_sigmas: the execution error the calibration measured (config/robot.yaml
    ``error_sigmas``, ``config.robot.RobotSettings.error_sigmas``), or None when the robot has
    not been calibrated; then the preset ``preset`` (a PRESETS name) is used and a warning is
    logged naming it. Raises ValueError for an unknown preset name (checked even when sigmas
    are given, so that a typo is not hidden until the calibration is removed)."""
    if preset not in PRESETS:
        raise ValueError(f"noise preset must be one of {sorted(PRESETS)}, got {preset!r}")
    if robot_sigmas is not None:
        return robot_sigmas, error_label(robot_sigmas)
    log.warning("the robot has no measured error_sigmas (config/robot.yaml); planning with the %r "
                "preset error model %s until a calibration writes them", preset, PRESETS[preset])
    return PRESETS[preset], preset
