"""Candidate ball centres: radial-symmetry peaks in blobs of foreground (both detection modes).

Every colour edge votes for the points one ball radius away along its gradient, on both sides
(after Loy & Zelinsky 2003, 'Fast radial symmetry for detecting points of interest', IEEE PAMI
25(8), the orientation-projection image O_n of Sec. 2). A ball's outline sends its votes to its
centre whatever its contrast, and so does the boundary between two touching balls (its normal
passes through both centres), so a cluster splits into its balls. Candidates are the local maxima
of the smoothed votes where a ball-sized square is mostly foreground; chalk marks and specks of
noise are too small to fill such a square.

One pass over the image (a numba kernel): the votes of all blobs at once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from planner.jit import njit

FILL_MIN = 0.6          # a candidate's square is at least this full of foreground
VOTES_MIN = 1.5         # smoothed symmetry votes at a candidate (a lone ball: ~10+)
MIN_GRAD = 40.0         # weakest edge that votes: the strongest channel's 3x3 Sobel magnitude
VOTER_REACH = 5         # px: edges this close around a blob vote (its outline lies just outside it)


@njit(cache=True)
def _votes(img, voters, radius, min_grad):
    """Symmetry votes (h, w) float32 of a uint8 BGR image from the edge pixels where ``voters``;
    radius: (h, w) float32 map of the expected radius, or (1, 1) for one radius everywhere."""
    h, w = img.shape[0], img.shape[1]
    out = np.zeros((h, w), np.float32)
    one = radius.shape[0] == 1
    g2min = min_grad * min_grad
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            if not voters[y, x]:
                continue
            best, bx, by = 0, 0, 0          # (whole numbers: the Sobel sums are exact in integers)
            for c in range(3):
                gx = (np.int32(img[y - 1, x + 1, c]) + 2 * np.int32(img[y, x + 1, c]) + np.int32(img[y + 1, x + 1, c])
                      - np.int32(img[y - 1, x - 1, c]) - 2 * np.int32(img[y, x - 1, c])
                      - np.int32(img[y + 1, x - 1, c]))
                gy = (np.int32(img[y + 1, x - 1, c]) + 2 * np.int32(img[y + 1, x, c]) + np.int32(img[y + 1, x + 1, c])
                      - np.int32(img[y - 1, x - 1, c]) - 2 * np.int32(img[y - 1, x, c])
                      - np.int32(img[y - 1, x + 1, c]))
                m = gx * gx + gy * gy
                if m > best:
                    best, bx, by = m, gx, gy
            if best < g2min:
                continue
            mag = math.sqrt(best)
            rad = radius[0, 0] if one else radius[y, x]
            ux, uy = bx / mag * rad, by / mag * rad
            for sign in (1.0, -1.0):
                px = int(round(x + sign * ux))
                py = int(round(y + sign * uy))
                if 0 <= px < w and 0 <= py < h:
                    out[py, px] += 1.0
    return out


def symmetry_votes(img: np.ndarray, voters: np.ndarray, radius) -> np.ndarray:
    """Radial-symmetry votes (see the module notes) of a BGR uint8 image (h, w, 3): every edge
    pixel (the strongest channel's 3x3 Sobel magnitude >= MIN_GRAD) where ``voters`` (h, w) votes
    at the two points ``radius`` pixels away along its gradient (radius: a number, or an (h, w)
    map of the expected radius at each pixel). Returns (h, w) float32 votes, Gaussian-smoothed with
    sigma 1 px."""
    rad = np.asarray(radius, np.float32)
    rad = rad.reshape(1, 1) if rad.ndim == 0 else rad
    votes = _votes(np.ascontiguousarray(img, np.uint8), np.ascontiguousarray(voters, np.bool_), rad, MIN_GRAD)
    return cv2.GaussianBlur(votes, (0, 0), 1.0)


def judged_fg(fg: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(h, w) uint8: the foreground fg (h, w) uint8 where ``known`` (h, w) uint8 is nonzero, else 0 (cv2's
    masked and, as an unmasked and with a comparison: 0.03 -> 0.02 ms a half frame)."""
    return cv2.bitwise_and(fg, cv2.compare(known, 0, cv2.CMP_NE))


def fill_at(fg: np.ndarray, known: np.ndarray, known_count: np.ndarray, box: int, i: np.ndarray,
            j: np.ndarray) -> np.ndarray:
    """(K,) float32 the share of the judged pixels in the box x box square about pixels (i, j) (K,) (rows,
    columns) that are foreground: fg (h, w) uint8 (255) where ``known`` (h, w) uint8 is nonzero, over
    ``known_count`` (h, w) float32 (their box sums, at least 1). The values of
    ``cv2.boxFilter(judged_fg(fg, known), cv2.CV_32F, (box, box), normalize=False) / (255.0 * np.maximum(known_count,
    1.0))`` at those pixels (the box padded as cv2 pads, BORDER_REFLECT_101), counted at those K pixels alone (the
    whole half frame filtered: 0.5 ms of a hard frame, for a few short arcs and balls placed by their contacts)."""
    return _fill_at(fg, known, known_count, np.asarray(i, np.int64), np.asarray(j, np.int64), box // 2)


@njit(cache=True)
def _reflect101(p, n):
    """Index p of a row of n pixels padded as BORDER_REFLECT_101 (p within n - 1 of the row)."""
    return -p if p < 0 else (2 * n - 2 - p if p >= n else p)


@njit(cache=True)
def _fill_at(fg, known, known_count, i, j, half_box):
    """``fill_at`` of the (2 half_box + 1)-squares about pixels (i, j): the judged foreground's integer sum,
    as cv2 sums uint8 in integers, over 255 times the known count, in float32 as numpy divides them."""
    h, w = fg.shape
    out = np.empty(i.size, np.float32)
    for k in range(i.size):
        s = 0
        for dy in range(-half_box, half_box + 1):
            y = _reflect101(i[k] + dy, h)
            for dx in range(-half_box, half_box + 1):
                x = _reflect101(j[k] + dx, w)
                if known[y, x] != 0:
                    s += np.int64(fg[y, x])
        out[k] = np.float32(s) / (np.float32(255.0) * max(known_count[i[k], j[k]], np.float32(1.0)))
    return out


def known_sums(known: np.ndarray, box: int) -> np.ndarray:
    """(h + 2 (box // 2) + 1, w + 2 (box // 2) + 1) int32: the integral image of ``known`` (h, w) uint8 (1 where
    colour can be judged) padded by box // 2 px as cv2.boxFilter pads (BORDER_REFLECT_101), so that the box
    x box sum about pixel (y, x) is four reads of it (``_box_count``): the whole numbers of
    ``cv2.boxFilter(known, cv2.CV_32F, (box, box), normalize=False)``, read only where a candidate qualifies
    (the filtered half frame: 0.15 ms alone, 0.27 ms in the detector; these sums 0.04 ms alone)."""
    hb = box // 2
    return cv2.integral(cv2.copyMakeBorder(known, hb, hb, hb, hb, cv2.BORDER_REFLECT_101))


@njit(cache=True)
def _box_count(sums, y, x, half_box):
    """The (2 half_box + 1)-square sum about pixel (y, x) of the image whose ``known_sums`` (its box
    2 half_box + 1) is ``sums``."""
    b = 2 * half_box + 1
    return sums[y + b, x + b] - sums[y, x + b] - sums[y + b, x] + sums[y, x]


@dataclass(frozen=True)
class Votes:
    """A frame's radial-symmetry votes (``candidate_votes``), all (h, w): votes float32, near bool (the pixels
    within VOTER_REACH of judged foreground, where a centre may be), ones int32 (the integral image of the
    foreground the fill counts, (h + 1, w + 1))."""
    votes: np.ndarray
    near: np.ndarray
    ones: np.ndarray


def candidates(img: np.ndarray, fg: np.ndarray, known: np.ndarray, sums: np.ndarray,
               allowed: np.ndarray, radius, box: int, mute: np.ndarray | None = None,
               r_min: float | None = None, counted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Candidate ball centres: radial-symmetry peaks inside blobs of foreground.

    img: (h, w, 3) BGR uint8; fg: (h, w) uint8 foreground (255); known: (h, w) uint8 1 where
    colour can be judged; sums: ``known_sums(known, box)``; allowed: (h, w) bool where a centre
    may be; radius: expected ball radius [px], a number or an (h, w) map; box: side of the fill
    square [px]; mute: (h, w) bool, pixels whose edges do not vote (the empty table's own edges); r_min:
    None, or the least of ``radius`` (the detector's, found once per camera: a pass over the map a frame fewer);
    counted: None, or (h, w) uint8 1 where the fill counts pixels (of them ``known``'s; then ``sums`` is its
    ``known_sums``): a pocket's hole, where a black ball cannot be told from it, is left out of the share.
    Returns (centres (M, 2) as (u, v) in these pixels, fill (M,)), after non-maximum suppression
    at 1.3 radii (stronger votes first). A candidate's square must be FILL_MIN full of foreground,
    so specks and chalk marks (blobs much smaller than a ball) give none.
    """
    return candidate_peaks(candidate_votes(img, fg, known, radius, mute, counted), sums, allowed, radius, box, r_min)


def candidate_votes(img: np.ndarray, fg: np.ndarray, known: np.ndarray, radius, mute: np.ndarray | None = None,
                    counted: np.ndarray | None = None) -> Votes:
    """The votes ``candidates`` takes its peaks from (arguments as there): they do not depend on where a centre
    may be, so one frame's votes serve every set of ``allowed`` pixels (``candidate_peaks``)."""
    judged = judged_fg(fg, known)
    near = cv2.dilate(judged, np.ones((VOTER_REACH, VOTER_REACH), np.uint8)) > 0
    votes = symmetry_votes(img, near if mute is None else near & ~mute, radius)
    ones = cv2.integral(((judged if counted is None else judged_fg(fg, counted)) > 0).view(np.uint8))
    return Votes(votes, near, ones)


def candidate_peaks(v: Votes, sums: np.ndarray, allowed: np.ndarray, radius, box: int,
                    r_min: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``candidates`` from the frame's ``Votes`` v (the other arguments as there)."""
    xs, ys, score, fill = _peaks(v.votes, v.near & allowed, v.ones, sums, box // 2, FILL_MIN, VOTES_MIN)
    if xs.size == 0:
        return np.zeros((0, 2)), np.zeros(0)
    r_min = float(np.min(radius)) if r_min is None else r_min
    keep = distinct(np.stack([xs, ys], axis=1).astype(np.float64), score, 1.3 * r_min)
    return np.stack([xs[keep], ys[keep]], axis=1).astype(np.float64), fill[keep]


@njit(cache=True)
def _peaks(votes, where, ones, sums, half_box, fill_min, votes_min):
    """Local maxima of votes (3 x 3, among the pixels that qualify) at the pixels ``where`` with at
    least votes_min votes and a (2 half_box + 1) square at least fill_min foreground (ones: the
    integral image of foreground, sums: ``known_sums`` of the judged pixels, whose box sums count them).
    Returns (x, y, votes, fill) arrays."""
    h, w = votes.shape
    ok = np.zeros((h, w), np.bool_)
    at = np.empty((h * w, 2), np.int32)   # the qualifying pixels (y, x) in scan order (the second pass visits
                                          # only them; as flat indexes divided again, 0.31 -> 0.29 ms a frame)
    fill = np.empty(h * w, np.float32)
    count = 0
    for y in range(h):
        for x in range(w):
            if where[y, x] and votes[y, x] >= votes_min:
                y0, y1 = max(y - half_box, 0), min(y + half_box + 1, h)
                x0, x1 = max(x - half_box, 0), min(x + half_box + 1, w)
                n = ones[y1, x1] - ones[y0, x1] - ones[y1, x0] + ones[y0, x0]
                f = n / max(_box_count(sums, y, x, half_box), 1.0)
                if f >= fill_min:
                    ok[y, x] = True
                    at[count, 0], at[count, 1], fill[count] = y, x, f
                    count += 1
    xs, ys = np.empty(count, np.int64), np.empty(count, np.int64)
    vs, fs = np.empty(count), np.empty(count)
    k = 0
    for i in range(count):
        y, x = np.int64(at[i, 0]), np.int64(at[i, 1])
        v = votes[y, x]
        peak = True
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy, xx = y + dy, x + dx
                if 0 <= yy < h and 0 <= xx < w and ok[yy, xx] and votes[yy, xx] > v:
                    peak = False
        if peak:
            xs[k], ys[k], vs[k], fs[k] = x, y, v, fill[i]
            k += 1
    return xs[:k], ys[:k], vs[:k], fs[:k]


def distinct(pts: np.ndarray, score: np.ndarray, dmin: float) -> np.ndarray:
    """Indices (sorted) of the points (N, 2) to keep so that no two are closer than ``dmin``:
    greedily, the higher ``score`` first (non-maximum suppression)."""
    order = np.argsort(-np.asarray(score), kind="stable")
    return np.flatnonzero(_apart(np.ascontiguousarray(pts, np.float64), order, float(dmin) ** 2))


@njit(cache=True)
def _apart(pts, order, d2):
    """(N,) bool: the points (N, 2) kept, taken in ``order``, each farther than sqrt(d2) from every
    point kept before it."""
    keep = np.zeros(pts.shape[0], dtype=np.bool_)
    kept = np.empty(pts.shape[0], dtype=np.int64)
    k = 0
    for i in order:
        for j in kept[:k]:
            dx, dy = pts[i, 0] - pts[j, 0], pts[i, 1] - pts[j, 1]
            if dx * dx + dy * dy < d2:
                break
        else:
            keep[i] = True
            kept[k] = i
            k += 1
    return keep
