"""The five shot parameters and the robot's execution-error model.

ShotParams units (docs/frame.md): phi and theta in degrees, V in m/s, a and b in metres of cue-tip
offset from the ball's centre as seen by the shooter (a > 0 left, b > 0 above centre).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

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
