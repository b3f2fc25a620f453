"""Outline points of real, blurred balls: the strongest colour step along each normal.

A ball photographed by a real camera has a soft outline (lens blur, sensor demosaicing, JPEG), a
shadow on one side, a bright halo or highlight on another. The point where the colour changes
fastest along a line crossing the outline is the outline under any blur symmetric across it,
whatever the ball's colour (white, black, red on green cloth alike), and a soft shadow's edge
changes more slowly than the ball's own edge. So each outline point is the sub-pixel maximum of the
squared colour derivative sum_c (dI_c/dt)^2 along the outward normal, within a search band about a
predicted circle. A shadow's edge, a lighting gradient or a projector's halo on the cloth change
the cloth's brightness and keep its colour, so the part of the derivative along the cloth's colour
can be given less weight than a change of colour.
"""
from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from planner.jit import njit

N_RAYS = 48            # search lines per ball
STEP = 0.5             # px between samples along a search line
LEVELS = np.arange(256.0)   # each 8-bit level as a float (a table read: the int-to-float conversions of a
                            # sample's twelve reads cost 18 % of ``_step_points``)


@functools.lru_cache(maxsize=8)
def ray_directions(n: int = N_RAYS) -> np.ndarray:
    """(n, 2) unit outward directions, evenly spaced: one read-only array per n, made once."""
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    out = np.stack([np.cos(t), np.sin(t)], axis=1)
    out.setflags(write=False)
    return out


@njit(cache=True)
def _step_points(image, outline, normals, off, cloth, shade, take):
    """``steps_along``'s points (M, N, 2) [px] and strengths (M, N) on the search lines ``take`` (M, N) bool; a
    line not taken is not sampled: its point is its outline point, its strength 0."""
    M, N, K = outline.shape[0], outline.shape[1], off.size
    h, w = image.shape[0], image.shape[1]
    pts = np.empty((M, N, 2))
    strength = np.empty((M, N))
    # the C-ordered image's bytes, indexed unsigned (pixel (x, y)'s channel c at 3 (y w + x) + c): no
    # negative-index test at each of a sample's twelve reads
    flat = image.ravel()
    row, px = np.uint64(3 * w), np.uint64(3)
    prof = np.empty((K, 3))
    e = np.empty(K - 1)
    full = np.empty(K - 1)
    fxs, fys, at = np.empty(K), np.empty(K), np.empty(K, np.uint64)
    for m in range(M):
        for n in range(N):
            ox, oy = outline[m, n, 0], outline[m, n, 1]
            if not take[m, n]:
                pts[m, n, 0], pts[m, n, 1], strength[m, n] = ox, oy, 0.0
                continue
            dx, dy = normals[m, n, 0], normals[m, n, 1]
            # the samples' places first, in a loop of their own that the compiler vectorises (with the
            # reads below in the same loop: 0.82 -> 0.69 of the time)
            for k in range(K):
                x = min(max(ox + off[k] * dx, 0.0), w - 1.001)
                y = min(max(oy + off[k] * dy, 0.0), h - 1.001)
                x0, y0 = int(x), int(y)
                fxs[k], fys[k] = x - x0, y - y0
                at[k] = np.uint64(y0) * row + px * np.uint64(x0)
            for k in range(K):
                fx, fy, p = fxs[k], fys[k], at[k]
                for c in range(3):
                    q = p + np.uint64(c)
                    i00, i01 = LEVELS[flat[q]], LEVELS[flat[q + px]]
                    i10, i11 = LEVELS[flat[q + row]], LEVELS[flat[q + row + px]]
                    a = i00 + (i01 - i00) * fx
                    prof[k, c] = a + (i10 + (i11 - i10) * fx - a) * fy
            best, kb = -1.0, 0
            for k in range(K - 1):
                s = 0.0
                a = 0.0
                for c in range(3):
                    d = prof[k + 1, c] - prof[k, c]
                    s += d * d
                    a += d * cloth[c]
                full[k] = s
                s -= shade * a * a
                e[k] = s
                if s > best:
                    best, kb = s, k
            kb = min(max(kb, 1), K - 3)
            e0, e1, e2 = e[kb - 1], e[kb], e[kb + 1]
            den = e0 - 2.0 * e1 + e2
            sub = min(max(0.5 * (e0 - e2) / den, -0.5), 0.5) if den < 0 else 0.0
            # difference k sits between samples k and k + 1
            pos = off[0] + (kb + 0.5 + sub) * STEP
            pts[m, n, 0] = ox + pos * dx
            pts[m, n, 1] = oy + pos * dy
            strength[m, n] = math.sqrt(full[kb])
    return pts, strength


