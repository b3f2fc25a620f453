"""Earliest-crossing root finding for the event-time polynomials (numba kernels).

Event times are the first t in (0, h] at which a polynomial distance function f(t) (quadratic
or quartic: squared distance minus squared contact distance) crosses from positive to <= 0.
Rather than computing all complex roots and filtering, f is split into monotone pieces at the
real roots of f' (a cubic, solved in closed form), and the first piece whose ends change sign
is searched with safeguarded Newton steps. This finds grazing-free first contacts robustly and
never returns a root beyond the validity horizon h of the motion polynomials.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit

_TOL = 1e-15


@njit(cache=True)
def _poly4(a, b, c, d, e, t):
    return (((a * t + b) * t + c) * t + d) * t + e


@njit(cache=True)
def _dpoly4(a, b, c, d, t):
    return ((4.0 * a * t + 3.0 * b) * t + 2.0 * c) * t + d


@njit(cache=True)
def quadratic_roots(a, b, c):
    """Real roots (r1 <= r2) of a t^2 + b t + c; (nan, nan) if none. Handles a == 0."""
    if a == 0.0:
        if b == 0.0:
            return np.nan, np.nan
        r = -c / b
        return r, r
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return np.nan, np.nan
    sq = math.sqrt(disc)
    q = -0.5 * (b + sq) if b >= 0.0 else -0.5 * (b - sq)   # stable form (no cancellation)
    if q == 0.0:
        return 0.0, 0.0
    r1 = q / a
    r2 = c / q
    return (r1, r2) if r1 <= r2 else (r2, r1)


@njit(cache=True)
def nearest_contact_time(dx, dy, vx, vy, target):
    """The time tau [s] nearest 0, of either sign, at which a point at offset (dx, dy) [m] moving
    in a straight line at relative velocity (vx, vy) [m/s] is at distance ``target`` [m]:
    the root of |d + v tau| = target, i.e. A tau^2 + B tau + C = 0 with A = |v|^2,
    B = 2 v.d, C = |d|^2 - target^2, from the textbook formula. inf when there is none (v = 0,
    or the line misses the circle). The contact rewinds (resolve/) move bodies by this tau."""
    A = vx * vx + vy * vy
    B = 2.0 * (vx * dx + vy * dy)
    C = dx * dx + dy * dy - target * target
    disc = B * B - 4.0 * A * C
    if not (A > 0.0 and disc >= 0.0):
        return np.inf
    sq = math.sqrt(disc)
    t1 = (-B - sq) / (2.0 * A)
    t2 = (-B + sq) / (2.0 * A)
    return t1 if abs(t1) < abs(t2) else t2


@njit(cache=True)
def cubic_real_roots(A, B, C, D, out):
    """Real roots of A t^3 + B t^2 + C t + D written into out[0:n]; returns n (0..3).

    Degenerate leading coefficients drop to the quadratic or linear case.
    """
    scale = max(abs(B), abs(C), abs(D))
    if abs(A) <= 1e-14 * scale or A == 0.0:
        r1, r2 = quadratic_roots(B, C, D)
        if r1 != r1:
            return 0
        out[0] = r1
        if r2 != r1:
            out[1] = r2
            return 2
        return 1
    b = B / A
    c = C / A
    d = D / A
    # depressed cubic x^3 + p x + q with t = x - b/3
    p = c - b * b / 3.0
    q = 2.0 * b * b * b / 27.0 - b * c / 3.0 + d
    shift = -b / 3.0
    disc = (q * q) / 4.0 + (p * p * p) / 27.0
    n = 0
    if disc > 0.0:
        sq = math.sqrt(disc)
        u = -q / 2.0 + sq
        v = -q / 2.0 - sq
        out[0] = math.copysign(abs(u) ** (1.0 / 3.0), u) + math.copysign(abs(v) ** (1.0 / 3.0), v) + shift
        n = 1
    elif p == 0.0:
        out[0] = shift
        n = 1
    else:
        m = 2.0 * math.sqrt(-p / 3.0)
        arg = 3.0 * q / (p * m)
        arg = min(1.0, max(-1.0, arg))
        th = math.acos(arg) / 3.0
        for k in range(3):
            out[k] = m * math.cos(th - 2.0 * math.pi * k / 3.0) + shift
        n = 3
    # one Newton polish per root on the monic cubic
    for k in range(n):
        x = out[k]
        f = ((x + b) * x + c) * x + d
        df = (3.0 * x + 2.0 * b) * x + c
        if df != 0.0:
            out[k] = x - f / df
    return n


@njit(cache=True)
def _refine(a, b, c, d, e, lo, hi):
    """Root of f on [lo, hi] where f(lo) > 0 >= f(hi), f monotone: safeguarded Newton."""
    t = hi if abs(_poly4(a, b, c, d, e, hi)) < abs(_poly4(a, b, c, d, e, lo)) else lo
    for _ in range(100):
        f = _poly4(a, b, c, d, e, t)
        if f > 0.0:
            lo = t
        else:
            hi = t
        if hi - lo <= _TOL * max(1.0, hi):
            break
        df = _dpoly4(a, b, c, d, t)
        nt = t - f / df if df != 0.0 else 0.5 * (lo + hi)
        if not (lo < nt < hi):
            nt = 0.5 * (lo + hi)
        t = nt
    return hi


@njit(cache=True)
def first_crossing(a, b, c, d, e, h):
    """First t in (0, h] where f(t) = a t^4 + b t^3 + c t^2 + d t + e falls from > 0 to <= 0.

    h must be finite: it is the time the motion polynomials stay valid (next transition).

    If f(0) <= 0 and f is decreasing at 0 (contact already made and closing), returns 0.
    Returns inf if there is no such crossing.
    """
    if e <= 0.0 and d < 0.0:
        return 0.0
    crit = np.empty(3)
    n = cubic_real_roots(4.0 * a, 3.0 * b, 2.0 * c, d, crit)
    # sort the critical points inside (0, h)
    pts = np.empty(5)
    m = 0
    for k in range(n):
        if 0.0 < crit[k] < h:
            pts[m] = crit[k]
            m += 1
    for i in range(1, m):           # insertion sort of at most 3 values
        x = pts[i]
        j = i - 1
        while j >= 0 and pts[j] > x:
            pts[j + 1] = pts[j]
            j -= 1
        pts[j + 1] = x
    pts[m] = h
    m += 1
    t0 = 0.0
    f0 = e
    for k in range(m):
        t1 = pts[k]
        f1 = _poly4(a, b, c, d, e, t1)
        if f0 > 0.0 and f1 <= 0.0:
            return _refine(a, b, c, d, e, t0, t1)
        t0 = t1
        f0 = f1
    return np.inf
