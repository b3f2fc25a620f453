"""Fitting ball outlines: spheres in 3-D from rays tangent to them, circles in the image.

Both are robust Gauss-Newton fits: plain steps first, then Tukey biweights (c = 4.685 x 1.4826 x
the median absolute residual, at least 0.25 px) so that outline points spoiled by a stripe, a
number disc or a neighbour do not pull the fit.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit

TUKEY_MIN_PX = 0.25     # the Tukey scale never drops below this many pixels
CIRCLE_ITERS = 6        # Gauss-Newton steps of a circle fit (``fit_circles``)


@njit(cache=True)
def _tukey_weights(r, scale, mask, c, tw):
    """Tukey biweights into ``tw``: (1 - u^2)^2 of u = r * scale / c, 0 where |u| >= 1 or not mask."""
    for k in range(r.size):
        u = r[k] * scale / c
        tw[k] = (1 - u * u) ** 2 if mask[k] and abs(u) < 1 else 0.0


WELL_POSED = 1e-3       # a 3x3 normal matrix A with det A above this share of the product of its diagonal is
                        # solved in closed form (its error about the machine epsilon over this share); one nearer
                        # singular (a fit to very few points, held by the 1e-9 regularisation alone) by LAPACK: its
                        # step there is mostly rounding, and LAPACK's pivoting rounds otherwise


@njit(cache=True)
def _solve_normal3(a00, a01, a10, a02, a11, a12, a22, b0, b1, b2):
    """x of A x = b for the normal matrix A of a 3-unknown fit (a.. its upper triangle, a10 the lower
    twin of a01 as summed, the other lower entries equal to their twins): by the adjugate (Cramer's
    rule) where A is WELL_POSED, else ``np.linalg.solve``. Returns x's three components."""
    c00 = a11 * a22 - a12 * a12
    c01 = a02 * a12 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    if not det > WELL_POSED * a00 * a11 * a22:
        x = np.linalg.solve(np.array([[a00, a01, a02], [a10, a11, a12], [a02, a12, a22]]), np.array([b0, b1, b2]))
        return x[0], x[1], x[2]
    c11 = a00 * a22 - a02 * a02
    c12 = a01 * a02 - a00 * a12
    c22 = a00 * a11 - a01 * a01
    return ((c00 * b0 + c01 * b1 + c02 * b2) / det, (c01 * b0 + c11 * b1 + c12 * b2) / det,
            (c02 * b0 + c12 * b1 + c22 * b2) / det)


@njit(cache=True)
def _gauss_newton_step(jac, r, tw, wp=0.0, rp=0.0):
    """The weighted Gauss-Newton step (J^T W J + 1e-9 I)^-1 J^T W r, 3 unknowns (jac: (N, 2), the
    third column -1 throughout); with a prior on the third unknown (residual rp, weight wp: one
    more row (0, 0, 1)). Returns the step's three components."""
    a00 = a11 = 1e-9
    a22 = 1e-9 + wp
    a01 = a10 = a02 = a12 = 0.0
    b0 = b1 = 0.0
    b2 = wp * rp
    for k in range(r.size):
        w = tw[k]
        if w > 0:
            j0, j1 = jac[k, 0], jac[k, 1]
            wj0, wj1 = w * j0, w * j1
            a00 += wj0 * j0
            a01 += wj0 * j1
            a10 += wj1 * j0
            a11 += wj1 * j1
            a02 -= wj0
            a12 -= wj1
            a22 += w
            b0 += wj0 * r[k]
            b1 += wj1 * r[k]
            b2 -= w * r[k]
    return _solve_normal3(a00, a01, a10, a02, a11, a12, a22, b0, b1, b2)


