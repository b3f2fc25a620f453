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


@njit(cache=True)
def _tukey_weights(r, scale, mask, c, tw):
    """Tukey biweights into ``tw``: (1 - u^2)^2 of u = r * scale / c, 0 where |u| >= 1 or not mask."""
    for k in range(r.size):
        u = r[k] * scale / c
        tw[k] = (1 - u * u) ** 2 if mask[k] and abs(u) < 1 else 0.0


@njit(cache=True)
def _gauss_newton_step(jac, r, tw, wp=0.0, rp=0.0):
    """The weighted Gauss-Newton step (J^T W J + 1e-9 I)^-1 J^T W r, 3 unknowns (jac: (N, 3)); with
    a prior on the third unknown (residual rp, weight wp: one more row (0, 0, 1))."""
    A = np.eye(3) * 1e-9
    A[2, 2] += wp
    b = np.zeros(3)
    b[2] = wp * rp
    for k in range(r.size):
        if tw[k] > 0:
            for i in range(3):
                b[i] += tw[k] * jac[k, i] * r[k]
                for j in range(3):
                    A[i, j] += tw[k] * jac[k, i] * jac[k, j]
    return np.linalg.solve(A, b)


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
    jac = np.empty((N, 3))
    for m in range(M):
        x = np.array([xy0[m, 0], xy0[m, 1], rho0[m]])
        tw = weights[m].astype(np.float64)
        for it in range(iters + 1):
            vx, vy, vz = x[0] - origin[0], x[1] - origin[1], z - origin[2]
            for k in range(N):
                dx, dy, dz = rays[m, k, 0], rays[m, k, 1], rays[m, k, 2]
                along = vx * dx + vy * dy + vz * dz
                px, py, pz = vx - along * dx, vy - along * dy, vz - along * dz
                dist = max(math.sqrt(px * px + py * py + pz * pz), 1e-12)
                r[k] = dist - x[2]
                jac[k, 0], jac[k, 1], jac[k, 2] = px / dist, py / dist, -1.0
            if it == iters:
                break
            if it >= min(2, iters - 1):                  # robust weights once near the solution
                used = np.abs(r[weights[m]]) * px_per_m[m]
                if used.size:
                    c = max(4.685 * 1.4826 * np.median(used), TUKEY_MIN_PX)
                    _tukey_weights(r, px_per_m[m], weights[m], c, tw)
            step = _gauss_newton_step(jac, r, tw, prior_weight[m], x[2] - rho_prior[m])
            size = math.sqrt(step[0] ** 2 + step[1] ** 2 + step[2] ** 2)
            x -= step * min(1.0, trust / max(size, 1e-15))
        xy[m, 0], xy[m, 1], rho[m] = x[0], x[1], x[2]
        rms[m] = _weighted_rms(r, px_per_m[m], tw)
        tws[m] = tw
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
                        np.broadcast_to(np.asarray(rho0, np.float64), (M,)).copy(),
                        np.asarray(px_per_m, np.float64), int(iters), 0.5 * float(z),
                        np.broadcast_to(np.asarray(0.0 if rho_prior is None else rho_prior, np.float64), (M,)).copy(),
                        np.full(M, 0.0 if rho_prior is None else float(prior_weight)))


@njit(cache=True)
def _fit_circles(pts, weights, c0, r0, iters):
    M, N = pts.shape[0], pts.shape[1]
    out = np.empty((M, 3))
    rms = np.empty(M)
    tws = np.zeros((M, N))
    r = np.empty(N)
    jac = np.empty((N, 3))
    for m in range(M):
        x = np.array([c0[m, 0], c0[m, 1], r0[m]])
        tw = weights[m].astype(np.float64)
        for it in range(iters + 1):
            for k in range(N):
                dx, dy = pts[m, k, 0] - x[0], pts[m, k, 1] - x[1]
                dist = max(math.sqrt(dx * dx + dy * dy), 1e-12)
                r[k] = dist - x[2]
                jac[k, 0], jac[k, 1], jac[k, 2] = -dx / dist, -dy / dist, -1.0
            if it == iters:
                break
            if it >= 2:                                   # robust weights once near the solution
                used = np.abs(r[weights[m]])
                if used.size:
                    c = max(4.685 * 1.4826 * np.sort(used)[(used.size - 1) // 2], TUKEY_MIN_PX)
                    _tukey_weights(r, 1.0, weights[m], c, tw)
            x -= _gauss_newton_step(jac, r, tw)
        out[m] = x
        rms[m] = _weighted_rms(r, 1.0, tw)
        tws[m] = tw
    return out, rms, tws


def fit_circles(pts: np.ndarray, weights: np.ndarray, c0: np.ndarray, r0: np.ndarray,
                iters: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Circles through outline points (pixel-only mode): Gauss-Newton on |p - c| - r, Tukey
    weights from the third step on (the median taken over the points with weight).

    pts: (M, N, 2) [px]; weights: (M, N) 0/1; c0: (M, 2), r0: (M,) start.
    Returns (centres (M, 2), radii (M,), rms (M,), weights used (M, N)).
    """
    x, rms, tw = _fit_circles(np.ascontiguousarray(pts, np.float64), np.ascontiguousarray(weights, np.bool_),
                              np.asarray(c0, np.float64), np.asarray(r0, np.float64), int(iters))
    return x[:, :2], x[:, 2], rms, tw
