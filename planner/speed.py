"""Cue speeds for a shot: the least speed that rolls the object ball into the pocket, from the
rolling-friction model the engine uses (planner/physics/motion.py), plus increments.

Model (centre-ball hit, a = b = 0):
- the strike launches the cue ball at v0 = k V (k = ``launch_ratio``, measured once from the
  engine's strike model for the table's physical constants);
- a sliding ball loses 2/7 of its speed before it rolls (v_roll = 5/7 v, no-slip condition), then
  decelerates at u_r g: over a distance d its speed drops to sqrt(v^2 - 2 u_r g d);
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


@lru_cache(maxsize=8)
def _launch_ratio(params: PhysicsParams) -> float:
    from planner.physics.engine import Simulator
    from planner.table import TableSpecs, build_pocket_table

    specs = TableSpecs("probe", 1.0, 2.0, 0.05, 1.3 * params.R, 0.11, 5.0, 0.04, 0.06, 0.02,
                       0.13, 7.0, 0.07, 0.065, 0.008)
    sim = Simulator(build_pocket_table(specs), params)
    res = sim.simulate(TableState([0], [[0.5, 1.0]]), ShotParams(90.0, 0.0, 1.0))
    return float(np.linalg.norm(res.event_rvw[0, 0, 1, :2]))


def launch_ratio(params: PhysicsParams) -> float:
    """Cue-ball launch speed per unit cue speed for a level centre-ball hit (dimensionless)."""
    return _launch_ratio(params)


def min_speed(params: PhysicsParams, alpha_deg, d1, d2, margin: float = SPEED_MARGIN):
    """Least cue speed V [m/s] that gets the object ball ``d1 + margin`` metres after a cue-ball
    travel of ``d2`` metres and a cut of ``alpha_deg``. Broadcasts over numpy arrays."""
    mu_g2 = 2.0 * params.u_r * params.g
    transfer = 0.5 * (1.0 + params.e_b) * np.cos(np.radians(np.minimum(alpha_deg, 89.0)))
    v_obj_roll2 = mu_g2 * (np.asarray(d1) + margin)              # rolling object ball speed^2
    v_obj = np.sqrt(v_obj_roll2) / ROLL
    v_cue_hit = v_obj / transfer
    v_cue_roll = np.sqrt(v_cue_hit ** 2 + mu_g2 * np.asarray(d2))  # rolling before the hit
    return v_cue_roll / ROLL / launch_ratio(params)
