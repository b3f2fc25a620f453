"""What reaches in over the rail is not a ball: a hand, an arm, a cue.

A ball lies on the cloth; a person's hand and forearm (or a cue) come in from beyond the table, so
their foreground crosses the cushions to the rail. ``intruders`` keeps the foreground connected
to a band just inside the cushion backs (``reach_in_band``, away from the pockets), after an
opening that removes specks and hairline links, in regions no wider than an arm (a sheen or a
projector's light across the cushions is wider). ``clear_of_intruders`` then drops a fit when most
of the foreground inside its disc belongs to an intruder (``intruder_share``) and its outline is
not a ball's: a fit across two fingers or along a forearm finds its edge on few rays and is rough;
a ball the hand touches (it joins the intruder) or a ball a projector's soft light edge crosses
keeps most of its outline, round. A ball frozen on a cushion reaches the cushion nose, not its back.
"""
from __future__ import annotations

import cv2
import numpy as np
from scipy import ndimage

NECK = 3
"""Side [px] of the square the foreground is opened with: specks and hairline links go, a finger
(about 4 half-resolution px) stays whole."""
WIDE = 2.5
"""An intruder is no wider than this many ball radii either side of its middle (a forearm at the
elbow, about 1.6; a sheen or a projector's light across the cushions is much wider)."""
DISC = 0.9
"""A fit is no ball where, inside this share of its outline radius, ..."""
SHARE = 0.5
"""... at least this share of the foreground came in over the rail, ..."""
OUTLINE_SHARE = 0.5
"""... unless at least this share of its outline rays found its edge ..."""
ROUND_RMS = 0.3
"""... or its outline fit is this round [px] (rendered: balls on a projector's light 0.05-0.28 px,
fits across fingers 0.38-0.71 px with 9-20 of 48 rays)."""
BAND = 3
"""Width [px] of the band just inside the table's outline that an intruder crosses, ..."""
JAW = 2.5
"""... except within this many ball radii of a pocket's hole (a ball in a jaw comes that near)."""


def reach_in_band(inside: np.ndarray, hole: np.ndarray, r: float) -> np.ndarray:
    """(h, w) bool: the BAND pixels just inside the outline of ``inside`` (h, w) bool, the table
    out to its cushion backs, farther than JAW x ``r`` (a ball's radius [px]) from ``hole`` (h, w)
    bool, the pockets."""
    k = 2 * BAND + 1
    band = inside & ~(cv2.erode(inside.astype(np.uint8), np.ones((k, k), np.uint8)) > 0)
    j = 2 * int(round(JAW * r)) + 1
    return band & ~(cv2.dilate(hole.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (j, j))) > 0)


def intruders(fg: np.ndarray, reach_in: np.ndarray, r: float) -> np.ndarray:
    """(h, w) bool: the pixels of foreground ``fg`` (h, w) bool that, after an opening by a NECK x
    NECK square, are 4-connected to a pixel of ``reach_in`` (h, w) bool, in regions no wider than
    an arm (no pixel farther than WIDE x ``r``, a ball's radius [px], from the region's edge)."""
    opened = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((NECK, NECK), np.uint8))
    n, labels = cv2.connectedComponents(opened, connectivity=4)
    hit = np.unique(labels[reach_in & (opened > 0)])
    hit = hit[hit > 0]
    if hit.size:
        depth = ndimage.maximum(cv2.distanceTransform(opened, cv2.DIST_L2, 3), labels, hit)
        hit = hit[np.asarray(depth) <= WIDE * r]
    return np.isin(labels, hit)


def clear_of_intruders(fg: np.ndarray, reach_in: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                       outline_share: np.ndarray, rms_px: np.ndarray) -> np.ndarray:
    """(M,) bool: which fits are balls rather than part of an intruder. centres (M, 2) [px, (u, v)]
    and outline radii (M,) [px] on the grid of ``fg`` and ``reach_in`` (h, w) bool; outline_share
    (M,): the share of each fit's outline rays that found its edge; rms_px (M,): the fit's residual
    [full-resolution px]. A fit is part of an intruder where at least SHARE of the foreground inside
    DISC of its radius came in over the rail, unless its outline is a ball's: mostly found
    (OUTLINE_SHARE) or round (ROUND_RMS). A fit across two fingers or along a forearm is neither."""
    if not len(centres):
        return np.ones(0, bool)
    mask = intruders(fg, reach_in, float(np.median(radii)))
    if not mask.any():
        return np.ones(len(centres), bool)
    ball_like = (np.asarray(outline_share) >= OUTLINE_SHARE) | (np.asarray(rms_px) <= ROUND_RMS)
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
