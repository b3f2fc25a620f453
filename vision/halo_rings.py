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

``line_rings`` (the pixel-only detector, before any ball is found) finds them among the thin-line
pixels ``vision.thin_lines`` took out, about candidate centres, each as a circle fitted to the line
pixels the rays from that centre see nearest the commonest radius: its own centre, not the
candidate's (a candidate may lie a few pixels off its ball).
"""
from __future__ import annotations

import numpy as np

from planner.jit import njit
from vision.fits import fit_circles
from vision.thin_lines import MIN_GAIN

RING_INNER = 1.2          # outline radii: rings are searched from here ...
RING_OUTER = 3.0          # ... to here (rendered halos lie 1.6-2.2 radii out; a margin each side)
RING_STEP = 0.5           # px between the radii tried
RING_ANGLES = 64          # rays per ball
RING_REACH = 3            # px: the samples either side of a line (a ring is about 2 px wide, blurred)
RING_GAIN = MIN_GAIN      # 8-bit levels a line adds in its brightest channel at least
RING_MIN_SHARE = 0.3      # share of the rays that see a line at one radius: a ring (a rack hides some of it)
RING_HALF_WIDTH = 2.0     # px: sample points this near a ring's centre line carry its light
BOUND_SLACK = 1e-6        # px: a group's bounding circle widened by this for its rounding (``_near_rings``)


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
        prof = np.empty((n_rho + 2 * off, 3), np.int32)   # (integer levels: exact, and a third cheaper)
        counts = np.zeros(n_rho)
        for a in range(n_ang):
            ca, sa = cos[a], sin[a]
            for j in range(n_rho + 2 * off):        # the ray's profile
                d = r0 + step * j
                x = min(max(int(np.rint(centres[m, 0] + d * ca)), 0), w - 1)
                y = min(max(int(np.rint(centres[m, 1] + d * sa)), 0), h - 1)
                prof[j, 0], prof[j, 1], prof[j, 2] = img[y, x, 0], img[y, x, 1], img[y, x, 2]
            # no channel darker than a side, one brighter by min_gain: a channel's gain at a time, the first
            # below 0 ending the test (about half the cloth's samples at the first: a frame 0.42 -> 0.31 ms)
            for k in range(n_rho):
                g0 = prof[k + off, 0] - max(prof[k, 0], prof[k + 2 * off, 0])
                if g0 < 0:
                    continue
                g1 = prof[k + off, 1] - max(prof[k, 1], prof[k + 2 * off, 1])
                if g1 < 0:
                    continue
                g2 = prof[k + off, 2] - max(prof[k, 2], prof[k + 2 * off, 2])
                if g2 >= 0 and (g0 >= min_gain or g1 >= min_gain or g2 >= min_gain):
                    counts[k] += 1.0
        k = int(np.argmax(counts))
        lo, hi = max(k - 2, 0), min(k + 3, n_rho)     # the line's centre: the counts' centroid about the peak
        mid = np.sum(np.arange(lo, hi) * counts[lo:hi]) / max(np.sum(counts[lo:hi]), 1.0) if counts[k] > 0 else k
        best_rho[m] = inner * radii[m] + step * mid
        best_share[m] = counts[k] / n_ang
    return best_rho, best_share


def ring_pixels(points: np.ndarray, rings: np.ndarray) -> np.ndarray:
    """(...) bool: which points (..., 2) [px] lie within RING_HALF_WIDTH of a ring (K, 3) (``halo_rings``).
    The points are taken in groups along their second last axis (a ball's sample points, ``vision.identify``):
    a ring is measured against the points of a group only where it passes within RING_HALF_WIDTH of the
    group's bounding circle (a rendered halo frame's 16 balls of 385 points and 4-10 rings: 0.24 ms in
    numpy passes over every point, 0.045 ms here)."""
    pts = np.ascontiguousarray(points, np.float64)
    groups = pts.reshape(-1, max(pts.shape[-2], 1) if pts.ndim > 1 else 1, 2)
    on = _near_rings(groups, np.ascontiguousarray(rings, np.float64).reshape(-1, 3), RING_HALF_WIDTH)
    return on.reshape(points.shape[:-1])


def ring_distances(points: np.ndarray, rings: np.ndarray) -> np.ndarray:
    """(...) the distance [px] of each point (..., 2) [px] from the nearest ring's centre line (rings (K, 3),
    ``halo_rings``; K >= 1): min over the rings of |hypot(point - centre) - radius|."""
    d = np.hypot(points[..., None, 0] - rings[:, 0], points[..., None, 1] - rings[:, 1]) - rings[:, 2]
    return np.abs(d).min(axis=-1)


@njit(cache=True)
def _near_rings(groups, rings, half_width):
    """(B, G) bool: whether each point of groups (B, G, 2) lies within half_width of a ring (K, 3): its
    distance |hypot(point - ring centre) - radius| as numpy's, measured only for a group whose bounding
    circle (its box's middle, the farthest point from that) the ring's band reaches (or a non-finite one)."""
    B, G = groups.shape[0], groups.shape[1]
    on = np.zeros((B, G), np.bool_)
    for b in range(B):
        lo_x, hi_x, lo_y, hi_y = np.inf, -np.inf, np.inf, -np.inf
        for i in range(G):
            lo_x, hi_x = min(lo_x, groups[b, i, 0]), max(hi_x, groups[b, i, 0])
            lo_y, hi_y = min(lo_y, groups[b, i, 1]), max(hi_y, groups[b, i, 1])
        cx, cy = 0.5 * (lo_x + hi_x), 0.5 * (lo_y + hi_y)
        reach = 0.0
        for i in range(G):
            reach = max(reach, np.hypot(groups[b, i, 0] - cx, groups[b, i, 1] - cy))
        bounded = np.isfinite(cx) and np.isfinite(cy) and np.isfinite(reach)
        for k in range(rings.shape[0]):
            u, v, rho = rings[k, 0], rings[k, 1], rings[k, 2]
            d = np.hypot(cx - u, cy - v)
            if bounded and (d - reach > rho + half_width + BOUND_SLACK or d + reach < rho - half_width - BOUND_SLACK):
                continue
            for i in range(G):
                on[b, i] |= abs(np.hypot(groups[b, i, 0] - u, groups[b, i, 1] - v) - rho) <= half_width
    return on


MODEL_ANGLES = 64         # rays per candidate centre of ``line_rings`` ...
MODEL_STEP = 1.0          # ... px between the radii tried along them (half resolution: 2 px of the frame) ...
MODEL_WINDOW = 3.0        # ... a ray sees the ring when a line pixel lies within this many px of its radius
MODEL_RMS = 1.0           # px: a ring's line pixels lie this near its fitted circle (RMS; arcs of rings about
                          # other centres give 2-3)


def line_rings(lined: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """(K, 3) halo rings (centre u, v, radius [px]) found among the thin-line pixels ``lined`` (h, w)
    bool (``vision.thin_lines``), one looked for about each centre (M, 2) [px, lined's pixels] of
    balls of outline radius ``radius`` [px]: along MODEL_ANGLES rays, the radius from RING_INNER to
    RING_OUTER ball radii (every MODEL_STEP) that the most rays see a line pixel within MODEL_WINDOW
    of; where at least RING_MIN_SHARE of the rays do, the circle fitted (``fit_circles``, robust) to
    each such ray's line pixel nearest that radius is a ring when at least RING_MIN_SHARE of the rays
    support it, with an RMS below MODEL_RMS and a radius in that range (a ring is a circle of its
    own, about its ball: a stripe's cap or a digit is none)."""
    c = np.ascontiguousarray(centres, np.float64).reshape(-1, 2)
    rho, hit, pts = _ray_lines(np.ascontiguousarray(lined, np.bool_), c, float(radius), RING_INNER, RING_OUTER,
                               MODEL_ANGLES, int(round(MODEL_WINDOW / MODEL_STEP)), MODEL_STEP)
    seen = hit.sum(axis=1) >= RING_MIN_SHARE * MODEL_ANGLES
    uv, rr, rms, tw = fit_circles(pts[seen], hit[seen], c[seen], rho[seen])
    keep = (((tw > 0.5).sum(axis=1) >= RING_MIN_SHARE * MODEL_ANGLES) & (rms < MODEL_RMS)
            & (rr >= RING_INNER * radius) & (rr <= RING_OUTER * radius))
    return np.concatenate([uv[keep], rr[keep, None]], axis=1)


@njit(cache=True)
def _ray_lines(lined, centres, radius, inner, outer, n_ang, win, step):
    """Per centre (M, 2): the radius [px] that the most of n_ang rays see a line pixel within win
    samples (of step px) of, and per ray whether it sees one there (M, n_ang) and the nearest (M, n_ang, 2)."""
    h, w = lined.shape
    M = centres.shape[0]
    n_rho = int((outer - inner) * radius / step) + 1
    rho = np.zeros(M)
    hit = np.zeros((M, n_ang), np.bool_)
    pts = np.zeros((M, n_ang, 2))
    seen = np.empty((n_ang, n_rho), np.bool_)
    near = np.empty(n_rho, np.int64)
    cos = np.cos(2.0 * np.pi * np.arange(n_ang) / n_ang)
    sin = np.sin(2.0 * np.pi * np.arange(n_ang) / n_ang)
    for m in range(M):
        for a in range(n_ang):
            for j in range(n_rho):
                d = inner * radius + step * j
                x, y = int(np.rint(centres[m, 0] + d * cos[a])), int(np.rint(centres[m, 1] + d * sin[a]))
                seen[a, j] = 0 <= x < w and 0 <= y < h and lined[y, x]
        counts = np.zeros(n_rho)
        for a in range(n_ang):
            last = -(2 * win + 2)                     # the nearest line sample at or before j, then after
            for j in range(n_rho):
                if seen[a, j]:
                    last = j
                near[j] = j - last
            last = n_rho + 2 * win + 2
            for j in range(n_rho - 1, -1, -1):
                if seen[a, j]:
                    last = j
                if min(near[j], last - j) <= win:
                    counts[j] += 1.0
        k = int(np.argmax(counts))
        rho[m] = inner * radius + step * k
        for a in range(n_ang):
            for dj in range(win + 1):
                j = k - dj if k - dj >= 0 and seen[a, k - dj] else k + dj
                if j < n_rho and seen[a, j]:
                    d = inner * radius + step * j
                    hit[m, a] = True
                    pts[m, a, 0], pts[m, a, 1] = centres[m, 0] + d * cos[a], centres[m, 1] + d * sin[a]
                    break
    return rho, hit, pts
