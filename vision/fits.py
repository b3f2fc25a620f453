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
def _fit_spheres(origin, rays, weights, xy0, z, rho0, px_per_m, iters, trust):
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
                    for k in range(N):
                        u = r[k] * px_per_m[m] / c
                        tw[k] = (1 - u * u) ** 2 if weights[m, k] and abs(u) < 1 else 0.0
            A = np.eye(3) * 1e-9
            b = np.zeros(3)
            for k in range(N):
                if tw[k] > 0:
                    for i in range(3):
                        b[i] += tw[k] * jac[k, i] * r[k]
                        for j in range(3):
                            A[i, j] += tw[k] * jac[k, i] * jac[k, j]
            step = np.linalg.solve(A, b)
            size = math.sqrt(step[0] ** 2 + step[1] ** 2 + step[2] ** 2)
            x -= step * min(1.0, trust / max(size, 1e-15))
        xy[m, 0], xy[m, 1], rho[m] = x[0], x[1], x[2]
        sw = 0.0
        ss = 0.0
        for k in range(N):
            sw += tw[k]
            ss += tw[k] * (r[k] * px_per_m[m]) ** 2
        rms[m] = math.sqrt(ss / max(sw, 1e-12))
        tws[m] = tw
    return xy, rho, rms, tws


def fit_spheres(origin: np.ndarray, rays: np.ndarray, weights: np.ndarray, xy0: np.ndarray, z: float,
                rho0, px_per_m: np.ndarray, iters: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sphere centres on the plane z from rays tangent to them.

    The model: distance(centre, ray k) = rho for every ray k, unknowns (x, y, rho) per sphere. This
    is exact under perspective; rho (the effective radius) takes up an offset of the outline finder
    that is the same all round.
    origin: (3,) the rays' common start (camera centre) [m]; rays: (M, N, 3) unit directions;
    weights: (M, N) bool, which rays to use; xy0: (M, 2) start [m]; z: centre height [m] (= R);
    rho0: start radius [m] (scalar or (M,)); px_per_m: (M,) image scale at each sphere, for
    residuals in pixels; iters: Gauss-Newton steps (each at most z/2 long).
    Returns (xy (M, 2), rho (M,), rms_px (M,) weighted residual RMS, weights used (M, N)).
    """
    M = xy0.shape[0]
    return _fit_spheres(np.asarray(origin, np.float64), np.ascontiguousarray(rays, np.float64),
                        np.ascontiguousarray(weights, np.bool_), np.asarray(xy0, np.float64), float(z),
                        np.broadcast_to(np.asarray(rho0, np.float64), (M,)).copy(),
                        np.asarray(px_per_m, np.float64), int(iters), 0.5 * float(z))


def fit_circles(pts: np.ndarray, weights: np.ndarray, c0: np.ndarray, r0: np.ndarray,
                iters: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Circles through outline points (pixel-only mode).

    pts: (M, N, 2) [px]; weights: (M, N) 0/1; c0: (M, 2), r0: (M,) start.
    Returns (centres (M, 2), radii (M,), rms (M,), weights used (M, N)).
    """
    x = np.concatenate([c0, r0[:, None]], axis=1).astype(np.float64)
    w = weights.astype(np.float64)
    tw = w.copy()
    for it in range(iters):
        d = pts - x[:, None, :2]
        dist = np.linalg.norm(d, axis=-1)
        r = dist - x[:, 2:3]
        if it >= 2:
            med = _wmedian(np.abs(r), w)
            c = np.maximum(4.685 * 1.4826 * med, TUKEY_MIN_PX)[:, None]
            tw = w * np.clip(1 - (r / c) ** 2, 0, None) ** 2
        J = np.concatenate([-d / np.maximum(dist, 1e-12)[..., None], -np.ones(dist.shape + (1,))], axis=-1)
        A = np.einsum("mn,mni,mnj->mij", tw, J, J) + 1e-9 * np.eye(3)
        b = np.einsum("mn,mni,mn->mi", tw, J, r)
        x = x - np.linalg.solve(A, b[..., None])[..., 0]
    r = np.linalg.norm(pts - x[:, None, :2], axis=-1) - x[:, 2:3]
    rms = np.sqrt(np.sum(tw * r * r, axis=1) / np.maximum(tw.sum(axis=1), 1e-12))
    return x[:, :2], x[:, 2], rms, tw


def _wmedian(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Row-wise median of ``a`` over the entries with w > 0 (M, N) -> (M,)."""
    big = np.where(w > 0, a, np.inf)
    s = np.sort(big, axis=1)
    n = np.maximum((w > 0).sum(axis=1), 1)
    return s[np.arange(a.shape[0]), (n - 1) // 2]
