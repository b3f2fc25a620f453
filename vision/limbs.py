"""Outline points of a ball that only its shading shows: its darker limb (numba).

A ball of the cloth's own colour (``vision.shape_candidates``) does not leave the cloth's colours
at its outline. What shows it is its shading: under lights from above, the sphere's surface at
its silhouette faces sideways and gets less light than the cloth, which faces up, and the cloth
just outside is in the ball's shadow, brightening away from it. Along a line across the outline
the level (linear light projected on the cloth's colour, over the cloth's lit level) is lowest at
the outline (rendered green on green: about half the cloth's level there, the body 0.7-0.8, the
shadowed cloth rising from the outline to the cloth's level over 1-3 px). Along the outward normal
of each predicted outline point the level is sampled every ``step`` px and the outline is its
lowest point within half_width px of the prediction (to sub-pixel by a parabola through it and
its neighbours; an offset the same all round goes into the sphere fit's free radius). A point
counts only where the level is a true minimum there, and rises outward to the cloth's level
(``cloth_min``) by at least ``depth``, with nothing brighter than ``cloth_max`` times the cloth on
the way (another ball), and stays darker than that cloth for ``inner_px`` px inward (the limb is a dark
ring; a number's disc or a reflection at the outline is bright: where one is, the lowest level lies
out in the shadow). The steepest rise is no outline: with a shadow it lies 2-3 px out.
"""
from __future__ import annotations

import numpy as np

from planner.jit import njit
from vision.edges import _sample_at
from vision.fits import _fit_circles


@njit(cache=True)
def limb_points(image, lut, outline, nrm, half_width, step, cloth_lin, depth, cloth_min, cloth_max, inner_px):
    """Outline points (M, N, 2) and validity (M, N) along normals nrm (M, N, 2) of the predicted
    outlines (M, N, 2) [px] in a BGR uint8 image (lut: 8-bit -> linear), searched half_width px
    either side; cloth_lin (M, 3): each ball's lit cloth colour, linear BGR (module notes)."""
    M, N = outline.shape[0], outline.shape[1]
    S = int(round((2 * half_width + 2) / step)) + 1
    s0 = -half_width - 1.0
    pts = outline.copy()
    valid = np.zeros((M, N), dtype=np.bool_)
    col = np.empty(3)
    z = np.empty(S)
    h, w = image.shape[0], image.shape[1]
    xs, ys, fxs, fys = np.empty(S, np.int64), np.empty(S, np.int64), np.empty(S), np.empty(S)
    for m in range(M):
        norm = np.sqrt(cloth_lin[m, 0] ** 2 + cloth_lin[m, 1] ** 2 + cloth_lin[m, 2] ** 2)
        c = cloth_lin[m] / norm
        for n in range(N):
            ox, oy = outline[m, n, 0], outline[m, n, 1]
            nx, ny = nrm[m, n, 0], nrm[m, n, 1]
            for k in range(S):                 # the samples' places first: a loop the compiler vectorises
                s = s0 + k * step
                x = min(max(ox + s * nx, 0.0), w - 1.001)
                y = min(max(oy + s * ny, 0.0), h - 1.001)
                xs[k], ys[k] = int(x), int(y)
                fxs[k], fys[k] = x - xs[k], y - ys[k]
            for k in range(S):
                _sample_at(image, lut, xs[k], ys[k], fxs[k], fys[k], col)
                z[k] = (col[0] * c[0] + col[1] * c[1] + col[2] * c[2]) / norm
            top, low, kb = 0.0, 1e9, -1
            for k in range(S - 1, -1, -1):            # inward from the outer end, which must be cloth
                if z[k] > cloth_max:
                    break
                top = max(top, z[k])
                if abs(s0 + k * step) <= half_width + 1e-9 and z[k] < low:
                    low, kb = z[k], k
            if kb < 1 or kb >= S - 1 or top < cloth_min or top - low < depth:
                continue
            if not (z[kb - 1] > low and z[kb + 1] >= low):     # a minimum, not a slope going on inward
                continue
            inner = max(kb - int(round(inner_px / step)), 0)
            if z[inner:kb].max() >= top:      # the limb: darker than the cloth inward (not a number, a reflection)
                continue
            den = z[kb - 1] - 2.0 * low + z[kb + 1]
            frac = 0.5 * (z[kb - 1] - z[kb + 1]) / den if den > 1e-12 else 0.0
            off = s0 + (kb + min(max(frac, -0.5), 0.5)) * step
            pts[m, n, 0], pts[m, n, 1] = ox + off * nx, oy + off * ny
            valid[m, n] = True
    return pts, valid


@njit(cache=True)
def limb_circles(image, lut, c, r, dirs, widths, step, cloth_lin, depth, cloth_min, cloth_max, inner_px,
                 others, others_r, r_lo, r_hi, iters):
    """Circles fitted to the darker limb about centres c (M, 2) with radii r (M,) [px], one pass per
    half width in widths [px]: ``limb_points`` along the outward ray directions dirs (N, 2) of each
    circle, the points whose search line ends (half width + 1 px out) inside any circle others (K, 2),
    others_r (K,) [px] dropped, a robust circle fit (``vision.fits._fit_circles``, iters steps) and its
    radius clipped to [r_lo, r_hi]. Returns (centres (M, 2), radii (M,), RMS (M,) [px], points used (M,))."""
    M, N, K = c.shape[0], dirs.shape[0], others.shape[0]
    normals = np.empty((M, N, 2))
    for m in range(M):
        normals[m] = dirs
    outline = np.empty((M, N, 2))
    rms = np.zeros(M)
    tw = np.zeros((M, N))
    for half_width in widths:
        for m in range(M):
            for n in range(N):
                outline[m, n, 0] = c[m, 0] + r[m] * dirs[n, 0]
                outline[m, n, 1] = c[m, 1] + r[m] * dirs[n, 1]
        pts, valid = limb_points(image, lut, outline, normals, half_width, step, cloth_lin, depth, cloth_min,
                                 cloth_max, inner_px)
        for m in range(M):
            for n in range(N):
                ex = outline[m, n, 0] + (half_width + 1.0) * dirs[n, 0]
                ey = outline[m, n, 1] + (half_width + 1.0) * dirs[n, 1]
                for j in range(K):
                    dx, dy = ex - others[j, 0], ey - others[j, 1]
                    if dx * dx + dy * dy < others_r[j] * others_r[j]:
                        valid[m, n] = False
                        break
        x, rms, tw = _fit_circles(pts, valid, c, r, iters)
        c = x[:, :2].copy()
        r = np.minimum(np.maximum(x[:, 2], r_lo), r_hi)
    return c, r, rms, (tw > 0.5).sum(axis=1)
