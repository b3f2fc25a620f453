"""Thin lines of added light (a projector's halo rings, glints) taken out of an image (pixel-only mode).

A projector that draws a ring round each ball adds light along a line a few pixels wide, on the
cloth and across the balls alike. Its edges are strong colour steps, so they vote for ball centres
(``vision.candidates``) and compete with the balls' outlines (``vision.steps``); in a rack they
win. Across such a line both sides show the same surface (cloth, or one ball) and the line is that
surface with light added (no channel darker). A pixel is taken for a line when, along one of four
directions, it is brighter than both samples ``reach`` pixels either side by at least MIN_GAIN
levels in its strongest channel and by at least 0 in every channel, the two samples agree (within
SAME_SHARE of the gain: one surface), along the square direction it is not much brighter than its
samples (ALONG_SHARE: a line, not a spot such as a highlight or a number disc), and the pixels
``reach`` along the line on both sides are lines too (GO_ON: not a short bar). It then takes the
two samples' mean: the surface under the line. A ball's outline is a step between two different
surfaces, and a ball is wider than the reach, so neither is ever taken for a line.
"""
from __future__ import annotations

import cv2
import numpy as np

from planner.jit import njit

MIN_GAIN = 20.0       # 8-bit levels: a line adds at least this much light in its strongest channel
SAME_SHARE = 0.5      # the two sides differ by at most this share of the gain (one surface)
ALONG_SHARE = 0.5     # along the line the pixel is less than this share of the gain brighter (no spot)
GO_ON = 0.1           # the pixels ``reach`` along the line gain at least this share across it too


@njit(cache=True)
def _gain(img, y, x, dx, dy):
    """(smallest, largest) channel gain of pixel (y, x) over the brighter of its two samples
    (dx, dy) either side, and the squared difference of those samples."""
    gmin, gmax, diff2 = 1e9, -1e9, 0.0
    for c in range(3):
        a = float(img[y + dy, x + dx, c])
        b = float(img[y - dy, x - dx, c])
        g = float(img[y, x, c]) - max(a, b)
        gmin = min(gmin, g)
        gmax = max(gmax, g)
        diff2 += (a - b) * (a - b)
    return gmin, gmax, diff2


@njit(cache=True)
def _unline_pixel(img, out, changed, y, x, dirs, min_gain, same_share, along_share, go_on):
    """Replace pixel (y, x) of ``out`` by the surface under it if it lies on a line (module notes);
    dirs: (4, 2) the offsets to the samples, square pairs k, k ^ 1."""
    h, w = img.shape[0], img.shape[1]
    if min(y, x, h - 1 - y, w - 1 - x) < 2 * dirs[1, 1] or changed[y, x]:
        return
    best = 0.0
    for k in range(4):
        dx, dy = dirs[k, 0], dirs[k, 1]
        gmin, gmax, diff2 = _gain(img, y, x, dx, dy)
        if gmax < min_gain or gmin < 0.0 or diff2 > (same_share * gmax) ** 2 or gmax <= best:
            continue
        px, py = dirs[k ^ 1, 0], dirs[k ^ 1, 1]      # along the line
        if _gain(img, y, x, px, py)[1] >= along_share * gmax:
            continue                                 # brighter along it too: a spot
        if _gain(img, y + py, x + px, dx, dy)[1] < go_on * gmax \
                or _gain(img, y - py, x - px, dx, dy)[1] < go_on * gmax:
            continue                                 # the line stops: a short bar (a highlight)
        best = gmax
        changed[y, x] = True
        for c in range(3):
            out[y, x, c] = (int(img[y + dy, x + dx, c]) + int(img[y - dy, x - dx, c]) + 1) // 2


@njit(cache=True)
def _unline(img, out, changed, where, dirs, min_gain, same_share, along_share, go_on):
    for y in range(where.shape[0]):
        for x in range(where.shape[1]):
            if where[y, x]:
                _unline_pixel(img, out, changed, y, x, dirs, min_gain, same_share, along_share, go_on)


@njit(cache=True)
def _unline_blocks(img, out, changed, coarse, margin, dirs, min_gain, same_share, along_share, go_on):
    for v in range(coarse.shape[0]):
        for u in range(coarse.shape[1]):
            if coarse[v, u]:
                for y in range(2 * v - margin, 2 * v + 2 + margin):
                    for x in range(2 * u - margin, 2 * u + 2 + margin):
                        _unline_pixel(img, out, changed, y, x, dirs, min_gain, same_share, along_share, go_on)


def remove_thin_lines(image: np.ndarray, reach: int, near: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(the image with its thin lines of added light replaced by the surface under them (module
    notes), (h, w) bool: the pixels replaced) of a BGR uint8 image (h, w, 3). reach: [px, int >= 1]
    how far either side of a pixel the surface is read (lines up to about twice as wide are taken
    out); near: optional (h/2, w/2) bool, the pixels replaced at half this resolution: only the
    full-resolution pixels within 2 px of theirs are looked at (default: the pixels that a
    reach-wide grey opening of the brightest channel darkens by MIN_GAIN). The input is not modified."""
    img = np.ascontiguousarray(image, np.uint8)
    reach = int(reach)
    out = img.copy()
    changed = np.zeros(img.shape[:2], np.bool_)
    d = int(round(reach / np.sqrt(2.0)))
    dirs = np.array([[reach, 0], [0, reach], [d, d], [d, -d]], np.int64)
    if near is None:
        b, g, r = cv2.split(img)
        k = 2 * int(reach) + 1
        tophat = cv2.morphologyEx(cv2.max(cv2.max(b, g), r), cv2.MORPH_TOPHAT, np.ones((k, k), np.uint8))
        _unline(img, out, changed, tophat >= MIN_GAIN, dirs, MIN_GAIN, SAME_SHARE, ALONG_SHARE, GO_ON)
    else:
        _unline_blocks(img, out, changed, np.ascontiguousarray(near, np.bool_), 2, dirs, MIN_GAIN,
                       SAME_SHARE, ALONG_SHARE, GO_ON)
    return out, changed
