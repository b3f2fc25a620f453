"""A lamp's highlight on a ball: the brightest pixels inside a circle (both detectors).

A glossy ball mirrors the lamps above it, a white highlight brighter than the matte cloth they light and
than the ball's own body; a pocket's back wall, a ball's shadow and the cloth in a rack's empty spot are
matte (docs/vision.md: pixel-only stage 6, registered step 6).
"""
from __future__ import annotations

import numpy as np

from planner.jit import njit

GLINT_TOP = 0.01       # a highlight is the brightest this share of a circle's inside ...
GLINT_DISC = 0.75      # ... within this many radii of its centre
RING_SEEN = 0.55       # a highlight is read off halo rings' bands where this share of its disc lies off them (seeds 5
                       # and 41, hard and halo: circles on ring-crossed pocket holes 0.58-0.86; balls 0.50, whose
                       # highlight off them is 0.88, and 0.67, 1.22)


def glints(image: np.ndarray, c: np.ndarray, r: np.ndarray, oc: np.ndarray, orr: np.ndarray,
           rings: np.ndarray = np.zeros((0, 3)), band: float = 0.0, top: float = GLINT_TOP) -> np.ndarray:
    """(M, 2) for circles (centres c (M, 2), radii r (M,) [px] in the BGR uint8 ``image``): the brightest ``top``
    share (GLINT_TOP: the highlight; 0.5: the median) of the inside (the pixels, at integer coordinates, nearer
    than GLINT_DISC radii to the centre, in the image and outside every other circle oc (K, 2), orr (K,) [px]: a
    shadow's circle reaches into its ball), of each pixel's strongest channel and of its channels' mean, 8-bit
    (inf for a circle with no pixel inside). Where at least RING_SEEN of those pixels lie farther than ``band``
    [px] from every halo ring's circle (``rings`` (L, 3): centre u, v, radius [px]), only those are read: a
    ring drawn across a pocket's black hole is light added there, no highlight."""
    return _glints(image, np.ascontiguousarray(c, np.float64).reshape(-1, 2), np.asarray(r, np.float64),
                   np.ascontiguousarray(oc, np.float64).reshape(-1, 2), np.asarray(orr, np.float64),
                   GLINT_DISC, float(top), np.ascontiguousarray(rings, np.float64).reshape(-1, 3), float(band),
                   RING_SEEN)


@njit(cache=True)
def _glints(image, c, r, oc, orr, disc, top, rings, band, seen):
    """``glints`` (numba): per circle, the largest values of its pixels' strongest channel and channels'
    mean kept in descending order (as many as the brightest ``top`` share of its square can hold), of all
    its pixels (rows 0, 1) and of those off the rings' bands (rows 2, 3; only with rings)."""
    h, w = image.shape[0], image.shape[1]
    out = np.full((c.shape[0], 2), np.inf)
    others = np.empty(oc.shape[0], np.int64)
    ringed = rings.shape[0] > 0
    for i in range(c.shape[0]):
        reach = disc * r[i]
        m = 0
        for j in range(oc.shape[0]):
            d = np.sqrt((c[i, 0] - oc[j, 0]) ** 2 + (c[i, 1] - oc[j, 1]) ** 2)
            if 0.0 < d < orr[j] + reach:
                others[m] = j
                m += 1
        u0, u1 = max(0, int(np.floor(c[i, 0] - reach))), min(w - 1, int(np.ceil(c[i, 0] + reach)))
        v0, v1 = max(0, int(np.floor(c[i, 1] - reach))), min(h - 1, int(np.ceil(c[i, 1] + reach)))
        best = np.full((4 if ringed else 2, int(top * max(0, (u1 - u0 + 1) * (v1 - v0 + 1))) + 1), -1.0)
        n = n_off = 0
        for v in range(v0, v1 + 1):
            for u in range(u0, u1 + 1):
                if (u - c[i, 0]) ** 2 + (v - c[i, 1]) ** 2 >= reach * reach:
                    continue
                off = True
                for q in range(m):
                    j = others[q]
                    off &= (u - oc[j, 0]) ** 2 + (v - oc[j, 1]) ** 2 >= orr[j] * orr[j]
                if not off:
                    continue
                n += 1
                rows = 2
                if ringed:
                    on = False
                    for q in range(rings.shape[0]):
                        on |= abs(np.sqrt((u - rings[q, 0]) ** 2 + (v - rings[q, 1]) ** 2) - rings[q, 2]) <= band
                    if not on:
                        n_off += 1
                        rows = 4
                b, g, rr = float(image[v, u, 0]), float(image[v, u, 1]), float(image[v, u, 2])
                strongest, mean = max(b, g, rr), (b + g + rr) / 3.0
                for t in range(rows):
                    value = strongest if t % 2 == 0 else mean
                    k = best.shape[1] - 1
                    if value <= best[t, k]:
                        continue
                    while k > 0 and best[t, k - 1] < value:      # (insertion into the descending row)
                        best[t, k] = best[t, k - 1]
                        k -= 1
                    best[t, k] = value
        if ringed and n_off and n_off >= seen * n:
            out[i, 0] = best[2, int(top * n_off)]
            out[i, 1] = best[3, int(top * n_off)]
        elif n:
            out[i, 0] = best[0, int(top * n)]
            out[i, 1] = best[1, int(top * n)]
    return out
