"""Time to the next event of each kind, from the closed-form motion (numba kernels).

Each ball's centre follows r(t) = c + b t + k t^2 (``motion.accel_dir``) until its next
transition, so every contact condition is a polynomial in t:

- ball-ball: |dr(t)|^2 = (2R)^2, a quartic (Kiefl 2020, "pooltool-alg", ball-ball collision times);
- ball-linear cushion: n . (r(t) - p1) = R, a quadratic, with the foot of the perpendicular
  inside the segment; only balls on the segment's ``normal`` side are detected;
- ball-circular cushion (jaw tip): |r(t) - c|^2 = (r_c + R)^2, a quartic;
- ball-pocket: |r(t) - p|^2 = r_p^2, a quartic (R not added).

All functions return the time *from now* [s], or inf; ``h`` [s] is how long the motion
polynomials stay valid (the earliest next transition of the balls involved).
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit
from planner.physics.motion import accel_dir
from planner.physics.roots import first_crossing, quadratic_roots


@njit(cache=True)
def reach(rvw, s, h, p):
    """Upper bound on the distance [m] a ball's centre can travel in the next h seconds."""
    kx, ky = accel_dir(rvw, s, p)
    v = math.sqrt(rvw[1, 0] ** 2 + rvw[1, 1] ** 2)
    return v * h + math.sqrt(kx * kx + ky * ky) * h * h


@njit(cache=True)
def _circle_time(rvw, s, cx, cy, rad, h, p):
    """First time the centre comes within distance ``rad`` of the point (cx, cy)."""
    kx, ky = accel_dir(rvw, s, p)
    bx, by = rvw[1, 0], rvw[1, 1]
    dx, dy = rvw[0, 0] - cx, rvw[0, 1] - cy
    return first_crossing(kx * kx + ky * ky, 2.0 * (kx * bx + ky * by),
                          bx * bx + by * by + 2.0 * (kx * dx + ky * dy),
                          2.0 * (bx * dx + by * dy), dx * dx + dy * dy - rad * rad, h)


@njit(cache=True)
def ball_ball_time(rvw1, s1, rvw2, s2, h, p, R):
    """Time until two balls' centres are 2R apart, approaching; inf if not within h."""
    k1x, k1y = accel_dir(rvw1, s1, p)
    k2x, k2y = accel_dir(rvw2, s2, p)
    ax, ay = k2x - k1x, k2y - k1y
    bx, by = rvw2[1, 0] - rvw1[1, 0], rvw2[1, 1] - rvw1[1, 1]
    cx, cy = rvw2[0, 0] - rvw1[0, 0], rvw2[0, 1] - rvw1[0, 1]
    return first_crossing(ax * ax + ay * ay, 2.0 * (ax * bx + ay * by),
                          bx * bx + by * by + 2.0 * (ax * cx + ay * cy),
                          2.0 * (bx * cx + by * cy), cx * cx + cy * cy - 4.0 * R * R, h)


@njit(cache=True)
def circular_cushion_time(rvw, s, cx, cy, radius, h, p, R):
    return _circle_time(rvw, s, cx, cy, radius + R, h, p)


@njit(cache=True)
def pocket_time(rvw, s, cx, cy, radius, h, p):
    return _circle_time(rvw, s, cx, cy, radius, h, p)


@njit(cache=True)
def linear_cushion_time(rvw, s, p1x, p1y, p2x, p2y, nx, ny, h, p, R):
    """First time the ball reaches distance R from the segment's line, from the ``n`` side,
    with the foot of the perpendicular on the segment."""
    kx, ky = accel_dir(rvw, s, p)
    A = nx * kx + ny * ky
    B = nx * rvw[1, 0] + ny * rvw[1, 1]
    C = nx * (rvw[0, 0] - p1x) + ny * (rvw[0, 1] - p1y) - R
    ex, ey = p2x - p1x, p2y - p1y
    ee = ex * ex + ey * ey
    if C <= 0.0 and B < 0.0:
        # at or behind the contact line and moving into it: a contact now if over the segment
        u = ((rvw[0, 0] - p1x) * ex + (rvw[0, 1] - p1y) * ey) / ee
        if 0.0 <= u <= 1.0:
            return 0.0
    # A ball behind the line (in a pocket's mouth, beyond the segment's end, or just after a
    # contact) may still curve back through it later: only approaching roots count.
    r1, r2 = quadratic_roots(A, B, C)
    if r1 != r1:
        return np.inf
    for r in (r1, r2):
        if r < 0.0 or r > h:
            continue
        # the distance must be falling through R here (an approach, not a departure or a graze)
        if 2.0 * A * r + B >= 0.0:
            continue
        x = rvw[0, 0] + rvw[1, 0] * r + kx * r * r
        y = rvw[0, 1] + rvw[1, 1] * r + ky * r * r
        u = ((x - p1x) * ex + (y - p1y) * ey) / ee
        if 0.0 <= u <= 1.0:
            return r
    return np.inf
