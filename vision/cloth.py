"""The cloth: its colour and lighting, what is not cloth, and (without a table model) where it is.

* ``fit_cloth``: the cloth's colour direction (a shadow scales a colour and keeps its direction)
  and a quadratic surface of its lit brightness, from a sparse grid of pixels, per frame;
* ``foreground``: pixels off the cloth's colour, or darker than any shadow;
* ``hole_mask`` (pixel-only mode): dark regions wider than a ball (pocket holes), which no ball
  centre can be in;
* ``unlike_cloth`` (pixel-only mode): how much of a fitted circle's inside is clearly not cloth (a
  circle of outline points can also form on a cushion's shadow line or a pocket's liner).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from planner.jit import njit
from vision.balls import srgb_to_linear

CHROMA_TAN = np.tan(np.radians(5.0))   # colour further than this angle from the cloth's: not cloth
DARK_FRACTION = 0.42                   # darker than this share of the lit cloth: not cloth (the 8)
HOLE_LIT = 0.3                         # over a pocket only colours this bright (share of cloth) count
HOLE_DARK_SHARE = 0.4                  # pocket holes: darker than this share of the lit cloth (a dark cloth too)
HOLE_WIDER = 1.0                       # ... in a region holding a disc this many ball radii wide
UNLIKE_CHROMA_DEG = 12.0               # inside a ball: colour this far from the cloth's ...
UNLIKE_BRIGHT = 1.3                    # ... or this much brighter than the lit cloth (white, highlights) ...
UNLIKE_DARK = 0.5                      # ... or darker than this share of it (black; not a soft shadow)
LIT_BIN = 0.05                         # lit cloth: histogram bin of the white-light share t (``fit_cloth``)
LIT_MIN_SHARE = 0.002                  # ... a bin of the cloth's run of t holds at least this share of samples
LIT_MAX = 3.0                          # ... and |t| of cloth stays below this (a white ball is far beyond)
LIT_WHITE = 0.25                       # ... and reaches at most this share of the way to white (a white ball does not)
LIT_MODE_SHARE = 0.15                  # ... used only when this share of it lies beyond 2 CHROMA_TAN (a lit area)


@dataclass(frozen=True)
class ClothModel:
    """chroma: (3,) unit direction of the cloth's 8-bit BGR colour; coef: (6,) quadratic brightness
    surface b(u, v) = c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2 along ``chroma`` (u, v in
    half-resolution pixels scaled by ``scale``); level: the median brightness along ``chroma``;
    light: (3,) unit direction orthogonal to ``chroma`` in the plane of ``chroma`` and white;
    lit: (lo, hi) the range of t = (colour . light) / (colour . chroma) the cloth spans (a
    projector's white light added to part of the cloth moves its colour towards white: t > 0;
    (0, 0) when the whole cloth has one colour)."""
    chroma: np.ndarray
    coef: np.ndarray
    scale: float
    level: float
    light: np.ndarray
    lit: tuple

    @property
    def linear_colour(self) -> np.ndarray:
        """(3,) the typical lit cloth colour in linear light (BGR)."""
        return srgb_to_linear(np.clip(self.chroma * self.level, 0, 255))

    def brightness(self, u, v) -> np.ndarray:
        u, v = np.asarray(u, np.float64) * self.scale, np.asarray(v, np.float64) * self.scale
        c = self.coef
        return c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v


def fit_cloth(samples: np.ndarray, u: np.ndarray, v: np.ndarray, scale: float) -> ClothModel:
    """Fit the cloth model to sampled BGR pixels (N, 3) at (u, v) (N,), most of which are cloth.

    The chroma is the dominant colour direction (the fullest cell of a chromaticity histogram, then
    the mean of the samples within twice CHROMA_TAN of it, twice); the brightness surface is a least-squares
    quadratic refitted once without the samples darker than 85 % of it (shadows).
    Raises ValueError if no cloth is seen.
    """
    s = samples.astype(np.float64)
    norm = np.linalg.norm(s, axis=1)
    ok = norm > 20
    if ok.sum() < 12:
        raise ValueError("no cloth colour found: the sampled table area is black")
    unit = s[ok] / norm[ok, None]
    # the commonest colour direction: the fullest cell of a chromaticity histogram (O(N), no BLAS)
    chrom = unit[:, :2] / unit.sum(axis=1, keepdims=True)
    cell = np.clip((chrom * 24).astype(np.intp), 0, 23)
    key = cell[:, 0] * 24 + cell[:, 1]
    c = unit[key == np.argmax(np.bincount(key, minlength=576))].mean(axis=0)
    c /= np.linalg.norm(c)
    for _ in range(2):
        cos = np.einsum("ij,j->i", unit, c)
        near = cos > np.cos(np.arctan(2 * CHROMA_TAN))
        if near.sum() < 12:
            raise ValueError("no dominant cloth colour found in the table area")
        c = unit[near].mean(axis=0)
        c /= np.linalg.norm(c)
    light, lit = _lit_range(s[ok], c)
    a_ok, off = off_cloth(s[ok], c, light, lit[0], lit[1])
    near = off <= 2 * CHROMA_TAN * a_ok
    idx = np.flatnonzero(ok)[near]
    a = np.einsum("ij,j->i", s[idx], c)
    uu, vv = u[idx] * scale, v[idx] * scale
    A = np.stack([np.ones_like(uu), uu, vv, uu * uu, uu * vv, vv * vv], axis=1)
    coef = _lstsq(A, a)
    keep = a > 0.85 * np.einsum("ij,j->i", A, coef)
    if keep.sum() >= 12:
        coef = _lstsq(A[keep], a[keep])
    return ClothModel(chroma=c, coef=coef, scale=scale, level=float(np.median(a)), light=light, lit=lit)


def _plane_coords(s: np.ndarray, chroma: np.ndarray, light: np.ndarray):
    """(t, perp2) of colours s (N, 3): t = (s . light) / (s . chroma), perp2 the squared distance
    of s from the plane of ``chroma`` and ``light``."""
    a = s @ chroma
    b = s @ light
    return b / np.maximum(a, 1e-9), np.maximum(np.einsum("ij,ij->i", s, s) - a * a - b * b, 0.0)


def _lit_range(s: np.ndarray, chroma: np.ndarray):
    """(light (3,), (lo, hi)): the unit direction towards white orthogonal to ``chroma``, and the
    run of t (``_plane_coords``) about 0 that the samples s (N, 3) near the plane fill without a gap
    (LIT_BIN bins each holding LIT_MIN_SHARE of the samples): the cloth with and without a
    projector's light added. The run ends at the inner edges of its end bins (noise does not widen it)
    and at most LIT_WHITE of the way to white and CHROMA_TAN short of it (a white ball stays off
    the cloth); (0, 0) unless LIT_MODE_SHARE
    of the run lies beyond 2 CHROMA_TAN (one colour with noise, stripes of a real cloth's texture)."""
    white = np.ones(3) / np.sqrt(3.0)
    light = white - (white @ chroma) * chroma
    n = np.linalg.norm(light)
    if n < 1e-3:                       # a grey cloth: white light keeps its colour
        return np.zeros(3), (0.0, 0.0)
    light /= n
    t, perp2 = _plane_coords(s, chroma, light)
    a = s @ chroma
    inplane = (perp2 <= (CHROMA_TAN * a) ** 2) & (np.abs(t) < LIT_MAX)
    nb = int(round(LIT_MAX / LIT_BIN))
    counts = np.bincount(np.floor(t[inplane] / LIT_BIN).astype(np.intp) + nb, minlength=2 * nb)
    full = counts >= max(3, LIT_MIN_SHARE * s.shape[0])
    lo = hi = nb                       # the bin [0, LIT_BIN)
    while lo > 0 and full[lo - 1]:
        lo -= 1
    while hi < 2 * nb - 1 and full[hi + 1]:
        hi += 1
    t_lo, t_hi = (lo + 1 - nb) * LIT_BIN, (hi - nb) * LIT_BIN     # the end bins' inner edges
    t_white = (white @ light) / (white @ chroma)
    run = inplane & (t >= t_lo - LIT_BIN) & (t <= t_hi + LIT_BIN)
    if (run & (np.abs(t) > 2 * CHROMA_TAN)).sum() < LIT_MODE_SHARE * run.sum():
        return light, (0.0, 0.0)
    return light, (float(min(0.0, t_lo)), float(max(0.0, min(t_hi, LIT_WHITE * t_white, t_white - CHROMA_TAN))))


def _lstsq(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares by the normal equations, without BLAS threads (small systems, every frame)."""
    return np.linalg.solve(np.einsum("ki,kj->ij", A, A) + 1e-9 * np.eye(A.shape[1]), np.einsum("ki,k->i", A, b))


CLOTH = 1          # ``classify`` bits: cloth-coloured and lit (the play area's region)
FOREGROUND = 2     # ... not cloth (``foreground``)
HOLE_DARK = 4      # ... darker than HOLE_DARK_SHARE of the lit cloth (pocket holes, the black ball)


@njit(cache=True)
def _off_cloth(b, g, r, chroma, light, lo, hi):
    """(a, off2) of one BGR colour: a its component along ``chroma``, off2 its squared distance from
    the wedge of cloth colours (the chroma plus t a of ``light``, lo <= t <= hi)."""
    a = b * chroma[0] + g * chroma[1] + r * chroma[2]
    q = b * light[0] + g * light[1] + r * light[2]
    e = q - min(max(q, lo * a), hi * a)
    return a, max(b * b + g * g + r * r - a * a - q * q, 0.0) + e * e


@njit(cache=True)
def off_cloth(f, chroma, light, lo, hi):
    """(a (N,), off (N,)) of colours f (N, 3) (``_off_cloth``; off the distance, not squared)."""
    n = f.shape[0]
    a, off = np.empty(n), np.empty(n)
    for i in range(n):
        a[i], o2 = _off_cloth(f[i, 0], f[i, 1], f[i, 2], chroma, light, lo, hi)
        off[i] = np.sqrt(o2)
    return a, off


@njit(cache=True)
def _classify(half, chroma, light, lo, hi, bright, hole, tan2, dark_fraction, hole_lit, hole_dark):
    h, w = half.shape[0], half.shape[1]
    out = np.zeros((h, w), np.uint8)
    with_hole = hole.shape[0] == h
    for y in range(h):
        for x in range(w):
            b, g, r = float(half[y, x, 0]), float(half[y, x, 1]), float(half[y, x, 2])
            a, off2 = _off_cloth(b, g, r, chroma, light, lo, hi)
            lit = bright[y, x]
            bits = 0
            if off2 <= tan2 * a * a and a > dark_fraction * lit:
                bits |= 1
            a_floor = max(a, 0.25 * lit)
            off = off2 > tan2 * a_floor * a_floor
            dark = a < dark_fraction * lit
            if with_hole and hole[y, x]:      # in a pocket dark is the hole, and near-black colour is noise
                dark = False
                off = off and a > hole_lit * lit
            if off or dark:
                bits |= 2
            if a < hole_dark * lit:
                bits |= 4
            out[y, x] = bits
    return out


def classify(half: np.ndarray, model: ClothModel, bright: np.ndarray,
             hole: np.ndarray | None = None) -> np.ndarray:
    """(h, w) uint8 bits of each pixel of a BGR uint8 image given the cloth model: CLOTH (within
    CHROMA_TAN of the cloth's colour and brighter than DARK_FRACTION of the lit cloth), FOREGROUND
    (further than CHROMA_TAN from the cloth's colour, judged against at least a quarter of the lit
    brightness, or darker than DARK_FRACTION of it), HOLE_DARK (darker than HOLE_DARK_SHARE of it).

    bright: (h, w) the lit cloth brightness ``model.brightness`` at each pixel; hole: (h, w) bool
    where the empty table shows a pocket (there dark is the hole, not foreground: only colour
    brighter than HOLE_LIT of the lit cloth counts)."""
    none = np.zeros((1, 1), np.bool_)
    return _classify(np.ascontiguousarray(half, np.uint8), model.chroma.astype(np.float64),
                     model.light.astype(np.float64), float(model.lit[0]), float(model.lit[1]),
                     np.ascontiguousarray(bright, np.float32), none if hole is None else np.ascontiguousarray(hole),
                     CHROMA_TAN ** 2, DARK_FRACTION, HOLE_LIT, HOLE_DARK_SHARE)


def foreground(half: np.ndarray, model: ClothModel, bright: np.ndarray,
               hole: np.ndarray | None = None) -> np.ndarray:
    """(h, w) uint8 mask (255 = not cloth) of a BGR image given the cloth model (``classify``)."""
    return (classify(half, model, bright, hole) & FOREGROUND) * np.uint8(255 // FOREGROUND)


def hole_mask(classes: np.ndarray, radius: float) -> np.ndarray:
    """(h, w) bool: pixels of dark regions (HOLE_DARK in ``classify``'s bits) that hold a disc of
    HOLE_WIDER ball radii (``radius`` in these pixels; the disc's side in pixels rounded to an
    odd number at half this resolution): pocket holes. A ball, even the black one, holds no such
    disc. The opening is done at half this resolution (a hole only has to be told from a ball)."""
    h, w = classes.shape
    dark = cv2.resize((classes & HOLE_DARK) * np.uint8(255 // HOLE_DARK), (w // 2, h // 2),
                      interpolation=cv2.INTER_AREA) > 127
    k = 2 * int(round(HOLE_WIDER * radius / 2)) + 1
    opened = cv2.morphologyEx(dark.astype(np.uint8), cv2.MORPH_OPEN,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.resize(opened, (w, h), interpolation=cv2.INTER_NEAREST) > 0


def unlike_cloth(image: np.ndarray, model: ClothModel, centres: np.ndarray, radii: np.ndarray,
                 hole: np.ndarray) -> np.ndarray:
    """(M,) share of the inside of each circle that is clearly not cloth, in a full-resolution BGR
    uint8 image (``model`` fitted at half resolution): 49 samples (the centre and 16 on each of the
    rings at 0.3, 0.55 and 0.8 radii) of centres (M, 2) and radii (M,) [px]. A sample is unlike
    cloth when its colour is more than UNLIKE_CHROMA_DEG from the cloth's, or it is brighter than
    UNLIKE_BRIGHT or darker than UNLIKE_DARK times the lit cloth there, and is not in a pocket hole
    (``hole``: (h/2, w/2) bool, ``hole_mask``). A ball of any colour, the black and the white
    included, scores near 1; cloth, its shadows, a pocket's liner and its rim near 0."""
    t = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = np.stack([np.cos(t), np.sin(t)], axis=1)
    offs = np.concatenate([np.zeros((1, 2))] + [f * ring for f in (0.3, 0.55, 0.8)])      # (49, 2)
    p = centres[:, None, :] + radii[:, None, None] * offs[None]
    h, w = image.shape[:2]
    u = np.clip(np.rint(p[..., 0]).astype(np.intp), 0, w - 1)
    v = np.clip(np.rint(p[..., 1]).astype(np.intp), 0, h - 1)
    f = image[v, u].astype(np.float64)
    a = f @ model.chroma
    perp = np.sqrt(np.maximum(np.einsum("mkc,mkc->mk", f, f) - a * a, 0.0))
    lit = model.brightness((p[..., 0] - 0.5) / 2, (p[..., 1] - 0.5) / 2)
    off = perp > np.tan(np.radians(UNLIKE_CHROMA_DEG)) * np.maximum(a, 1.0)
    unlike = off | (a > UNLIKE_BRIGHT * lit) | (a < UNLIKE_DARK * lit)
    in_hole = hole[np.minimum(v // 2, hole.shape[0] - 1), np.minimum(u // 2, hole.shape[1] - 1)]
    return (unlike & ~in_hole).mean(axis=1)
