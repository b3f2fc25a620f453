"""The cloth: its colour and lighting, what is not cloth, and (without a table model) where it is.

* ``fit_cloth``: the cloth's colour direction (a shadow scales a colour and keeps its direction)
  and a quadratic surface of its lit brightness, from a sparse grid of pixels, per frame;
* ``foreground``: pixels off the cloth's colour, or darker than any shadow;
* ``cloth_region`` (pixel-only mode): the play area as the convex hull of the largest connected
  region of cloth-coloured pixels; balls frozen on a cushion and in a jaw lie inside it, the rails,
  diamonds, markers and the room outside it;
* ``hole_mask`` (pixel-only mode): dark regions wider than a ball (pocket holes), which no ball
  centre can be in.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.balls import srgb_to_linear

CHROMA_TAN = np.tan(np.radians(5.0))   # colour further than this angle from the cloth's: not cloth
DARK_FRACTION = 0.42                   # darker than this share of the lit cloth: not cloth (the 8)
HOLE_LIT = 0.3                         # over a pocket only colours this bright (share of cloth) count
HOLE_DARK = 0.25                       # pocket holes: darker than this share of the lit cloth
HOLE_WIDER = 1.2                       # ... in a region holding a disc this many ball radii wide


@dataclass(frozen=True)
class ClothModel:
    """chroma: (3,) unit direction of the cloth's 8-bit BGR colour; coef: (6,) quadratic brightness
    surface b(u, v) = c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2 along ``chroma`` (u, v in
    half-resolution pixels scaled by ``scale``); level: the median brightness along ``chroma``."""
    chroma: np.ndarray
    coef: np.ndarray
    scale: float
    level: float

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
    idx = np.flatnonzero(ok)[near]
    a = np.einsum("ij,j->i", s[idx], c)
    uu, vv = u[idx] * scale, v[idx] * scale
    A = np.stack([np.ones_like(uu), uu, vv, uu * uu, uu * vv, vv * vv], axis=1)
    coef = _lstsq(A, a)
    keep = a > 0.85 * np.einsum("ij,j->i", A, coef)
    if keep.sum() >= 12:
        coef = _lstsq(A[keep], a[keep])
    return ClothModel(chroma=c, coef=coef, scale=scale, level=float(np.median(a)))


def _lstsq(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares by the normal equations, without BLAS threads (small systems, every frame)."""
    return np.linalg.solve(np.einsum("ki,kj->ij", A, A) + 1e-9 * np.eye(A.shape[1]), np.einsum("ki,k->i", A, b))


def foreground(half: np.ndarray, model: ClothModel, bright: np.ndarray,
               hole: np.ndarray | None = None) -> np.ndarray:
    """(h, w) uint8 mask (255 = not cloth) of a BGR image given the cloth model.

    bright: (h, w) the lit cloth brightness ``model.brightness`` at each pixel; hole: (h, w) bool
    where the empty table shows a pocket (dark there is the hole: only colour counts).
    """
    a, off2 = cloth_level(half, model, bright)
    a_floor = np.maximum(a, 0.25 * bright)
    off = off2 > (CHROMA_TAN ** 2) * a_floor * a_floor
    dark = a < DARK_FRACTION * bright
    if hole is not None:          # in a pocket dark is the hole, and near-black colour is noise
        dark &= ~hole
        off &= ~hole | (a > HOLE_LIT * bright)
    return ((off | dark).astype(np.uint8)) * 255


def cloth_level(half: np.ndarray, model: ClothModel, bright: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, off2): each pixel's brightness along the cloth's colour, and its squared distance from
    that direction (both (h, w) float32, 8-bit units) of a BGR image."""
    f = half.astype(np.float32)
    a = cv2.transform(f, model.chroma.reshape(1, 3).astype(np.float32))
    n2 = cv2.transform(f * f, np.ones((1, 3), np.float32))
    return a, n2 - a * a


def cloth_region(half: np.ndarray, model: ClothModel, bright: np.ndarray) -> np.ndarray:
    """(h, w) uint8 mask (1 = play area) of a BGR image: the convex hull of the largest 4-connected
    region of cloth-coloured, lit pixels (within CHROMA_TAN of the cloth's colour, brighter than
    DARK_FRACTION of the lit cloth), after a 3x3 opening. The cushions are cloth too, so the hull
    reaches the cushion backs and takes in the pocket jaws; it does not reach the rails.
    Raises ValueError if no cloth-coloured region is found."""
    a, off2 = cloth_level(half, model, bright)
    cloth = ((off2 <= (CHROMA_TAN ** 2) * a * a) & (a > DARK_FRACTION * bright)).astype(np.uint8)
    cloth = cv2.morphologyEx(cloth, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(cloth, connectivity=4)
    if n < 2:
        raise ValueError("no cloth-coloured region found in the image")
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    hull = cv2.convexHull(cv2.findNonZero((lab == big).astype(np.uint8)))
    region = np.zeros(cloth.shape, np.uint8)
    cv2.fillConvexPoly(region, hull, 1)
    return region


def hole_mask(half: np.ndarray, model: ClothModel, bright: np.ndarray, radius: float) -> np.ndarray:
    """(h, w) bool: pixels of dark regions (below HOLE_DARK of the lit cloth) that hold a disc of
    HOLE_WIDER ball radii (``radius`` in these pixels): pocket holes. A ball, even the black one,
    holds no such disc (a morphological opening removes it)."""
    a, _ = cloth_level(half, model, bright)
    dark = (a < HOLE_DARK * bright).astype(np.uint8)
    k = 2 * int(round(HOLE_WIDER * radius)) + 1
    return cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
