"""Ball-ball collision: instantaneous, inelastic, with tangential friction (throw).

Normal direction: equal-mass impact with restitution e_b (Alciatore TP A-5). Tangential: a
Coulomb impulse u_b |dv_n| opposing the contact points' relative surface velocity; if that
impulse would reverse the slip, the contact ends in rolling (no-slip) instead (Alciatore TP A-6,
extended to both balls' full 3-D spin). The friction coefficient follows Alciatore's fit to
measured throw, TP A-14: u_b = a + b exp(-c v_rel), v_rel the relative tangential surface speed
at the contact [m/s]. Vertical velocity is dropped afterwards (2-D table model).
"""
from __future__ import annotations

import math

from planner.jit import njit
from planner.physics.params import P_BBA, P_BBB, P_BBC, P_EB, P_R
from planner.physics.roots import nearest_contact_time

MAX_REWIND = 5.0  # largest move back along the velocities before a contact, in spacers


@njit(cache=True)
def _contact_slip(v1, w1, v2, w2, nx, ny, R):
    """Relative velocity of ball 1's contact point (at +R n) to ball 2's (at -R n); 3-vectors
    given with their normal components already removed."""
    # w x (R n) with n = (nx, ny, 0):  (-wz ny, wz nx, wx ny - wy nx) R
    c1x = v1[0] - R * w1[2] * ny
    c1y = v1[1] + R * w1[2] * nx
    c1z = v1[2] + R * (w1[0] * ny - w1[1] * nx)
    c2x = v2[0] + R * w2[2] * ny
    c2y = v2[1] - R * w2[2] * nx
    c2z = v2[2] - R * (w2[0] * ny - w2[1] * nx)
    return c1x - c2x, c1y - c2y, c1z - c2z


@njit(cache=True)
def collide(rvw1, rvw2, p):
    """Resolve a collision of two touching balls, in place. Both are left sliding."""
    R = p[P_R]
    e = p[P_EB]
    dx = rvw2[0, 0] - rvw1[0, 0]
    dy = rvw2[0, 1] - rvw1[0, 1]
    d = math.sqrt(dx * dx + dy * dy)
    nx, ny = dx / d, dy / d
    v1n = rvw1[1, 0] * nx + rvw1[1, 1] * ny
    v2n = rvw2[1, 0] * nx + rvw2[1, 1] * ny
    w1n = rvw1[2, 0] * nx + rvw1[2, 1] * ny
    w2n = rvw2[2, 0] * nx + rvw2[2, 1] * ny
    v1n_f = 0.5 * ((1.0 - e) * v1n + (1.0 + e) * v2n)
    v2n_f = 0.5 * ((1.0 + e) * v1n + (1.0 - e) * v2n)
    dvn = abs(v2n_f - v1n_f)
    # tangential parts (normal components removed)
    v1 = (rvw1[1, 0] - v1n * nx, rvw1[1, 1] - v1n * ny, rvw1[1, 2])
    v2 = (rvw2[1, 0] - v2n * nx, rvw2[1, 1] - v2n * ny, rvw2[1, 2])
    w1 = (rvw1[2, 0] - w1n * nx, rvw1[2, 1] - w1n * ny, rvw1[2, 2])
    w2 = (rvw2[2, 0] - w2n * nx, rvw2[2, 1] - w2n * ny, rvw2[2, 2])
    sx, sy, sz = _contact_slip(v1, w1, v2, w2, nx, ny, R)
    slip = math.sqrt(sx * sx + sy * sy + sz * sz)
    u_b = p[P_BBA] + p[P_BBB] * math.exp(-p[P_BBC] * slip)   # TP A-14 friction curve
    use_no_slip = True
    if slip > 1e-12:
        k = -u_b * dvn / slip
        Dv = (k * sx, k * sy, k * sz)                         # impulse/m on ball 1
        # D_w1 = 5/(2R) n x Dv, and ball 2 receives the same spin change
        Dw = (2.5 / R * (ny * Dv[2]), 2.5 / R * (-nx * Dv[2]), 2.5 / R * (nx * Dv[1] - ny * Dv[0]))
        v1s = (v1[0] + Dv[0], v1[1] + Dv[1], v1[2] + Dv[2])
        v2s = (v2[0] - Dv[0], v2[1] - Dv[1], v2[2] - Dv[2])
        w1s = (w1[0] + Dw[0], w1[1] + Dw[1], w1[2] + Dw[2])
        w2s = (w2[0] + Dw[0], w2[1] + Dw[1], w2[2] + Dw[2])
        tx, ty, tz = _contact_slip(v1s, w1s, v2s, w2s, nx, ny, R)
        if sx * tx + sy * ty + sz * tz > 0.0:
            use_no_slip = False
            v1, v2, w1, w2 = v1s, v2s, w1s, w2s
    if use_no_slip:
        # contact ends rolling: D_v1 = -(v1 - v2 + R (w1 + w2) x n)/7,
        # D_w1 = -5/14 (n x (v1 - v2)/R + w1 + w2), same spin change for ball 2
        wsx, wsy, wsz = w1[0] + w2[0], w1[1] + w2[1], w1[2] + w2[2]
        rvx, rvy, rvz = v1[0] - v2[0], v1[1] - v2[1], v1[2] - v2[2]
        # (w1 + w2) x n = (-wsz ny, wsz nx, wsx ny - wsy nx)
        Dv = (-(rvx - R * wsz * ny) / 7.0, -(rvy + R * wsz * nx) / 7.0,
              -(rvz + R * (wsx * ny - wsy * nx)) / 7.0)
        # n x (v1 - v2) = (ny rvz, -nx rvz, nx rvy - ny rvx)
        Dw = (-5.0 / 14.0 * (ny * rvz / R + wsx), -5.0 / 14.0 * (-nx * rvz / R + wsy),
              -5.0 / 14.0 * ((nx * rvy - ny * rvx) / R + wsz))
        v1 = (v1[0] + Dv[0], v1[1] + Dv[1], v1[2] + Dv[2])
        v2 = (v2[0] - Dv[0], v2[1] - Dv[1], v2[2] - Dv[2])
        w1 = (w1[0] + Dw[0], w1[1] + Dw[1], w1[2] + Dw[2])
        w2 = (w2[0] + Dw[0], w2[1] + Dw[1], w2[2] + Dw[2])
    rvw1[1, 0] = v1[0] + v1n_f * nx
    rvw1[1, 1] = v1[1] + v1n_f * ny
    rvw1[1, 2] = 0.0
    rvw2[1, 0] = v2[0] + v2n_f * nx
    rvw2[1, 1] = v2[1] + v2n_f * ny
    rvw2[1, 2] = 0.0
    rvw1[2, 0] = w1[0] + w1n * nx
    rvw1[2, 1] = w1[1] + w1n * ny
    rvw1[2, 2] = w1[2]
    rvw2[2, 0] = w2[0] + w2n * nx
    rvw2[2, 1] = w2[1] + w2n * ny
    rvw2[2, 2] = w2[2]


