"""Thin lines of added light (a projector's halo rings, glints) taken out of an image (both detectors).

A projector that draws a ring round each ball adds light along a line a few pixels wide, on the
cloth and across the balls alike. Its edges are strong colour steps, so they vote for ball centres
(``vision.candidates``) and compete with the balls' outlines (``vision.steps``); in a rack they
win. Across such a line both sides show the same surface (cloth, or one ball) and the line is that
surface with light added (no channel darker). A pixel is taken for a line when, along one of four
directions (eight with ``fine``), it is brighter than both samples ``reach`` pixels either side by at
least MIN_GAIN levels in its strongest channel and by at least 0 in every channel, the two samples agree (within
SAME_SHARE of the gain: one surface), along the square direction it is not much brighter than its
samples (ALONG_SHARE: a line, not a spot such as a highlight or a number disc), and the pixels
``reach`` along the line on both sides are lines too (GO_ON: not a short bar). It then takes the
two samples' mean: the surface under the line. A ball's outline is a step between two different
surfaces, and a ball is wider than the reach, so neither is ever taken for a line.

The samples along the line lie along the direction square to the one across it: for a line that
runs between two of the four directions (22.5 degrees off), they land 0.38 ``reach`` beside its
centre line, off a line narrower than that, and the pixel is taken for a spot; eight directions
(every 22.5 degrees) halve the worst case to 0.2 ``reach``. The registered detector's half-resolution
pass uses eight (``vision.detect``: rendered halo frames 97.5 -> 98.3 % found, the hard condition
66.8 % and a false ball -> 71.4 %, none); pixel-only mode keeps four (eight lost a ball and added one on the real halo frames; so did the
registered detector's whole line stage on frames with many line pixels, docs/vision.md).

A line's edges are soft (a camera's blur): the pixels just beside the replaced core add less than
MIN_GAIN and stay as two faint lines, which the outline search can still take for arcs of a ball.
``take_line_edges`` gives each pixel beside a replaced one, no darker than its surface and adding
at least EDGE_GAIN levels, that surface. The registered detector uses it at half resolution
(rendered halo frames 98.3 -> 100 % found, identity 99.6 -> 100 %; the hard condition 71.4 -> 72.3 %,
RMS 2.32 -> 1.67 mm, 2 fewer balls named right; taken at full resolution too it let a false ball in).
"""
from __future__ import annotations

import functools

import cv2
import numpy as np

from planner.jit import njit
from vision.runs import row_runs
from vision.steps import _copy_run

MIN_GAIN = 20.0       # 8-bit levels: a line adds at least this much light in its strongest channel
SAME_SHARE = 0.5      # the two sides differ by at most this share of the gain (one surface)
ALONG_SHARE = 0.5     # along the line the pixel is less than this share of the gain brighter (no spot)
GO_ON = 0.1           # the pixels ``reach`` along the line gain at least this share across it too
EDGE_GAIN = 4.0       # 8-bit levels: a line's soft edge beside a replaced pixel adds at least this much light
EDGE_DARKER = 2.0     # ... and is darker than that pixel's surface by at most this much in any channel (noise)
DIRECTIONS = (0.0, 90.0, 45.0, 135.0)                  # [deg] across the line; square pairs k, k ^ 1
FINE_DIRECTIONS = DIRECTIONS + (22.5, 112.5, 67.5, 157.5)  # ... with ``fine``


@njit(cache=True)
def _gain(flat, p, o):
    """(smallest, largest) channel gain of the pixel at p over the brighter of its two samples at p + o
    and p - o, and the squared difference of those samples, in integer levels (exact, and cheaper than a
    float conversion per channel). flat: the C-ordered (h, w, 3) image's bytes; p, o: a pixel's byte
    offset and a sample's from it, read as unsigned (p - o >= 0: numba then tests no index for a negative
    value, one test a read)."""
    gmin, gmax, diff2 = 1 << 20, -(1 << 20), 0
    a0, b0, p0 = np.uint64(p + o), np.uint64(p - o), np.uint64(p)
    for c in range(3):
        k = np.uint64(c)
        a = np.int32(flat[a0 + k])
        b = np.int32(flat[b0 + k])
        g = np.int32(flat[p0 + k]) - max(a, b)
        gmin = min(gmin, g)
        gmax = max(gmax, g)
        diff2 += (a - b) * (a - b)
    return gmin, gmax, diff2


