"""What reaches in over the rail is not a ball: a hand and its forearm.

A ball lies on the cloth; a person's hand and forearm come in from beyond the table, so their
foreground crosses the cushions to the rail, or a pocket on its way there. ``intruders`` keeps the
foreground connected to a band just inside the table's outline or just past a pocket's rim
(``reach_in_band``; an arm over a pocket crosses the outline only at the pocket, where the band
stops short of its rim), after an opening that removes specks and hairline links, in regions no
wider than an arm (a sheen or a projector's light across the cushions is wider) that hold an arm
(``arm_cores``): a core thicker than a ball that runs further than a cluster of balls does; then
it takes back what the opening cut off that region (a finger joined to the hand by a hairline of
foreground). Balls on a cushion, by
a pocket or in a jaw, with a cushion's shaded face or a pocket's rim joining them to the band, are
no arm (where the play area is found in the pixels alone, its edge runs that close to them).
``clear_of_intruders`` then drops a fit when most of the foreground inside its disc belongs to an
intruder (``intruder_share``) and its outline is not a ball's: a fit across two fingers or along a
forearm finds its edge on fewer rays and is rough; a ball the hand touches (it joins the intruder)
or a ball a projector's soft light edge crosses keeps most of its outline, round. Both modes run
it: registered (``vision.detect``) and pixel-only (``vision.detect_pixels``).
"""
from __future__ import annotations

import cv2
import numpy as np

from planner.jit import njit

NECK = 3
"""Side [px] of the square the foreground is opened with: specks and hairline links go, a finger
(about 4 half-resolution px) stays whole."""
WIDE = 2.5
"""An intruder is no wider than this many ball radii either side of its middle (a forearm at the
elbow, about 1.6; a sheen or a projector's light across the cushions is much wider)."""
ARM = 0.9
"""... and it holds an arm: a core of pixels farther than this many ball radii from its edge (a
forearm, 65 mm wide, about 1.15 radii either side of its middle; a ball leaves a speck, a
cushion's shaded face nothing), ..."""
REACH = 5.0
"""... in one piece at least this many ball radii long (a forearm out to the palm, which lies
at least 0.1 m in from the cushion noses: 6.2-43 on 80 rendered 'hand' frames, seeds 0, 5, 41,
77; on 94 real frames, balls on a cushion's shaded face or by a pocket's rim joined to the band:
at most 3.8, and 4.35 for three balls in a corner jaw inside a projected ring round the pocket,
whose light fills the gaps between them)."""
DISC = 0.9
"""A fit is no ball where, inside this share of its outline radius, ..."""
SHARE = 0.5
"""... at least this share of the foreground came in over the rail, ..."""
OUTLINE_SHARE = 0.75
"""... unless at least this share of its outline rays found its edge ..."""
ROUND_RMS = 0.3
"""... or its outline fit is this round [px] (rendered: balls on a projector's light 0.05-0.28 px,
fits across fingers 0.38-0.71 px with 9-20 of 48 rays in registered mode; in pixel-only mode, 40
frames, the 90 fits on hands 0.53-1.13 px with 14-33 of 48 points, no ball's fit in an intruder)
..."""
ROUND_ARC = 0.25
"""... over at least this share of its rays (a short arc of any smooth edge is round: a fit on the
back of a hand, 0.29 px over 9 of 48 rays; the round balls on a projector's light, 18-47 rays; a
fit placed by its touching neighbours, no ray of its own, is judged by them and stays)."""
BAND = 3
"""Width [px] of the band just inside the table's outline, and just past a pocket's rim, that an
intruder crosses (an arm over a pocket: on 80 rendered hand frames, seeds 30, 41, 67 and 88, two
came in over a pocket, the fits on their fingers 4 false balls before), ..."""
JAW = 0.5
"""... except within this many ball radii of a pocket's hole (its rim; the pixel-only caller
leaves the hole and its rim out of the foreground too: a pocket is no arm)."""


def reach_in_band(inside: np.ndarray, hole: np.ndarray, r: float) -> np.ndarray:
    """(h, w) bool: the BAND pixels just inside the outline of ``inside`` (h, w) bool, the table
    out to its cushion backs, and those of ``inside`` within BAND past a pocket's rim, all farther
    than JAW x ``r`` (a ball's radius [px]) from ``hole`` (h, w) bool, the pockets."""
    k = 2 * BAND + 1
    band = inside & ~(cv2.erode(inside.astype(np.uint8), np.ones((k, k), np.uint8)) > 0)
    j = 2 * int(round(JAW * r)) + 1
    rim = cv2.dilate(hole.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (j, j)))
    return (band | (inside & (cv2.dilate(rim, np.ones((k, k), np.uint8)) > 0))) & ~(rim > 0)