@njit(cache=True)
def make_kiss(rvw1, rvw2, R, spacer):
    """Move two colliding balls back along their velocities to centre distance 2R + spacer, in
    place.

    rvw1, rvw2: (3, 3) ball states; R: ball radius [m]; spacer: gap left between them [m]. The
    move is by the tau nearest 0 of |dr + dv tau| = 2R + spacer (``roots.nearest_contact_time``;
    straight-line motion over ~1 um). If there is none, or it moves the pair's midpoint by more
    than MAX_REWIND spacers (balls moving almost together), the balls are instead pushed apart
    along their line of centres.
    """
    dvx, dvy = rvw2[1, 0] - rvw1[1, 0], rvw2[1, 1] - rvw1[1, 1]
    drx, dry = rvw2[0, 0] - rvw1[0, 0], rvw2[0, 1] - rvw1[0, 1]
    target = 2.0 * R + spacer
    tau = nearest_contact_time(drx, dry, dvx, dvy, target)
    ok = False
    if math.isfinite(tau):
        mx = 0.5 * tau * (rvw1[1, 0] + rvw2[1, 0])
        my = 0.5 * tau * (rvw1[1, 1] + rvw2[1, 1])
        ok = math.sqrt(mx * mx + my * my) <= MAX_REWIND * spacer
    if ok:
        for k in range(2):
            rvw1[0, k] += tau * rvw1[1, k]
            rvw2[0, k] += tau * rvw2[1, k]
    else:
        d = math.sqrt(drx * drx + dry * dry)
        corr = 0.5 * (target - d) / d
        rvw1[0, 0] -= corr * drx
        rvw1[0, 1] -= corr * dry
        rvw2[0, 0] += corr * drx
        rvw2[0, 1] += corr * dry