def step_points(image: np.ndarray, centres: np.ndarray, radii: np.ndarray, half_width: float,
                cloth: np.ndarray | None = None, along: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Outline points of circles (centres (M, 2), radii (M,) [px, pixel centres at integers]) by
    the strongest colour step along N_RAYS normals: ``steps_along`` their circles."""
    dirs = ray_directions()
    outline = centres[:, None, :] + radii[:, None, None] * dirs[None]
    return steps_along(image, outline, np.broadcast_to(dirs, outline.shape), half_width, cloth, along)


def steps_along(image: np.ndarray, outline: np.ndarray, normals: np.ndarray, half_width: float,
                cloth: np.ndarray | None = None, along: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Outline points by the strongest colour step along each normal of predicted outlines.

    image: (h, w, 3) uint8 (any colour space, lightly smoothed); outline: (M, N, 2)
    predicted outline points [px, pixel centres at integers], normals: (M, N, 2) their unit
    normals; half_width: how far either side of each point to search [px]; cloth: (3,) the cloth's
    colour direction in the image's space, and along: the weight of a difference along it (a
    shade: a shadow, a lighting gradient, a halo) against one across it (a change of colour), 1
    for plain colour differences. Samples every STEP px (bilinear), differences neighbours, and
    places each point at the parabola vertex through the strongest weighted difference and its two
    neighbours.
    Returns (points (M, N, 2) [px], strength (M, N): the root of the squared colour difference per
    STEP there, unweighted, in the image's units).
    """
    off = np.arange(-half_width, half_width + 1e-9, STEP)
    c = np.zeros(3) if cloth is None else np.asarray(cloth, np.float64) / np.linalg.norm(cloth)
    return _step_points(np.ascontiguousarray(image), np.ascontiguousarray(outline, np.float64),
                        np.ascontiguousarray(normals, np.float64), off, c, 1.0 - along * along,
                        np.ones(outline.shape[:2], np.bool_))


@njit(cache=True)
def _new_squares(centres, reach, done, slack, h, w):
    """(K, 4) the squares (x0, y0, x1, y1) [px, ends exclusive] that ``SmoothedNear.about`` smooths for
    centres (M, 2) [px, (u, v), inside the h x w image]: about each centre in turn whose square of its ``reach``
    (M,) [px] (reaching 2 px further on the high sides), cut to the image, lies inside none of the squares ``done``
    (J, 4) and none picked before it, that square ``slack`` px wider, cut to the image. (A square inside the
    union of others but no one of them is smoothed again, the same values: cheaper than a frame-sized mask
    of the pixels done, its zeroing, marking and scans, on real frames.)"""
    out = np.empty((centres.shape[0], 4), np.int64)
    k = 0
    for i in range(centres.shape[0]):
        u, v = centres[i, 0], centres[i, 1]
        xa, xb = max(0, int(u - reach[i])), min(w, int(u + reach[i]) + 2)
        ya, yb = max(0, int(v - reach[i])), min(h, int(v + reach[i]) + 2)
        if _inside_any(done, done.shape[0], xa, ya, xb, yb) or _inside_any(out, k, xa, ya, xb, yb):
            continue
        out[k, 0], out[k, 1] = max(0, xa - slack), max(0, ya - slack)
        out[k, 2], out[k, 3] = min(w, xb + slack), min(h, yb + slack)
        k += 1
    return out[:k]


@njit(cache=True)
def _inside_any(squares, n, x0, y0, x1, y1):
    """Whether the window [x0, x1) x [y0, y1) lies inside any of the first n squares (x0, y0, x1, y1)."""
    for j in range(n):
        if squares[j, 0] <= x0 and squares[j, 1] <= y0 and x1 <= squares[j, 2] and y1 <= squares[j, 3]:
            return True
    return False


@njit(cache=True)
def _reflect_101(p, n):
    """Index p folded into [0, n) as cv2's BORDER_REFLECT_101 folds it (cv2.borderInterpolate)."""
    if n == 1:
        return 0
    while p < 0 or p >= n:
        p = -p if p < 0 else 2 * n - 2 - p
    return p


@njit(cache=True)
def _copy_run(src, a, dst, b, n):
    """dst[b:b + n] = src[a:a + n] (1-D uint8, a, b >= 0): indexed unsigned, which spares the compiler
    the negative-index test and lets it copy many bytes at a time (15 x a signed loop's speed)."""
    a, b = np.uint64(a), np.uint64(b)
    for j in range(np.uint64(n)):
        dst[b + j] = src[a + j]


@njit(cache=True)
def _gather_windows(image, C, squares, pad, hh, ww, strip):
    """Into strip (hh, K * ww * C): side by side, each square's (K, 4: x0, y0, x1, y1 [px]) window of
    image (h, w * C: C channels a pixel) from pad px above and left of it, hh x ww px, as
    cv2.copyMakeBorder (BORDER_REFLECT_101) fills out the part of the window inside the image where the
    image's edge cuts it."""
    h, w = image.shape[0], image.shape[1] // C
    n = ww * C
    for k in range(squares.shape[0]):
        top, left = squares[k, 1] - pad, squares[k, 0] - pad
        ya, xa = max(0, top), max(0, left)
        ny, nx = min(h, top + hh) - ya, min(w, left + ww) - xa
        for i in range(hh):
            src, dst = image[ya + _reflect_101(top + i - ya, ny)], strip[i]
            if 0 <= left and left + ww <= w:
                _copy_run(src, left * C, dst, k * n, n)
                continue
            for j in range(ww):                 # (a window cut by the image's edge: pixel by pixel)
                x = xa + _reflect_101(left + j - xa, nx)
                _copy_run(src, x * C, dst, (k * ww + j) * C, C)


@njit(cache=True)
def _scatter_squares(smooth, C, squares, pad, ww, out):
    """Each square's (K, 4: x0, y0, x1, y1 [px]) pixels of the strip smooth (hh, K * ww * C), as
    ``_gather_windows`` laid its windows out, into out (h, w * C: C channels a pixel) at the square's place."""
    for k in range(squares.shape[0]):
        x0, y0, x1, y1 = squares[k, 0], squares[k, 1], squares[k, 2], squares[k, 3]
        for y in range(y0, y1):
            _copy_run(smooth[pad + y - y0], (k * ww + pad) * C, out[y], x0 * C, (x1 - x0) * C)


class SmoothedNear:
    """A uint8 image (h, w, C) smoothed by a Gaussian of ``sigma`` [px] only where asked for (a
    frame's balls' search lines cover about a seventh of it): ``about`` smooths a square about each
    given centre that no square smoothed before holds, SLACK px wider than asked (a centre that
    moves a little needs no more), each padded by more than the kernel's half-width, so that there
    the result is ``cv2.GaussianBlur`` of the whole image (its border rule at the image's edges).
    Pixels never asked for hold no defined value."""

    SLACK = 3

    def __init__(self, image: np.ndarray, sigma: float):
        self.image, self.sigma = image, float(sigma)
        self.out = np.empty(image.shape, image.dtype)     # (C-ordered: its reshaped view below is one)
        # (h, w * C) views of both (C channels a pixel) for the compiled copies
        self._channels = int(np.prod(image.shape[2:]))
        self._image, self._out = (a.reshape(a.shape[0], -1) for a in (image, self.out))
        self.squares = np.zeros((0, 4), np.int64)        # (x0, y0, x1, y1) [px]: the squares smoothed
        self.pad = int(math.ceil(4 * sigma)) + 1

    def about(self, centres: np.ndarray, reach) -> np.ndarray:
        """(h, w, C) the smoothed image, smoothed now on every pixel that a bilinear sample within
        ``reach`` px (a square; one for all, or (M,) one each) of each centre (M, 2) [px, (u, v)] reads. The
        squares' padded windows are smoothed side by side in one strip (cv2's cost per call and per short row
        is most of a small window's), a window cut by the image's edge filled out with the image's own border
        rule: each square's pixels read only their own window."""
        h, w = self.image.shape[:2]
        pad = self.pad
        # (a search line's samples are clipped to the image: a centre off it reads as one on its edge)
        centres = np.clip(np.asarray(centres, np.float64), 0, (w - 1, h - 1))
        sq = _new_squares(centres, np.broadcast_to(np.asarray(reach, np.float64), centres.shape[:1]), self.squares,
                          self.SLACK, h, w)
        if not sq.shape[0]:
            return self.out
        self.squares = np.concatenate([self.squares, sq])
        ww, hh = int((sq[:, 2] - sq[:, 0]).max()) + 2 * pad, int((sq[:, 3] - sq[:, 1]).max()) + 2 * pad
        C = self._channels
        strip = np.empty((hh, ww * sq.shape[0]) + self.image.shape[2:], self.image.dtype)
        _gather_windows(self._image, C, sq, pad, hh, ww, strip.reshape(hh, -1))
        smooth = cv2.GaussianBlur(strip, (0, 0), self.sigma)
        _scatter_squares(smooth.reshape(hh, -1), C, sq, pad, ww, self._out)
        return self.out