def intruders(fg: np.ndarray, reach_in, r: float) -> np.ndarray:
    """(h, w) bool: the pixels of foreground ``fg`` (h, w) bool that, after an opening by a NECK x
    NECK square, are 4-connected to a pixel of ``reach_in`` (h, w) bool (or a function of no
    arguments that returns it, called only where an arm is found: ``reach_in_band`` costs more than
    the rest on a frame without one), in regions no wider than
    an arm (no pixel farther than WIDE x ``r``, a ball's radius [px], from the region's edge) that
    hold an arm (``arm_cores``), and the pixels of ``fg`` 8-connected to those (what the opening cut
    off: fingers; on 80 rendered hand frames 5 fits on fingers lay mostly on them). Worked in the
    foreground's bounding box, with a pixel of background round it; the arms first (most frames
    have none)."""
    out = np.zeros(fg.shape, bool)
    opened = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((NECK, NECK), np.uint8))
    x, y, w, h = cv2.boundingRect(opened)
    box = slice(max(y - 1, 0), y + h + 1), slice(max(x - 1, 0), x + w + 1)
    opened = opened[box]
    depth = cv2.distanceTransform(opened, cv2.DIST_L2, 3)
    cores = arm_cores(depth, r)
    if not len(cores):
        return out
    n, labels = cv2.connectedComponentsWithAlgorithm(opened, 4, cv2.CV_32S, cv2.CCL_SAUF)   # (the fastest here)
    band = reach_in() if callable(reach_in) else reach_in
    hit = np.intersect1d(labels[band[box] & (opened > 0)], labels[cores[:, 0], cores[:, 1]])
    hit = np.setdiff1d(hit, labels[depth > WIDE * r])
    if hit.size:
        whole = cv2.connectedComponentsWithAlgorithm(fg[box].view(np.uint8), 8, cv2.CV_32S, cv2.CCL_SAUF)[1]
        out[box] = np.isin(whole, whole[np.isin(labels, hit)])
    return out


def arm_cores(depth: np.ndarray, r: float) -> np.ndarray:
    """(K, 2) a (row, column) pixel of each arm in a region: a piece of the core (``depth`` (h, w),
    each pixel's distance from the regions' edges [px], above ARM x ``r``; 8-connected) that runs at
    least REACH x r along its longest side (``cv2.minAreaRect``). The core is a few hundred pixels
    in specks (a lone ball's middle) over the whole table: its pieces are found among those pixels
    (``_pieces``; cv2's labels of the whole frame cost 0.11 ms of a 0.23 ms call)."""
    at = np.flatnonzero(depth > ARM * r)
    if not at.size:
        return np.zeros((0, 2), np.intp)
    piece, first, extent = _pieces(at, depth.shape[1])
    v, u = np.divmod(at, depth.shape[1])
    box = np.hypot(extent[:, 0], extent[:, 1])
    out = []
    for k in np.flatnonzero(box >= REACH * r):                 # (a box too short holds no arm)
        on = piece == k
        if max(cv2.minAreaRect(np.column_stack([u[on], v[on]]).astype(np.float32))[1]) >= REACH * r:
            out.append((v[first[k]], u[first[k]]))
    return np.array(out, np.intp).reshape(-1, 2)


