"""Cue strike: instantaneous point contact with squirt.

Alciatore, "Technical Proof A-30: cue-ball speed and spin from an instantaneous point impact"
(billiards.colostate.edu/technical_proofs), ball speed and spin from the tip contact point;
squirt (cue-ball deflection) from Alciatore TP A-31 with the cue's tip end mass m_e.
The vertical velocity is dropped (the ball leaves horizontally: no jump model).
"""
from __future__ import annotations

import math

from planner.jit import njit
from planner.physics.params import P_CUEEND, P_CUEM, P_M, P_R


@njit(cache=True)
def squirt_angle(a, m, m_e):
    """Squirt angle [rad] for side offset a (fraction of R), ball mass m, tip end mass m_e
    (TP A-31, with the sign of a as in docs/frame.md: a > 0 pushes the ball right)."""
    s = 1.0 - a * a
    return -math.atan2(2.5 * a * math.sqrt(s), 1.0 + m / m_e + 2.5 * s)


@njit(cache=True)
def cue_strike(rvw, V0, phi_deg, theta_deg, a, b, p):
    """Set the velocity and spin of a ball at rest struck by the cue, in place.

    V0: cue speed [m/s]; phi_deg, theta_deg: aim and elevation [deg]; a, b: tip offsets as
    fractions of R (a^2 + b^2 < 1). The ball is left sliding (the caller sets the state).
    """
    R = p[P_R]
    m = p[P_M]
    M = p[P_CUEM]
    th = math.radians(theta_deg)
    ct, st = math.cos(th), math.sin(th)
    c0 = math.sqrt(1.0 - a * a - b * b)
    # contact point Q in the ball frame (TP A-30): the cue-frame point (a, c0, b) tilted by theta
    qa = R * a
    qc = R * (ct * c0 - st * b)
    qb = R * (st * c0 + ct * b)
    I_m = 0.4 * R * R
    temp = qa * qa + (qb * ct) ** 2 + (qc * st) ** 2 - 2.0 * qb * qc * ct * st
    v = 2.0 * V0 / (1.0 + m / M + temp / I_m)           # TP A-30
    # ball frame: y points against the cue direction; rotate by phi + 90 deg into the table
    wbx = v / I_m * (-qc * st + qb * ct)
    wby = v / I_m * (qa * st)
    wbz = v / I_m * (-qa * ct)
    rot = math.radians(phi_deg) + 0.5 * math.pi
    cr, sr = math.cos(rot), math.sin(rot)
    vx, vy = v * ct * sr, -v * ct * cr                   # (0, -v cos theta) rotated
    alpha = squirt_angle(a, m, p[P_CUEEND])
    ca, sa = math.cos(alpha), math.sin(alpha)
    rvw[1, 0] = ca * vx - sa * vy
    rvw[1, 1] = sa * vx + ca * vy
    rvw[1, 2] = 0.0
    rvw[2, 0] = cr * wbx - sr * wby
    rvw[2, 1] = sr * wbx + cr * wby
    rvw[2, 2] = wbz
