"""Closed-form ball motion in each motion state, and the time each state lasts.

Equations of motion for a ball on cloth, as derived in Kiefl, "Pooltool theory" (2020,
ekiefl.github.io/2020/04/24/pooltool-theory, Sections 3-4), after Leckie & Greenspan (2005):

- sliding: the contact-point slip u = v + w x (-R z) keeps its direction u_hat while the ball
  slides, so r(t) = r0 + v0 t - 1/2 u_s g t^2 u_hat, v(t) = v0 - u_s g t u_hat,
  w_xy(t) = w0_xy - 5 u_s g t / (2R) (u_hat x z)_xy; slide time 2|u0| / (7 u_s g).
- rolling: r(t) = r0 + v0 t - 1/2 u_r g t^2 v_hat, v(t) = v0 - u_r g t v_hat, (wx, wy) = (-vy, vx)/R;
  roll time |v0| / (u_r g).
- spinning (and in every state): w_z decays linearly at 5 u_sp g / (2R) until it is 0;
  spin time |w_z| 2R / (5 u_sp g).

A ball state is rvw, a (3, 3) float64 array [[x, y, z], [vx, vy, vz], [wx, wy, wz]] (m, m/s,
rad/s), and a motion state code. All kernels are numba nopython functions over these arrays.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit
from planner.physics.params import P_G, P_M, P_R, P_UR, P_US, P_USP

STATIONARY, SPINNING, SLIDING, ROLLING, POCKETED = 0, 1, 2, 3, 4


@njit(cache=True)
def contact_slip(rvw, R):
    """Contact-point slip u = v + w x (-R z): returns (ux, uy) [m/s]."""
    return rvw[1, 0] - R * rvw[2, 1], rvw[1, 1] + R * rvw[2, 0]


@njit(cache=True)
def slide_time(rvw, p):
    ux, uy = contact_slip(rvw, p[P_R])
    return 2.0 * math.sqrt(ux * ux + uy * uy + rvw[1, 2] * rvw[1, 2]) / (7.0 * p[P_US] * p[P_G])


@njit(cache=True)
def roll_time(rvw, p):
    v = math.sqrt(rvw[1, 0] ** 2 + rvw[1, 1] ** 2 + rvw[1, 2] ** 2)
    return v / (p[P_UR] * p[P_G])


@njit(cache=True)
def spin_time(rvw, p):
    return abs(rvw[2, 2]) * 2.0 * p[P_R] / (5.0 * p[P_USP] * p[P_G])


@njit(cache=True)
def _decay_spin(wz, p, t):
    alpha = 5.0 * p[P_USP] * p[P_G] / (2.0 * p[P_R])
    mag = abs(wz) - alpha * t
    if mag <= 0.0:
        return 0.0
    return mag if wz > 0.0 else -mag


@njit(cache=True)
def accel_dir(rvw, s, p):
    """The t^2 coefficient (kx, ky) [m/s^2] of the centre's path r(t) = r0 + v0 t + k t^2.

    k = -1/2 mu g d_hat with d_hat the slip direction (sliding) or the velocity direction
    (rolling); zero for a ball that does not translate. Valid until the ball's next transition.
    """
    if s == SLIDING:
        ux, uy = contact_slip(rvw, p[P_R])
        n = math.sqrt(ux * ux + uy * uy)
        if n == 0.0:
            return 0.0, 0.0
        k = -0.5 * p[P_US] * p[P_G] / n
        return k * ux, k * uy
    if s == ROLLING:
        vx, vy = rvw[1, 0], rvw[1, 1]
        n = math.sqrt(vx * vx + vy * vy)
        if n == 0.0:
            return 0.0, 0.0
        k = -0.5 * p[P_UR] * p[P_G] / n
        return k * vx, k * vy
    return 0.0, 0.0


@njit(cache=True)
def evolve(rvw, s, t, p):
    """Advance one ball by t seconds within its current motion state, in place."""
    if t == 0.0 or s == STATIONARY or s == POCKETED:
        return
    R = p[P_R]
    g = p[P_G]
    if s == SLIDING:
        ux, uy = contact_slip(rvw, R)
        n = math.sqrt(ux * ux + uy * uy)
        if n > 0.0:
            ux /= n
            uy /= n
        a = p[P_US] * g
        rvw[0, 0] += rvw[1, 0] * t - 0.5 * a * t * t * ux
        rvw[0, 1] += rvw[1, 1] * t - 0.5 * a * t * t * uy
        rvw[1, 0] -= a * t * ux
        rvw[1, 1] -= a * t * uy
        kw = 2.5 * a * t / R
        rvw[2, 0] -= kw * uy      # (u_hat x z) = (uy, -ux, 0)
        rvw[2, 1] += kw * ux
    elif s == ROLLING:
        vx, vy = rvw[1, 0], rvw[1, 1]
        n = math.sqrt(vx * vx + vy * vy)
        a = p[P_UR] * g
        if n > 0.0:
            hx, hy = vx / n, vy / n
            rvw[0, 0] += vx * t - 0.5 * a * t * t * hx
            rvw[0, 1] += vy * t - 0.5 * a * t * t * hy
            rvw[1, 0] = vx - a * t * hx
            rvw[1, 1] = vy - a * t * hy
        rvw[2, 0] = -rvw[1, 1] / R
        rvw[2, 1] = rvw[1, 0] / R
    rvw[2, 2] = _decay_spin(rvw[2, 2], p, t)


@njit(cache=True)
def next_transition(rvw, s, p):
    """(dt, new_state) of the ball's next motion-state change; (inf, s) if none."""
    if s == SLIDING:
        return slide_time(rvw, p), ROLLING
    if s == ROLLING:
        tr = roll_time(rvw, p)
        if spin_time(rvw, p) > tr:
            return tr, SPINNING
        return tr, STATIONARY
    if s == SPINNING:
        return spin_time(rvw, p), STATIONARY
    return np.inf, s


@njit(cache=True)
def energy(rvw, p):
    """Kinetic energy [J] of a ball (translation + rotation about its centre)."""
    m = p[P_M]
    v2 = rvw[1, 0] ** 2 + rvw[1, 1] ** 2 + rvw[1, 2] ** 2
    w2 = rvw[2, 0] ** 2 + rvw[2, 1] ** 2 + rvw[2, 2] ** 2
    return 0.5 * m * v2 + 0.5 * (0.4 * m * p[P_R] ** 2) * w2