@njit(cache=True)
def _pieces(at, w):
    """The 8-connected pieces of the pixels at (K,) (flat indices, ascending, of an image w px wide):
    (piece (K,) each pixel's piece, numbered in the order of the pieces' first pixels; first (P,) each
    piece's first pixel (index into at); extent (P, 2) its bounding box's rows and columns, ends
    included). Each pixel is joined to its neighbours before it (left, and the three above), found by a
    pointer that runs along the row above; a piece's root is its first pixel."""
    K = at.size
    root = np.arange(K)
    p = 0                                      # into at: the first pixel not before (y - 1, x - 1)
    for i in range(K):
        y, x = at[i] // w, at[i] % w
        if x > 0 and i > 0 and at[i - 1] == at[i] - 1:
            _join(root, i - 1, i)
        if y == 0:
            continue
        start = at[i] - w - 1 if x > 0 else at[i] - w
        while p < i and at[p] < start:
            p += 1
        q = p
        while q < i and at[q] <= at[i] - w + 1 and (x < w - 1 or at[q] <= at[i] - w):
            _join(root, q, i)
            q += 1
    piece = np.empty(K, np.int64)
    first = np.empty(K, np.int64)
    n = 0
    for i in range(K):
        j = _find(root, i)
        if j == i:
            first[n] = i
            piece[i] = n
            n += 1
        else:
            piece[i] = piece[j]
    lo, hi = np.empty((n, 2), np.int64), np.empty((n, 2), np.int64)
    for k in range(n):
        lo[k, 0], lo[k, 1] = at[first[k]] // w, w
        hi[k, 0], hi[k, 1] = -1, -1
    for i in range(K):
        k, y, x = piece[i], at[i] // w, at[i] % w
        lo[k, 0], hi[k, 0] = min(lo[k, 0], y), max(hi[k, 0], y)
        lo[k, 1], hi[k, 1] = min(lo[k, 1], x), max(hi[k, 1], x)
    return piece, first[:n], hi - lo + 1


@njit(cache=True)
def _find(root, i):
    """The root of pixel i (``_pieces``), the path to it shortened."""
    while root[i] != i:
        root[i] = root[root[i]]
        i = root[i]
    return i


@njit(cache=True)
def _join(root, i, j):
    """Join the pieces of pixels i and j (``_pieces``): the earlier root stays the root."""
    a, b = _find(root, i), _find(root, j)
    if a < b:
        root[b] = a
    elif b < a:
        root[a] = b


def clear_of_intruders(fg: np.ndarray, reach_in, centres: np.ndarray, radii: np.ndarray,
                       outline_share: np.ndarray, rms_px: np.ndarray) -> np.ndarray:
    """(M,) bool: which fits are balls rather than part of an intruder. centres (M, 2) [px, (u, v)]
    and outline radii (M,) [px] on the grid of ``fg`` and ``reach_in`` (h, w) bool (or a function
    that returns it, ``intruders``); outline_share
    (M,): the share of each fit's outline rays that found its edge (0: placed by its neighbours);
    rms_px (M,): the fit's residual [full-resolution px]. A fit is part of an intruder where at least
    SHARE of the foreground inside DISC of its radius came in over the rail, unless its outline is a
    ball's: mostly found (OUTLINE_SHARE) or round (ROUND_RMS) over more than a short arc (ROUND_ARC).
    A fit across two fingers, along a forearm or on a short arc of a hand's edge is neither."""
    share = np.asarray(outline_share)
    ball_like = (share >= OUTLINE_SHARE) | ((np.asarray(rms_px) <= ROUND_RMS)
                                            & ((share >= ROUND_ARC) | (share == 0)))
    if ball_like.all():                   # every fit's outline is a ball's (or there is none)
        return ball_like
    mask = intruders(fg, reach_in, float(np.median(radii)))
    if not mask.any():
        return np.ones(len(centres), bool)
    return ball_like | (intruder_share(mask, fg, centres, DISC * np.asarray(radii)) < SHARE)


def intruder_share(intruder: np.ndarray, fg: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """(M,) for discs with ``centres`` (M, 2) [px, (u, v)] and ``radii`` (M,) [px] on the grid of
    ``intruder`` and ``fg`` (h, w) bool: the share of the disc's foreground pixels that belong to
    an intruder (0 where the disc has no foreground)."""
    h, w = fg.shape
    out = np.zeros(len(centres))
    for m, ((u, v), r) in enumerate(zip(centres, radii)):
        u0, u1 = max(0, int(u - r)), min(w, int(u + r) + 2)
        v0, v1 = max(0, int(v - r)), min(h, int(v + r) + 2)
        if u0 >= u1 or v0 >= v1:
            continue
        vv, uu = np.mgrid[v0:v1, u0:u1]
        disc = (uu - u) ** 2 + (vv - v) ** 2 <= r * r
        f = fg[v0:v1, u0:u1] & disc
        n = int(f.sum())
        out[m] = float((intruder[v0:v1, u0:u1] & f).sum()) / n if n else 0.0
    return out
