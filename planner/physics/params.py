"""Physical constants of balls, cloth, cushions and cue: one typed value holds them all.

Units: metres, kilograms, seconds. Friction coefficients are dimensionless; the spinning friction
coefficient is u_sp = u_sp_prop * R (a length, as in pooltool), so that w_z decays at
5 u_sp g / (2 R^2) rad/s^2 (``planner/physics/motion.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PhysicsParams:
    """Everything the engine needs besides geometry. No defaults: the values live in
    config/table.yaml (read by ``config.table.load_table_settings().physics``), and the reference
    runs carry their own (``planner.physics.reference.load_reference``).

    R, m: ball radius [m] and mass [kg].
    u_s, u_r: sliding and rolling friction coefficients (ball-cloth).
    u_sp_prop: spinning friction proportionality; the spin friction coefficient is u_sp_prop * R.
    e_b: ball-ball restitution. bb_a, bb_b, bb_c: Alciatore ball-ball friction curve
        u_b = a + b exp(-c v_rel) (v_rel in m/s).
    e_c, f_c: cushion restitution and friction (Han 2005).
    cue_M, cue_end_mass: cue mass and its tip end mass [kg] (instantaneous point model, squirt).
    cue_tip_radius: [m], for geometry only (clearance checks); not used by the strike model.
    g: [m/s^2].
    """
    R: float
    m: float
    u_s: float
    u_r: float
    u_sp_prop: float
    e_b: float
    bb_a: float
    bb_b: float
    bb_c: float
    e_c: float
    f_c: float
    cue_M: float
    cue_end_mass: float
    cue_tip_radius: float
    g: float

    @property
    def u_sp(self) -> float:
        return self.u_sp_prop * self.R

    def as_array(self) -> np.ndarray:
        """Packed float64 vector for the numba kernels; indices are the P_* constants below."""
        return np.array([self.R, self.m, self.u_s, self.u_r, self.u_sp, self.e_b, self.bb_a,
                         self.bb_b, self.bb_c, self.e_c, self.f_c, self.cue_M, self.cue_end_mass,
                         self.g], dtype=np.float64)


# Indices into PhysicsParams.as_array(), shared by every kernel.
P_R, P_M, P_US, P_UR, P_USP, P_EB, P_BBA, P_BBB, P_BBC, P_EC, P_FC, P_CUEM, P_CUEEND, P_G = range(14)