@njit(cache=True)
def _offsets(img, dirs):
    """(the C-ordered (h, w, 3) uint8 image's bytes (h w 3,), (len(dirs),) each sample offset (dx, dy) of
    dirs as a byte offset in them)."""
    w = img.shape[1]
    offs = np.empty(dirs.shape[0], np.int64)
    for k in range(dirs.shape[0]):
        offs[k] = 3 * (dirs[k, 1] * w + dirs[k, 0])
    return img.reshape(-1), offs


@njit(cache=True)
def _fits(gmin, gmax, diff2, min_gain, same_share):
    """Whether a pixel's gain across a direction (``_gain``) passes the first test (module notes): it
    gains at least min_gain, no channel darker, the two samples one surface."""
    return (gmax >= min_gain) & (gmin >= 0) & (diff2 <= (same_share * gmax) ** 2)


@njit(cache=True)
def _across(flat, offs, p0, n, across, fits, min_gain, same_share):
    """The first test of each direction (module notes) for n pixels along a row from the byte offset p0 of
    ``flat`` (``_offsets``): across[k, i] (float) the largest channel gain of pixel i across direction k,
    fits[k, i] whether it passes (gain, every channel no darker, the two samples one surface). One
    direction at a time over the whole run, branch-free: the compiler vectorises it (with the runs of
    ``_unline_blocks``, a real halo frame's full-resolution pass 0.89 -> 0.69 ms against a pixel at a time)."""
    for k in range(offs.shape[0]):
        o = offs[k]
        for i in range(n):
            gmin, gmax, diff2 = _gain(flat, p0 + 3 * i, o)
            across[k, i] = gmax
            fits[k, i] = _fits(gmin, gmax, diff2, min_gain, same_share)


@njit(cache=True)
def _take(img, flat, offs, out, changed, y, x, i, dirs, across, fits, along_share, go_on):
    """Replace pixel (y, x) of ``out`` by the surface under it if it lies on a line (module notes), given
    its first tests across[:, i], fits[:, i] (``_across``). dirs: (4 or 8, 2) the offsets to the samples,
    square pairs k, k ^ 1; flat, offs: ``_offsets(img, dirs)``. ``changed`` is written only (reading it
    faulted in the zero pages of a frame-sized mask, 0.3 ms a halo frame). The test along the line reads
    the square direction's gain across (the same numbers: one gain fewer for each direction passing the
    first test, 14 000 a real halo frame)."""
    p = 3 * (y * img.shape[1] + x)
    best = 0.0
    for k in range(dirs.shape[0]):
        gmax = across[k, i]
        if not fits[k, i] or gmax <= best:
            continue
        if across[k ^ 1, i] >= along_share * gmax:
            continue                                 # brighter along the line too: a spot
        o, along = offs[k], offs[k ^ 1]              # across and along the line
        if _gain(flat, p + along, o)[1] < go_on * gmax or _gain(flat, p - along, o)[1] < go_on * gmax:
            continue                                 # the line stops: a short bar (a highlight)
        best = gmax
        changed[y, x] = True
        dx, dy = dirs[k, 0], dirs[k, 1]
        for c in range(3):
            out[y, x, c] = (int(img[y + dy, x + dx, c]) + int(img[y - dy, x - dx, c]) + 1) // 2


@njit(cache=True)
def _unline_run(img, flat, offs, out, changed, y, x0, x1, dirs, across, fits, min_gain, same_share, along_share,
                go_on):
    """``_take`` each pixel (y, x0 <= x < x1) of a run 2 reach inside the frame (row 1 of dirs: (0, reach))
    that passes the first test across some direction; across (4 or 8, >= x1 - x0) float and fits (the
    same shape) bool: scratch."""
    p0 = 3 * (y * img.shape[1] + x0)
    _across(flat, offs, p0, x1 - x0, across, fits, min_gain, same_share)
    for i in range(x1 - x0):
        some = False
        for k in range(dirs.shape[0]):
            some |= fits[k, i]
        if some:
            _take(img, flat, offs, out, changed, y, x0 + i, i, dirs, across, fits, along_share, go_on)


@njit(cache=True)
def _brightest(img):
    """(h, w) uint8: the brightest channel of each pixel of a C-contiguous (h, w, 3) uint8 image (one flat
    pass of conditional expressions, which the compiler vectorises: a tenth of the time of max() per
    pixel)."""
    h, w = img.shape[0], img.shape[1]
    flat = img.reshape(-1)
    out = np.empty(h * w, np.uint8)
    for i in range(h * w):
        b, g, r = flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]
        m = b if b > g else g
        out[i] = m if m > r else r
    return out.reshape(h, w)


