"""Halo rings about the balls: circles of added light a projector draws round each ball (for identify).

A projector that marks the balls draws a thin ring of light round each, one to three ball radii
out; a ring round one ball of a rack runs across its neighbours. Detection takes such lines off the
cloth (``vision.thin_lines``), but across a ball both sides of the line show shaded ball surface
and a remnant stays: an arc of the ball's colour with light added, unsaturated enough to read as
white, as a stripe's caps do (the rendered halo condition: the solid and stripe of one colour swap).

``halo_rings`` finds them where they are drawn, as circles about the found balls' centres: on the
frame as shot, along RING_ANGLES rays from each centre, a pixel at distance rho lies on a line of
added light when it is brighter than both pixels RING_REACH px nearer and further out by at least
RING_GAIN levels in its brightest channel and by at least 0 in each channel (added light darkens
no channel; as ``vision.thin_lines``'s test, across the line). A ring is the rho, from RING_INNER
to RING_OUTER outline radii, at which the most rays (at least RING_MIN_SHARE of them) see such a
line; a ball's outline is a step, not a line, and a highlight or a straight glint crosses few rays.
``ring_pixels`` then tells which sample points lie within RING_HALF_WIDTH px of a found circle.
"""
from __future__ import annotations

import numpy as np

from planner.jit import njit
from vision.thin_lines import MIN_GAIN

RING_INNER = 1.2          # outline radii: rings are searched from here ...
RING_OUTER = 3.0          # ... to here (rendered halos lie 1.6-2.2 radii out; a margin each side)
RING_STEP = 0.5           # px between the radii tried
RING_ANGLES = 64          # rays per ball
RING_REACH = 3            # px: the samples either side of a line (a ring is about 2 px wide, blurred)
RING_GAIN = MIN_GAIN      # 8-bit levels a line adds in its brightest channel at least
RING_MIN_SHARE = 0.3      # share of the rays that see a line at one radius: a ring (a rack hides some of it)
RING_HALF_WIDTH = 2.0     # px: sample points this near a ring's centre line carry its light


def halo_rings(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray) -> np.ndarray:
    """(K, 3) the rings found (centre u, v [px], radius [px]) about balls at centres (M, 2) with
    outline radii (M,) [px] in a BGR uint8 frame as shot (with its rings); at most one per ball."""
    c = np.ascontiguousarray(centres_px, np.float64).reshape(-1, 2)
    r = np.ascontiguousarray(radii_px, np.float64).reshape(-1)
    rho, share = _best_rings(np.ascontiguousarray(image), c, r, RING_INNER, RING_OUTER, RING_STEP, RING_ANGLES,
                             RING_REACH, RING_GAIN)
    keep = share >= RING_MIN_SHARE
    return np.concatenate([c[keep], rho[keep, None]], axis=1)


@njit(cache=True)
def _best_rings(img, centres, radii, inner, outer, step, n_ang, reach, min_gain):
    """(M,) per ball the radius [px] at which the most of n_ang rays see a line of added light, and
    (M,) that share of the rays (module notes)."""
    h, w = img.shape[0], img.shape[1]
    M = centres.shape[0]
    best_rho = np.zeros(M)
    best_share = np.zeros(M)
    off = int(round(reach / step))                    # profile steps between a pixel and its samples
    cos, sin = np.empty(n_ang), np.empty(n_ang)
    for a in range(n_ang):
        cos[a], sin[a] = np.cos(2.0 * np.pi * a / n_ang), np.sin(2.0 * np.pi * a / n_ang)
    for m in range(M):
        n_rho = int((outer - inner) * radii[m] / step)
        if n_rho < 1:
            continue
        r0 = inner * radii[m] - off * step
        prof = np.empty((n_rho + 2 * off, 3))
        counts = np.zeros(n_rho)
        for a in range(n_ang):
            ca, sa = cos[a], sin[a]
            for j in range(n_rho + 2 * off):        # the ray's profile
                d = r0 + step * j
                x = min(max(int(np.rint(centres[m, 0] + d * ca)), 0), w - 1)
                y = min(max(int(np.rint(centres[m, 1] + d * sa)), 0), h - 1)
                for c in range(3):
                    prof[j, c] = img[y, x, c]
            for k in range(n_rho):
                gmax = -1e9
                for c in range(3):
                    g = prof[k + off, c] - max(prof[k, c], prof[k + 2 * off, c])
                    if g < 0.0:            # darker than a side in a channel: no line here
                        gmax = -1e9
                        break
                    gmax = max(gmax, g)
                if gmax >= min_gain:
                    counts[k] += 1.0
        k = int(np.argmax(counts))
        lo, hi = max(k - 2, 0), min(k + 3, n_rho)     # the line's centre: the counts' centroid about the peak
        mid = np.sum(np.arange(lo, hi) * counts[lo:hi]) / max(np.sum(counts[lo:hi]), 1.0) if counts[k] > 0 else k
        best_rho[m] = inner * radii[m] + step * mid
        best_share[m] = counts[k] / n_ang
    return best_rho, best_share


def ring_pixels(points: np.ndarray, rings: np.ndarray) -> np.ndarray:
    """(...) bool: which points (..., 2) [px] lie within RING_HALF_WIDTH of a ring (K, 3) (``halo_rings``)."""
    on = np.zeros(points.shape[:-1], dtype=bool)
    for u, v, rho in rings:
        on |= np.abs(np.hypot(points[..., 0] - u, points[..., 1] - v) - rho) <= RING_HALF_WIDTH
    return on
