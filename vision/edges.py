"""Ball outline points along search lines: the per-line kernels of ``vision.detect`` (numba).

Along the outward normal of each predicted outline point the image is sampled every ``step``
pixels (bilinear, in linear light) and the outline is located in two steps:

1. where the profile leaves the cloth: walking in from the outer end (which must be cloth), the
   first sample of three in a row whose ``ballness`` is >= 1 (linear interpolation of the crossing).
   Stripe and number edges further in are never reached; shadows keep the cloth's colour and are
   cloth. For a ball of one colour the crossing is at the same coverage all round (its colour's
   angle from the cloth's does not depend on shading): the sphere fit's free radius absorbs it.
2. optionally, to sub-pixel: in linear light a pixel the outline cuts is the area-weighted mix of
   ball and background, so with b and k the colours 1 px inside and outside,
   alpha = (F - k).(b - k) / |b - k|^2 is 1/2 on the outline for any symmetric blur whatever the
   contrast; the point moves there (b and k re-read about the new point ``iters`` times), at
   most ``reach`` px, and is dropped where |b - k| < min_step.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit


@njit(cache=True)
def _ballness(b, g, r, c, norm, tan_chroma, dark_share, hole):
    """How far one linear BGR colour is from the cloth (unit direction c, lit norm): >= 1 is ball.
    The larger of the angle from the cloth's direction (tan, over tan_chroma) and the darkness
    (dark_share * norm over the brightness along c), darkness not counting over a pocket hole."""
    a = b * c[0] + g * c[1] + r * c[2]
    perp = math.sqrt(max(b * b + g * g + r * r - a * a, 0.0))
    a_floor = max(a, 0.05 * norm)
    dark = 0.0 if hole else dark_share * norm / a_floor
    return max(perp / (tan_chroma * a_floor), dark)


@njit(cache=True)
def ballness(lin, cloth_lin, tan_chroma, dark_share):
    """``_ballness`` of linear BGR colours (K, 3) -> (K,), no pocket holes."""
    norm = math.sqrt(cloth_lin[0] ** 2 + cloth_lin[1] ** 2 + cloth_lin[2] ** 2)
    c = cloth_lin / norm
    out = np.empty(lin.shape[0])
    for i in range(lin.shape[0]):
        out[i] = _ballness(lin[i, 0], lin[i, 1], lin[i, 2], c, norm, tan_chroma, dark_share, False)
    return out


@njit(cache=True)
def _sample(image, lut, x, y, out):
    """Bilinear linear-light BGR sample of a uint8 image at (x, y) into out (3,)."""
    h, w = image.shape[0], image.shape[1]
    x = min(max(x, 0.0), w - 1.001)
    y = min(max(y, 0.0), h - 1.001)
    x0, y0 = int(x), int(y)
    fx, fy = x - x0, y - y0
    for ch in range(3):
        a = lut[image[y0, x0, ch]]
        b = lut[image[y0, x0 + 1, ch]]
        c = lut[image[y0 + 1, x0, ch]]
        d = lut[image[y0 + 1, x0 + 1, ch]]
        out[ch] = (a + (b - a) * fx) * (1 - fy) + (c + (d - c) * fx) * fy


@njit(cache=True)
def _interp(prof, t0, step, x, out):
    """Linear interpolation of a sampled profile (T, 3) starting at offset t0 at offset x."""
    f = min(max((x - t0) / step, 0.0), prof.shape[0] - 1.001)
    i0 = int(f)
    w = f - i0
    for ch in range(3):
        out[ch] = prof[i0, ch] * (1 - w) + prof[i0 + 1, ch] * w


@njit(cache=True)
def outline_points(image, lut, outline, nrm, half_width, step, cloth_lin, tan_chroma, dark_share,
                   hole, hole_u0, hole_v0, hole_rows, refine, min_step, reach, iters):
    """Outline points (M, N, 2) and validity (M, N) along normals nrm (M, N, 2) of the predicted
    outline (M, N, 2) [px], searched half_width px either side (see the module notes).

    hole: (h, w) bool half-resolution mask of pocket holes with its top-left full-resolution pixel
    (hole_u0, hole_v0); hole_rows: (M,) which balls to look it up for. refine: do step 2.
    """
    M, N = outline.shape[0], outline.shape[1]
    norm = math.sqrt(cloth_lin[0] ** 2 + cloth_lin[1] ** 2 + cloth_lin[2] ** 2)
    c = cloth_lin / norm
    S = int(round((2 * half_width + 2) / step)) + 1
    s0 = -half_width - 1.0
    T = int(round((2 * reach + 4) / step)) + 1
    t0 = -reach - 2.0
    pts = outline.copy()
    valid = np.zeros((M, N), dtype=np.bool_)
    prof = np.empty((T, 3))
    col = np.empty(3)
    bcol = np.empty(3)
    kcol = np.empty(3)
    z = np.empty(S)
    hh, hw = hole.shape[0], hole.shape[1]
    for m in range(M):
        for n in range(N):
            ox, oy = outline[m, n, 0], outline[m, n, 1]
            nx, ny = nrm[m, n, 0], nrm[m, n, 1]
            for k in range(S):
                s = s0 + k * step
                x, y = ox + s * nx, oy + s * ny
                _sample(image, lut, x, y, col)
                in_hole = False
                if hole_rows[m]:
                    j = min(max(int((x - hole_u0) // 2), 0), hw - 1)
                    i = min(max(int((y - hole_v0) // 2), 0), hh - 1)
                    in_hole = hole[i, j]
                z[k] = _ballness(col[0], col[1], col[2], c, norm, tan_chroma, dark_share, in_hole)
            if z[S - 1] >= 1.0 or z[S - 2] >= 1.0:       # the outer end must be cloth
                continue
            jb = -1
            for j in range(S - 2, 1, -1):                 # outermost ball sample of three in a row
                if abs(s0 + j * step) <= half_width + 1e-9 and z[j] >= 1.0 and z[j - 1] >= 1.0 \
                        and z[j - 2] >= 1.0:
                    jb = j
                    break
            if jb < 0:
                continue
            off = s0 + jb * step + min(max((z[jb] - 1.0) / max(z[jb] - z[jb + 1], 1e-9), 0.0), 1.0) * step
            if abs(off) > half_width:
                continue
            px, py = ox + off * nx, oy + off * ny
            if refine:
                for k in range(T):
                    _sample(image, lut, px + (t0 + k * step) * nx, py + (t0 + k * step) * ny, prof[k])
                e = 0.0
                ok = True
                for _ in range(iters):
                    _interp(prof, t0, step, e - 1.0, bcol)
                    _interp(prof, t0, step, e + 1.0, kcol)
                    n2 = 0.0
                    for ch in range(3):
                        n2 += (bcol[ch] - kcol[ch]) ** 2
                    if n2 < min_step * min_step:
                        ok = False
                        break
                    best, e_new = 1e9, 0.0
                    a_prev = 0.0
                    for k in range(T):
                        t = t0 + k * step
                        a = 0.0
                        for ch in range(3):
                            a += (prof[k, ch] - kcol[ch]) * (bcol[ch] - kcol[ch])
                        a /= n2
                        if k > 0 and abs(t - step - e) <= 1.0 + 1e-9 and abs(t - e) <= 1.0 + 1e-9 \
                                and a_prev >= 0.5 > a:
                            mid = abs(t - 0.5 * step - e)
                            if mid < best:
                                best = mid
                                e_new = t - step + min(max((a_prev - 0.5) / max(a_prev - a, 1e-9), 0.0), 1.0) * step
                        a_prev = a
                    if best == 1e9:
                        ok = False
                        break
                    e = min(max(e_new, -reach), reach)
                if not ok:
                    continue
                px, py = px + e * nx, py + e * ny
            pts[m, n, 0], pts[m, n, 1] = px, py
            valid[m, n] = True
    return pts, valid