@njit(cache=True)
def _robust_scale(r, mask, factor, buf, lower):
    """The median of |r| * factor over mask (r (N,), mask (N,) bool), the lower middle value for an even
    count where ``lower``, else the mean of the two; -1 where the mask is empty. buf: (N,) scratch (left
    holding the values in another order)."""
    n = 0
    for k in range(r.size):
        if mask[k]:
            buf[n] = abs(r[k]) * factor
            n += 1
    if n == 0:
        return -1.0
    v = buf[:n]
    low = _kth_smallest(v, (n - 1) // 2)
    if lower or n % 2:
        return low
    high = v[n // 2]                      # (the smallest of those after it)
    for k in range(n // 2 + 1, n):
        high = min(high, v[k])
    return 0.5 * (low + high)


@njit(cache=True)
def _kth_smallest(v, k):
    """The k-th smallest (from 0) of v (n,), by selection in place (v is reordered: every value before
    index k no larger than it, every one after no smaller): a fit's few dozen residuals, in about a
    third of a sort's time."""
    lo, hi = 0, v.size - 1
    while lo < hi:
        pivot = v[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while v[i] < pivot:
                i += 1
            while v[j] > pivot:
                j -= 1
            if i <= j:
                v[i], v[j] = v[j], v[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return v[k]


@njit(cache=True)
def _weighted_rms(r, scale, tw):
    """sqrt(sum w (r scale)^2 / sum w)."""
    sw = 0.0
    ss = 0.0
    for k in range(r.size):
        sw += tw[k]
        ss += tw[k] * (r[k] * scale) ** 2
    return math.sqrt(ss / max(sw, 1e-12))


@njit(cache=True)
def _fit_spheres(origin, rays, weights, xy0, z, rho0, px_per_m, iters, trust, rho_prior, prior_weight):
    M, N = rays.shape[0], rays.shape[1]
    xy = np.empty((M, 2))
    rho = np.empty(M)
    rms = np.empty(M)
    tws = np.zeros((M, N))
    r = np.empty(N)
    jac = np.empty((N, 2))
    buf = np.empty(N)
    for m in range(M):
        x0, x1, x2 = xy0[m, 0], xy0[m, 1], rho0[m]
        tw = tws[m]                                       # (the weights in place: no array per sphere)
        for k in range(N):
            tw[k] = 1.0 if weights[m, k] else 0.0
        for it in range(iters + 1):
            vx, vy, vz = x0 - origin[0], x1 - origin[1], z - origin[2]
            for k in range(N):
                dx, dy, dz = rays[m, k, 0], rays[m, k, 1], rays[m, k, 2]
                along = vx * dx + vy * dy + vz * dz
                px, py, pz = vx - along * dx, vy - along * dy, vz - along * dz
                dist = max(math.sqrt(px * px + py * py + pz * pz), 1e-12)
                r[k] = dist - x2
                jac[k, 0], jac[k, 1] = px / dist, py / dist
            if it == iters:
                break
            if it >= min(2, iters - 1):                  # robust weights once near the solution
                med = _robust_scale(r, weights[m], px_per_m[m], buf, False)
                if med >= 0:
                    _tukey_weights(r, px_per_m[m], weights[m], max(4.685 * 1.4826 * med, TUKEY_MIN_PX), tw)
            s0, s1, s2 = _gauss_newton_step(jac, r, tw, prior_weight[m], x2 - rho_prior[m])
            f = min(1.0, trust / max(math.sqrt(s0 ** 2 + s1 ** 2 + s2 ** 2), 1e-15))
            x0, x1, x2 = x0 - s0 * f, x1 - s1 * f, x2 - s2 * f
        xy[m, 0], xy[m, 1], rho[m] = x0, x1, x2
        rms[m] = _weighted_rms(r, px_per_m[m], tw)
    return xy, rho, rms, tws


def fit_spheres(origin: np.ndarray, rays: np.ndarray, weights: np.ndarray, xy0: np.ndarray, z: float,
                rho0, px_per_m: np.ndarray, iters: int = 6, rho_prior=None,
                prior_weight: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sphere centres on the plane z from rays tangent to them.

    The model: distance(centre, ray k) = rho for every ray k, unknowns (x, y, rho) per sphere. This
    is exact under perspective; rho (the effective radius) takes up an offset of the outline finder
    that is the same all round.
    origin: (3,) the rays' common start (camera centre) [m]; rays: (M, N, 3) unit directions;
    weights: (M, N) bool, which rays to use; xy0: (M, 2) start [m]; z: centre height [m] (= R);
    rho0: start radius [m] (scalar or (M,)); px_per_m: (M,) image scale at each sphere, for
    residuals in pixels; iters: Gauss-Newton steps (each at most z/2 long); rho_prior: None or the
    expected rho [m] (scalar or (M,)), held with ``prior_weight`` (as many rays' worth of weight): a
    ball that shows only part of its outline cannot tell its radius from its centre.
    Returns (xy (M, 2), rho (M,), rms_px (M,) weighted residual RMS, weights used (M, N)).
    """
    M = xy0.shape[0]
    return _fit_spheres(np.asarray(origin, np.float64), np.ascontiguousarray(rays, np.float64),
                        np.ascontiguousarray(weights, np.bool_), np.asarray(xy0, np.float64), float(z),
                        _per_sphere(rho0, M), np.asarray(px_per_m, np.float64), int(iters), 0.5 * float(z),
                        _per_sphere(0.0 if rho_prior is None else rho_prior, M),
                        np.full(M, 0.0 if rho_prior is None else float(prior_weight)))


def _per_sphere(v, M: int) -> np.ndarray:
    """(M,) float64, a new C-ordered array: v (a number, or any shape that broadcasts to (M,)) for each of M
    spheres (a number or an (M,) array without np.broadcast_to, whose checks cost 4 us a call: about 20 calls a
    hard frame)."""
    a = np.asarray(v, np.float64)
    if a.ndim == 0:
        return np.full(M, a)
    return a.copy() if a.shape == (M,) else np.broadcast_to(a, (M,)).copy()


@njit(cache=True)
def _fit_circles(pts, weights, c0, r0, iters):
    M, N = pts.shape[0], pts.shape[1]
    out = np.empty((M, 3))
    rms = np.empty(M)
    tws = np.zeros((M, N))
    r = np.empty(N)
    jac = np.empty((N, 2))
    buf = np.empty(N)
    for m in range(M):
        x0, x1, x2 = c0[m, 0], c0[m, 1], r0[m]
        tw = tws[m]                                       # (the weights in place: no array per circle)
        for k in range(N):
            tw[k] = 1.0 if weights[m, k] else 0.0
        for it in range(iters + 1):
            for k in range(N):
                dx, dy = pts[m, k, 0] - x0, pts[m, k, 1] - x1
                dist = max(math.sqrt(dx * dx + dy * dy), 1e-12)
                r[k] = dist - x2
                jac[k, 0], jac[k, 1] = -dx / dist, -dy / dist
            if it == iters:
                break
            if it >= 2:                                   # robust weights once near the solution
                med = _robust_scale(r, weights[m], 1.0, buf, True)
                if med >= 0:
                    _tukey_weights(r, 1.0, weights[m], max(4.685 * 1.4826 * med, TUKEY_MIN_PX), tw)
            s0, s1, s2 = _gauss_newton_step(jac, r, tw)
            x0, x1, x2 = x0 - s0, x1 - s1, x2 - s2
        out[m, 0], out[m, 1], out[m, 2] = x0, x1, x2
        rms[m] = _weighted_rms(r, 1.0, tw)
    return out, rms, tws


def fit_circles(pts: np.ndarray, weights: np.ndarray, c0: np.ndarray, r0: np.ndarray,
                iters: int = CIRCLE_ITERS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Circles through outline points (pixel-only mode): Gauss-Newton on |p - c| - r, Tukey
    weights from the third step on (the median taken over the points with weight).

    pts: (M, N, 2) [px]; weights: (M, N) 0/1; c0: (M, 2), r0: (M,) start.
    Returns (centres (M, 2), radii (M,), rms (M,), weights used (M, N)).
    """
    x, rms, tw = _fit_circles(np.ascontiguousarray(pts, np.float64), np.ascontiguousarray(weights, np.bool_),
                              np.asarray(c0, np.float64), np.asarray(r0, np.float64), int(iters))
    return x[:, :2], x[:, 2], rms, tw
