"""Cue speeds for a shot: the least speed that rolls the object ball into the pocket, from the
rolling-friction model the engine uses (planner/physics/motion.py), plus increments.

Model (level cue, tip offset b as a fraction of R, a = 0):
- the strike launches the cue ball at v0 = k V with contact-point slip u0 = q v0 (k and q measured
  once per b from the engine's strike model: q = 1 for a centre hit, 0 at the natural-roll height,
  2 for draw at b = -0.4);
- while it slides the ball decelerates at u_s g (accelerates when the slip is backwards) for
  2|u0|/(7 u_s g) seconds, so it rolls on at v0 - 2 u0/7 (5/7 v0 for a centre hit), then slows at
  u_r g: over a distance d its speed drops to sqrt(v^2 - 2 u_r g d);
- a collision at cut angle alpha gives the object ball (1 + e_b)/2 v_cue cos(alpha) (equal masses);
- the object ball, sliding then rolling, must still be moving ``margin`` beyond the aim point.
Units: m, m/s, degrees for alpha.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from planner.physics.params import PhysicsParams
from planner.shot import ShotParams
from planner.state import TableState

ROLL = 5.0 / 7.0      # rolling speed / sliding speed after a centre-ball launch (no-slip)
SPEED_MARGIN = 0.15   # extra distance the object ball must be able to roll past the aim point [m]


@lru_cache(maxsize=32)
def _launch(params: PhysicsParams, b: float) -> tuple[float, float]:
    from planner.physics.engine import Simulator
    from planner.table import TableSpecs, build_pocket_table

    specs = TableSpecs("probe", 1.0, 2.0, 0.05, 1.3 * params.R, 0.11, 5.0, 0.04, 0.06, 0.02,
                       0.13, 7.0, 0.07, 0.065, 0.008)
    sim = Simulator(build_pocket_table(specs), params)
    res = sim.simulate(TableState([0], [[0.5, 1.0]]), ShotParams(90.0, 0.0, 1.0, 0.0, b * params.R))
    rvw = res.event_rvw[0, 0]
    v0 = float(rvw[1, 1])
    slip = float(rvw[1, 1] + params.R * rvw[2, 0])     # y component of v + w x (-R z)
    return v0, slip / v0


def launch_ratio(params: PhysicsParams, b: float = 0.0) -> float:
    """Cue-ball launch speed per unit cue speed for a level hit at height b (fraction of R)."""
    return _launch(params, round(float(b), 6))[0]


def contact_speed(params: PhysicsParams, v0, d2, b: float = 0.0):
    """Speed [m/s] of a cue ball launched at v0 [m/s] with tip height b (fraction of R) after
    travelling d2 [m] (0 where it stops short). Broadcasts over numpy arrays."""
    q = _launch(params, round(float(b), 6))[1]
    v0 = np.asarray(v0, dtype=float)
    a_s = params.u_s * params.g * np.sign(q)                 # sliding deceleration
    u0 = q * v0
    t_s = 2.0 * np.abs(u0) / (7.0 * params.u_s * params.g)
    v_roll = np.maximum(v0 - 2.0 * u0 / 7.0, 0.0)
    s_s = v0 * t_s - 0.5 * a_s * t_s ** 2
    sliding = np.sqrt(np.maximum(v0 ** 2 - 2.0 * a_s * np.asarray(d2), 0.0))
    rolling = np.sqrt(np.maximum(v_roll ** 2 - 2.0 * params.u_r * params.g * (np.asarray(d2) - s_s), 0.0))
    return np.where(np.asarray(d2) <= s_s, sliding, rolling)


def min_speed(params: PhysicsParams, alpha_deg, d1, d2, b: float = 0.0, margin: float = SPEED_MARGIN):
    """Least cue speed V [m/s] that gets the object ball ``d1 + margin`` metres after a cue-ball
    travel of ``d2`` metres and a cut of ``alpha_deg``, for a level cue at tip height b (fraction
    of R). Broadcasts over numpy arrays."""
    mu_g2 = 2.0 * params.u_r * params.g
    transfer = 0.5 * (1.0 + params.e_b) * np.cos(np.radians(np.minimum(alpha_deg, 89.0)))
    v_obj_roll2 = mu_g2 * (np.asarray(d1) + margin)              # rolling object ball speed^2
    v_obj = np.sqrt(v_obj_roll2) / ROLL
    v_cue_hit = v_obj / transfer
    # invert the cue ball's slide-then-roll in closed form: with slip u0 = q v0 it slides
    # s_s = kappa v0^2 metres and then rolls on at c v0
    q = _launch(params, round(float(b), 6))[1]
    a_s = params.u_s * params.g * np.sign(q)
    tau = 2.0 * abs(q) / (7.0 * params.u_s * params.g)
    kappa = tau - 0.5 * a_s * tau ** 2
    c = 1.0 - 2.0 * q / 7.0
    d2 = np.asarray(d2, dtype=float)
    v_slide = np.sqrt(np.maximum(v_cue_hit ** 2 + 2.0 * a_s * d2, 0.0))     # hit while sliding
    v_roll = np.sqrt((v_cue_hit ** 2 + mu_g2 * d2) / (c ** 2 + mu_g2 * kappa))  # hit while rolling
    v0 = np.where(d2 <= kappa * v_slide ** 2, v_slide, v_roll)
    return v0 / launch_ratio(params, b)