@njit(cache=True)
def _unline(img, out, changed, where, dirs, min_gain, same_share, along_share, go_on):
    """``_take`` each True pixel of ``where`` (h, w) 2 reach inside the frame (row 1 of dirs: (0, reach))
    that passes the first test across some direction, one pixel at a time (their runs along a row are one
    or two pixels long at half resolution: ``_unline_run`` cost three times as much there), found eight
    pixels at a time (``vision.runs.row_runs``)."""
    h, w = img.shape[0], img.shape[1]
    edge = 2 * dirs[1, 1]
    across, fits = np.empty((dirs.shape[0], 1)), np.empty((dirs.shape[0], 1), np.bool_)
    flat, offs = _offsets(img, dirs)
    rows, starts, ends = row_runs(where)
    for j in range(rows.size):
        y = rows[j]
        if not edge <= y < h - edge:
            continue
        for x in range(max(starts[j], edge), min(ends[j], w - edge)):
            p, some = 3 * (y * w + x), False
            for k in range(dirs.shape[0]):
                gmin, gmax, diff2 = _gain(flat, p, offs[k])
                across[k, 0] = gmax
                fits[k, 0] = _fits(gmin, gmax, diff2, min_gain, same_share)
                some |= fits[k, 0]
            if some:
                _take(img, flat, offs, out, changed, y, x, 0, dirs, across, fits, along_share, go_on)


@njit(cache=True)
def _block_runs(coarse, margin, w):
    """(starts, ends, first): each run u <= u' < u1 of True pixels along a row v of ``coarse`` (half
    resolution) as the columns 2 u - margin <= x < 2 u1 + margin of the full-resolution image (w columns)
    its blocks span, clipped to it; row v's runs are first[v]:first[v + 1]."""
    rows, starts, ends = row_runs(coarse)
    first = np.searchsorted(rows, np.arange(coarse.shape[0] + 1))
    return np.maximum(2 * starts - margin, 0), np.minimum(2 * ends + margin, w), first


@njit(cache=True)
def _unline_blocks(img, out, changed, coarse, margin, dirs, min_gain, same_share, along_share, go_on):
    """``_unline_run`` on each pixel of img within margin px of the 2 x 2 block of a True pixel of
    ``coarse`` (half resolution), those 2 reach inside the frame, each pixel once (it reads only img, so a
    second look would change nothing; the blocks of neighbouring line pixels overlap): along each row, the
    blocks' columns of the coarse rows that reach it, merged into runs (``_block_runs``; a mask of the seen
    pixels, kept for a ring of rows, and a pixel at a time cost more). ``out`` (img's shape, C-ordered) need
    not hold img: its rows are copied from img here, each 2 reach rows ahead of the row tested (the rows
    the test reads, 2 reach either side, are then in the cache: the frame was last read by the halving,
    long before)."""
    h, w = img.shape[0], img.shape[1]
    edge = 2 * dirs[1, 1]
    src, dst, row = img.reshape(-1), out.reshape(-1), 3 * w
    copied = 0                                   # the rows of out copied from img
    across, fits = np.empty((dirs.shape[0], w)), np.empty((dirs.shape[0], w), np.bool_)
    flat, offs = _offsets(img, dirs)
    starts, ends, first = _block_runs(coarse, margin, w)
    ch = coarse.shape[0]
    heads = np.empty(margin + 2, np.int64)       # the next run of each coarse row reaching the image row
    for y in range(edge, h - edge):
        while copied < min(h, y + edge + 1):
            _copy_run(src, copied * row, dst, copied * row, row)
            copied += 1
        v0, v1 = max((y - margin - 2) // 2 + 1, 0), min((y + margin) // 2 + 1, ch)   # blocks reaching row y
        if v0 >= v1 or first[v0] == first[v1]:
            continue                                 # (no line pixel near: most rows of most frames)
        for i in range(v1 - v0):
            heads[i] = first[v0 + i]
        x0, x1 = -1, -1                              # the run being gathered
        while True:
            j = -1                                   # the next run by its start, of all the coarse rows
            for i in range(v1 - v0):
                if heads[i] < first[v0 + i + 1] and (j < 0 or starts[heads[i]] < starts[j]):
                    j = heads[i]
                    k = i
            if j >= 0:
                heads[k] += 1
                if starts[j] <= x1:                  # overlapping or touching: one run
                    x1 = max(x1, ends[j])
                    continue
            if max(x0, edge) < min(x1, w - edge):
                _unline_run(img, flat, offs, out, changed, y, max(x0, edge), min(x1, w - edge), dirs, across, fits,
                            min_gain, same_share, along_share, go_on)
            if j < 0:
                break
            x0, x1 = starts[j], ends[j]
    _copy_run(src, copied * row, dst, copied * row, (h - copied) * row)


@njit(cache=True)
def _edges(img, out, changed, beside, min_gain, darker):
    """Replace each pixel beside a replaced one (``beside``) by the brightest-gaining such neighbour's
    surface where it is no darker than that surface (by at most ``darker``) and adds at least min_gain."""
    h, w = img.shape[0], img.shape[1]
    new = np.zeros_like(changed)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            if not beside[y, x]:
                continue
            best, by, bx = -1.0, 0, 0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    if not changed[y + dy, x + dx]:
                        continue
                    gmin, gmax = 1e9, -1e9
                    for c in range(3):
                        g = float(img[y, x, c]) - float(out[y + dy, x + dx, c])
                        gmin = min(gmin, g)
                        gmax = max(gmax, g)
                    if gmin >= -darker and gmax >= min_gain and gmax > best:
                        best, by, bx = gmax, y + dy, x + dx
            if best >= 0.0:
                for c in range(3):
                    out[y, x, c] = out[by, bx, c]
                new[y, x] = True
    changed |= new


@functools.lru_cache(maxsize=16)
def _sample_offsets(reach: int, fine: bool) -> np.ndarray:
    """(4 or 8, 2) int64, read-only: the offsets [px] to the samples ``reach`` px either side along
    DIRECTIONS (FINE_DIRECTIONS with ``fine``), rounded."""
    a = np.radians(FINE_DIRECTIONS if fine else DIRECTIONS)
    dirs = np.rint(reach * np.stack([np.cos(a), np.sin(a)], axis=1)).astype(np.int64)
    dirs.setflags(write=False)
    return dirs


def remove_thin_lines(image: np.ndarray, reach: int, near: np.ndarray | None = None,
                      fine: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(the image with its thin lines of added light replaced by the surface under them (module
    notes), (h, w) bool: the pixels replaced) of a BGR uint8 image (h, w, 3). reach: [px, int >= 1]
    how far either side of a pixel the surface is read (lines up to about twice as wide are taken
    out); near: optional (h/2, w/2) bool, the pixels replaced at half this resolution: only the
    full-resolution pixels within 2 px of theirs are looked at (default: the pixels that a
    reach-wide grey opening of the brightest channel darkens by MIN_GAIN); fine: eight directions
    instead of four (module notes). The input is not modified."""
    img = np.ascontiguousarray(image, np.uint8)
    reach = int(reach)
    changed = np.zeros(img.shape[:2], np.bool_)
    dirs = _sample_offsets(reach, fine)
    if near is None:
        k = 2 * int(reach) + 1
        tophat = cv2.morphologyEx(_brightest(img), cv2.MORPH_TOPHAT, np.ones((k, k), np.uint8))
        where = tophat >= int(np.ceil(MIN_GAIN))  # (an integer bound: a float one converts every pixel, 10x the time)
        out = img.copy()
        _unline(img, out, changed, where, dirs, MIN_GAIN, SAME_SHARE, ALONG_SHARE, GO_ON)
    else:
        out = np.empty_like(img)                  # (copied by the pass, just ahead of the rows it tests)
        near = np.ascontiguousarray(near, np.bool_)
        _unline_blocks(img, out, changed, near, 2, dirs, MIN_GAIN, SAME_SHARE, ALONG_SHARE,
                       GO_ON)
    return out, changed


def take_line_edges(image: np.ndarray, unlined: np.ndarray, lined: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unlined, lined) of ``remove_thin_lines(image, ...)`` with the lines' soft edges taken out too:
    a pixel beside a replaced one that is no darker than its surface (EDGE_DARKER) and adds at least
    EDGE_GAIN levels takes that surface (module notes). The inputs are not modified."""
    img = np.ascontiguousarray(image, np.uint8)
    out, changed = unlined.copy(), lined.copy()
    beside = (cv2.dilate(lined.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0) & ~lined
    _edges(img, out, changed, beside, EDGE_GAIN, EDGE_DARKER)
    return out, changed
