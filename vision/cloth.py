"""The cloth: its colour and lighting, what is not cloth, and (without a table model) where it is.

* ``fit_cloth``: the cloth's colour direction (a shadow scales a colour and keeps its direction)
  and a quadratic surface of its lit brightness, from a sparse grid of pixels, per frame;
* ``lit_surface`` (registered mode, a grey cloth): a brightness surface that follows a lit area;
* ``foreground``: pixels off the cloth's colour, or darker than any shadow (or, if asked, much
  brighter than the lit cloth);
* ``hole_mask`` (pixel-only mode): dark regions wider than a ball (pocket holes), which no ball
  centre can be in;
* ``unlike_cloth`` (pixel-only mode): how much of a fitted circle's inside is clearly not cloth (a
  circle of outline points can also form on a cushion's shadow line or a pocket's liner);
* ``added_light_field`` / ``take_off_light`` / ``light_taken_off`` (registered mode): the light a
  projector adds across the cloth, fitted and taken off the frame in linear light.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from planner.jit import njit
from vision.area_resize import resize_area
from vision.balls import LINEAR_LUT, SRGB_LUT, srgb_to_linear

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
LIT_MODE_SHARE = 0.15                  # ... used only when this share of it lies beyond 2 CHROMA_TAN (a lit area), or
                                       # between CHROMA_TAN and 2 CHROMA_TAN (a light that moves the cloth's colour
                                       # past the foreground's angle but less than twice it: one patch of one colour;
                                       # sheen and texture spread thin there)
LIT_CONE_DEG = 25.0                    # a tinted light's direction: from the samples this near the cloth's colour


def _surface(c, u, v):
    """The lit cloth's quadratic brightness surface c (6,) at scaled coordinates u, v (scalars or
    arrays of one shape): c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2. Plain arithmetic, so the same
    function serves numpy arrays and, compiled below as ``_surface_jit``, the numba kernels."""
    return c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v


_surface_jit = njit(cache=True)(_surface)


@njit(cache=True)
def colour_angle(b0, b1, b2, c0, c1, c2):
    """The angle [deg] between two colours b, c (any channel order, any lengths): degrees(arccos(clip(b . c /
    max(|b| |c|, 1e-12), -1, 1)))."""
    nb = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
    nc = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
    cos = (b0 * c0 + b1 * c1 + b2 * c2) / max(nb * nc, 1e-12)
    return np.degrees(np.arccos(min(max(cos, -1.0), 1.0)))


@dataclass(frozen=True)
class ClothModel:
    """chroma: (3,) unit direction of the cloth's 8-bit BGR colour; coef: (6,) quadratic brightness
    surface b(u, v) = c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2 along ``chroma`` (u, v in
    half-resolution pixels scaled by ``scale``); level: the median brightness along ``chroma``;
    light: (3,) unit direction orthogonal to ``chroma`` in the plane of ``chroma`` and white (or, for
    a tinted projector's light, in the plane the cloth's colours span: ``_lit_range``);
    lit: (lo, hi) the range of t = (colour . light) / (colour . chroma) the cloth spans (a
    projector's white light added to part of the cloth moves its colour towards white: t > 0;
    (0, 0) when the whole cloth has one colour)."""
    chroma: np.ndarray
    coef: np.ndarray
    scale: float
    level: float
    light: np.ndarray
    lit: tuple

    @functools.cached_property
    def linear_colour(self) -> np.ndarray:
        """(3,) read-only: the typical lit cloth colour in linear light (BGR) (found once per model: a frame
        reads it five times)."""
        colour = srgb_to_linear(np.clip(self.chroma * self.level, 0, 255))
        colour.setflags(write=False)
        return colour

    def brightness(self, u, v) -> np.ndarray:
        u, v = np.asarray(u, np.float64) * self.scale, np.asarray(v, np.float64) * self.scale
        return _surface(self.coef, u, v)


def fit_cloth(samples: np.ndarray, u: np.ndarray, v: np.ndarray, scale: float,
              tinted: bool = False) -> ClothModel:
    """Fit the cloth model to sampled BGR pixels (N, 3) at (u, v) (N,), most of which are cloth.

    The chroma is the dominant colour direction (the fullest cell of a chromaticity histogram, then
    the mean of the samples within twice CHROMA_TAN of it, twice); the brightness surface is a least-squares
    quadratic refitted once without the samples darker than 85 % of it (shadows); the lit wedge as
    ``_lit_range`` (``tinted``: a tinted light's direction may be taken from the samples, for samples
    of the table's cloth only). Raises ValueError if no cloth is seen.
    """
    s = samples.astype(np.float64)
    ok, unit, c = _fullest_cell(s)
    if ok.sum() < 12:
        raise ValueError("no cloth colour found: the sampled table area is black")
    s_ok = s[ok]
    c /= np.linalg.norm(c)
    for _ in range(2):
        n, c = _near_mean(unit, c, np.cos(np.arctan(2 * CHROMA_TAN)))
        if n < 12:
            raise ValueError("no dominant cloth colour found in the table area")
        c /= np.linalg.norm(c)
    light, lit = _lit_range(s_ok, c, tinted)
    a_ok, off = off_cloth(s_ok, c, light, lit[0], lit[1])
    near = off <= 2 * CHROMA_TAN * a_ok
    idx = np.flatnonzero(ok)[near]
    a = np.einsum("ij,j->i", s[idx], c)
    uu, vv = u[idx] * scale, v[idx] * scale
    coef = _surface_lstsq(a, uu, vv, np.ones(a.size, np.bool_))
    keep = _above_share(a, uu, vv, coef, 0.85)
    if keep.sum() >= 12:
        coef = _surface_lstsq(a, uu, vv, keep)
    return ClothModel(chroma=c, coef=coef, scale=scale, level=float(np.median(a)), light=light, lit=lit)


@njit(cache=True)
def _fullest_cell(s):
    """(ok (N,) bool: the colours s (N, 3) float64 with a norm above 20, unit (K, 3): those colours over
    their norms, the mean (3,) of the unit colours in the fullest cell of a 24 x 24 chromaticity
    histogram (the first of equals); zeros when none is ok): ``fit_cloth``'s commonest colour direction
    before it is normalised."""
    n = s.shape[0]
    ok = np.empty(n, np.bool_)
    norm = np.empty(n)
    k = 0
    for i in range(n):
        norm[i] = math.sqrt(s[i, 0] * s[i, 0] + s[i, 1] * s[i, 1] + s[i, 2] * s[i, 2])
        ok[i] = norm[i] > 20
        k += ok[i]
    unit = np.empty((k, 3))
    key = np.empty(k, np.int64)
    counts = np.zeros(576, np.int64)
    j = 0
    for i in range(n):
        if ok[i]:
            for c in range(3):
                unit[j, c] = s[i, c] / norm[i]
            total = unit[j, 0] + unit[j, 1] + unit[j, 2]
            c0 = min(max(int(unit[j, 0] / total * 24), 0), 23)
            c1 = min(max(int(unit[j, 1] / total * 24), 0), 23)
            key[j] = c0 * 24 + c1
            counts[key[j]] += 1
            j += 1
    best = np.argmax(counts)
    return ok, unit, _mean_rows(unit, key == best)


@njit(cache=True)
def _mean_rows(x, rows):
    """(3,) the mean of the rows ``rows`` (K,) bool of x (K, 3), summed in row order; zeros where there
    are none."""
    s0 = s1 = s2 = 0.0
    n = 0
    for i in range(x.shape[0]):
        if rows[i]:
            s0 += x[i, 0]
            s1 += x[i, 1]
            s2 += x[i, 2]
            n += 1
    out = np.zeros(3)
    if n:
        out[0], out[1], out[2] = s0 / n, s1 / n, s2 / n
    return out


@njit(cache=True)
def _near_mean(unit, c, cos_min):
    """(count, mean (3,)) of the unit colours (K, 3) whose cosine with the unit direction c (3,) is above
    cos_min: ``fit_cloth``'s refinement of the cloth's colour."""
    near = np.empty(unit.shape[0], np.bool_)
    for i in range(unit.shape[0]):      # (the terms in the order numpy's einsum adds them here: equal bits)
        near[i] = (unit[i, 0] * c[0] + unit[i, 2] * c[2]) + unit[i, 1] * c[1] > cos_min
    return near.sum(), _mean_rows(unit, near)


def _sum3(x: np.ndarray) -> np.ndarray:
    """(N,) the row sums of x (N, 3), added left to right as ``x.sum(axis=1)`` adds them (without its
    cost per short row)."""
    return x[:, 0] + x[:, 1] + x[:, 2]


def _lit_range(s: np.ndarray, chroma: np.ndarray, tinted: bool = False):
    """(light (3,), (lo, hi)): the unit direction of a projector's added light orthogonal to
    ``chroma``, and the run of t = (s . light) / (s . chroma) about 0 that the samples s (N, 3) near the plane
    fill without a gap (LIT_BIN bins each holding LIT_MIN_SHARE of the samples): the cloth with and
    without a projector's light added. The light is white (``_run``); where no lit run is found that
    way and ``tinted``, its direction is taken from the data (``_data_light``: a tinted projector's
    light moves the cloth's colour out of the plane of the cloth and white, and where its lit area
    is the commonest colour the unlit cloth left that plane). (0, 0) when no run is found. Only for
    samples of the table's cloth (registered mode): over a whole image (pixel-only mode) the rails'
    and surroundings' colours near the cloth's fake a tinted light (real dev frame 2: a ball lost)."""
    white = np.ones(3) / np.sqrt(3.0)
    light = white - (white @ chroma) * chroma
    n = np.linalg.norm(light)
    if n < 1e-3:                       # a grey cloth: white light keeps its colour
        return np.zeros(3), (0.0, 0.0)
    light /= n
    lit = _run(s, chroma, light)
    if lit == (0.0, 0.0) and tinted:
        data = _data_light(s, chroma, light)
        lit_data = _run(s, chroma, data)
        if lit_data != (0.0, 0.0):
            return data, lit_data
    return light, lit


def unlit_samples(half: np.ndarray, bright: np.ndarray, su: np.ndarray, sv: np.ndarray, model: ClothModel):
    """(near (N,) bool, ok (N,) bool) of the samples at columns su, rows sv (N,) of a BGR uint8 image
    (h, w, 3) with the lit cloth's brightness ``bright`` (h, w): ok, a colour with a norm above 20; near,
    one of those off ``model``'s lit wedge (further than CHROMA_TAN), within LIT_CONE_DEG of its colour
    and brighter than DARK_FRACTION of the lit cloth. Where a tinted projector lights most of the cloth
    the commonest colour is the lit cloth's, and the unlit cloth round the lit area lies off the plane
    of it and white: these samples."""
    return _unlit_samples(np.ascontiguousarray(half, np.uint8), np.ascontiguousarray(bright, np.float32), su, sv,
                          model.chroma.astype(np.float64), model.light.astype(np.float64), float(model.lit[0]),
                          float(model.lit[1]), CHROMA_TAN, np.cos(np.radians(LIT_CONE_DEG)), DARK_FRACTION)


@njit(cache=True)
def _unlit_samples(half, bright, su, sv, chroma, light, lo, hi, tan, cos_cone, dark_fraction):
    """``unlit_samples`` (numba): one pass over the samples, no copies (0.25 -> 0.03 ms a real frame against
    numpy on the samples taken out of the frame)."""
    n = su.shape[0]
    near, ok = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    for i in range(n):
        b, g, r = float(half[sv[i], su[i], 0]), float(half[sv[i], su[i], 1]), float(half[sv[i], su[i], 2])
        norm = math.sqrt(b * b + g * g + r * r)
        ok[i] = norm > 20
        a, off2 = _off_cloth(b, g, r, chroma, light, lo, hi)
        near[i] = (ok[i] and math.sqrt(off2) > tan * a and a > cos_cone * norm
                   and a > dark_fraction * bright[sv[i], su[i]])
    return near, ok


def unlit_light(samples: np.ndarray, unlit: np.ndarray, model: ClothModel) -> ClothModel | None:
    """``model`` with its lit wedge turned towards the commonest colour of ``unlit`` (K, 3) BGR (samples off
    it near its colour, ``unlit_samples``): the light along that colour's part orthogonal to the cloth's,
    pointing from it towards the cloth's, and the run of t (``_run``) of ``samples`` (N, 3) BGR (the cloth's
    samples with a norm above 20) along it; None with fewer than 12 unlit samples, or where their commonest
    colour is whiter than the cloth's (a lit area beside the unlit cloth, not the unlit cloth beside a lit
    area) or has the cloth's own direction."""
    if unlit.shape[0] < 12:
        return None
    c = _fullest_cell(unlit.astype(np.float64))[2]
    c /= np.linalg.norm(c)
    d = c - (c @ model.chroma) * model.chroma
    n = np.linalg.norm(d)
    if c.sum() >= model.chroma.sum() or n < 1e-6:
        return None
    light = -d / n
    return replace(model, light=light, lit=_run(samples.astype(np.float64), model.chroma, light))


def _data_light(s: np.ndarray, chroma: np.ndarray, white_light: np.ndarray) -> np.ndarray:
    """(3,) unit direction orthogonal to ``chroma``, on white's side (``white_light``), along which
    the samples s (N, 3) within LIT_CONE_DEG of ``chroma`` spread most (the principal axis of their
    colour directions' parts orthogonal to it)."""
    unit = s / np.maximum(np.sqrt(_sum3(s * s)), 1e-9)[:, None]
    cos = unit @ chroma
    d = unit[cos > np.cos(np.radians(LIT_CONE_DEG))]
    d = d - np.outer(d @ chroma, chroma)
    if d.shape[0] < 12:
        return white_light
    e = np.linalg.eigh(d.T @ d)[1][:, -1]
    e = e - (e @ chroma) * chroma
    e /= max(np.linalg.norm(e), 1e-9)
    return e if e @ white_light >= 0 else -e


def _run(s: np.ndarray, chroma: np.ndarray, light: np.ndarray):
    """(lo, hi) the run of t about 0 along ``light`` (``_lit_range``). The run ends at the inner edges of
    its end bins (noise does not widen it) and at most LIT_WHITE of the way to white and CHROMA_TAN
    short of it (a white ball stays off the cloth); (0, 0) unless LIT_MODE_SHARE of the run lies
    beyond 2 CHROMA_TAN, or between CHROMA_TAN and 2 CHROMA_TAN (one colour with noise, stripes of a
    real cloth's texture; a faint light moves a patch of the cloth past the foreground's angle)."""
    white = np.ones(3) / np.sqrt(3.0)
    t_lo, t_hi, lit = _lit_run(np.ascontiguousarray(s, np.float64), np.asarray(chroma, np.float64),
                               np.asarray(light, np.float64), CHROMA_TAN, LIT_MAX, LIT_BIN, LIT_MIN_SHARE,
                               LIT_MODE_SHARE)
    if not lit:
        return (0.0, 0.0)
    t_white = (white @ light) / (white @ chroma)
    return (float(min(0.0, t_lo)), float(max(0.0, min(t_hi, LIT_WHITE * t_white, t_white - CHROMA_TAN))))


@njit(cache=True)
def _lit_run(s, chroma, light, tan, t_max, step, min_share, mode_share):
    """(t_lo, t_hi, lit) of ``_run`` for the colours s (N, 3): t = (s . light) / (s . chroma) of the samples
    within ``tan`` of the plane of chroma and light (|t| < t_max) counted in bins of ``step``; the run of
    bins about [0, step) each holding max(3, min_share N) of them, its end bins' inner edges t_lo, t_hi;
    lit: mode_share of the samples in the run widened by a bin lie beyond 2 ``tan`` or between ``tan`` and
    2 ``tan`` (numba: one pass for the bins, one for the shares; 0.1 ms of numpy steps a frame)."""
    n = s.shape[0]
    nb = int(round(t_max / step))
    counts = np.zeros(2 * nb + 1, np.int64)          # (t just below t_max can round into bin 2 nb)
    t = np.empty(n)
    inplane = np.empty(n, np.bool_)
    for i in range(n):
        a = s[i, 0] * chroma[0] + s[i, 1] * chroma[1] + s[i, 2] * chroma[2]
        b = s[i, 0] * light[0] + s[i, 1] * light[1] + s[i, 2] * light[2]
        t[i] = b / max(a, 1e-9)
        perp2 = max(s[i, 0] * s[i, 0] + s[i, 1] * s[i, 1] + s[i, 2] * s[i, 2] - a * a - b * b, 0.0)
        inplane[i] = perp2 <= (tan * a) ** 2 and abs(t[i]) < t_max
        if inplane[i]:
            counts[int(math.floor(t[i] / step)) + nb] += 1
    need = max(3.0, min_share * n)
    lo = hi = nb                                     # the bin [0, step)
    while lo > 0 and counts[lo - 1] >= need:
        lo -= 1
    while hi < 2 * nb - 1 and counts[hi + 1] >= need:
        hi += 1
    t_lo, t_hi = (lo + 1 - nb) * step, (hi - nb) * step
    n_run = n_far = n_near = 0
    for i in range(n):
        if inplane[i] and t[i] >= t_lo - step and t[i] <= t_hi + step:
            n_run += 1
            if abs(t[i]) > 2 * tan:
                n_far += 1
            elif abs(t[i]) > tan:
                n_near += 1
    return t_lo, t_hi, max(n_far, n_near) >= mode_share * n_run


def _surface_lstsq(a: np.ndarray, uu: np.ndarray, vv: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(6,) the quadratic surface (``_surface``) through the values a (N,) at the scaled coordinates uu, vv
    (N,), over the rows ``rows`` (N,) bool: least squares by the normal equations (``_normal_equations``),
    without BLAS threads (small systems, every frame)."""
    g, rhs = _normal_equations(a, uu, vv, rows)
    return np.linalg.solve(g + 1e-9 * np.eye(6), rhs)


@njit(cache=True)
def _normal_equations(a, uu, vv, rows):
    """(A^T A (6, 6), A^T a (6,)) over the rows ``rows`` of the quadratic surface's terms A (N, 6) = (1, u,
    v, u^2, u v, v^2) at uu, vv (N,), each sum taken row by row in order (one pass, no (N, 6) array)."""
    g = np.zeros((6, 6))
    rhs = np.zeros(6)
    t = np.empty(6)
    for k in range(a.size):
        if rows[k]:
            _terms(uu[k], vv[k], t)
            for i in range(6):
                for j in range(6):
                    g[i, j] += t[i] * t[j]
                rhs[i] += t[i] * a[k]
    return g, rhs


@njit(cache=True)
def _terms(u, v, t):
    """The quadratic surface's six terms (1, u, v, u^2, u v, v^2) at (u, v) into t (6,)."""
    t[0], t[1], t[2], t[3], t[4], t[5] = 1.0, u, v, u * u, u * v, v * v


@njit(cache=True)
def _above_share(a, uu, vv, coef, share):
    """(N,) bool: a (N,) above ``share`` of the quadratic surface coef (6,) at uu, vv (N,)."""
    out = np.empty(a.size, np.bool_)
    t = np.empty(6)
    for k in range(a.size):
        _terms(uu[k], vv[k], t)         # (the terms in the order numpy's einsum adds them here: equal bits)
        even = (t[0] * coef[0] + t[2] * coef[2]) + t[4] * coef[4]
        odd = (t[1] * coef[1] + t[3] * coef[3]) + t[5] * coef[5]
        out[k] = a[k] > share * (even + odd)
    return out


CLOTH = 1          # ``classify`` bits: cloth-coloured and lit (the play area's region)
FOREGROUND = 2     # ... not cloth (``foreground``)
HOLE_DARK = 4      # ... darker than HOLE_DARK_SHARE of the lit cloth (pocket holes, the black ball)


@njit(cache=True)
def _off_cloth(b, g, r, chroma, light, lo, hi):
    """(a, off2) of one BGR colour: a its component along ``chroma``, off2 its squared distance from
    the wedge of cloth colours (the chroma plus t a of ``light``, lo <= t <= hi)."""
    a = b * chroma[0] + g * chroma[1] + r * chroma[2]
    q = b * light[0] + g * light[1] + r * light[2]
    lo_a, hi_a = lo * a, hi * a
    wedge = q if q > lo_a else lo_a            # (conditional expressions, not min / max: the compiler
    wedge = wedge if wedge < hi_a else hi_a    # vectorises them)
    p = b * b + g * g + r * r - a * a - q * q
    e = q - wedge
    return a, (p if p > 0.0 else 0.0) + e * e


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
def _bits(a, off2, lit, hole, tan2, dark_fraction, hole_lit, hole_dark, brighter):
    """``classify``'s bits of one pixel: a its colour's component along the chroma, off2 its squared
    distance from the cloth's wedge (``_off_cloth``), lit the lit cloth's brightness there, hole
    whether the empty table shows a pocket there."""
    cloth = (off2 <= tan2 * a * a) & (a > dark_fraction * lit)
    a_floor = max(a, 0.25 * lit)
    off = off2 > tan2 * a_floor * a_floor
    dark = (a < dark_fraction * lit) | (a > brighter * lit)
    # in a pocket dark is the hole, and near-black colour is noise
    dark = dark & (not hole)
    off = off & ((not hole) | (a > hole_lit * lit))
    return np.uint8(cloth) | (np.uint8(off | dark) << 1) | (np.uint8(a < hole_dark * lit) << 2)


@njit(cache=True)
def _classify(half, chroma, light, lo, hi, bright, hole, tan2, dark_fraction, hole_lit, hole_dark, brighter):
    """``classify``'s bits (h, w) uint8, a pixel at a time along each row, read from the row's bytes (three
    passes a row, the colours copied out first, took half again as long: a real frame 0.9 -> 0.6 ms)."""
    h, w = half.shape[0], half.shape[1]
    out = np.empty((h, w), np.uint8)
    with_hole = hole.shape[0] == h
    for y in range(h):
        row, lit, bits = half[y].reshape(-1), bright[y], out[y]
        for x in range(w):
            a, off2 = _off_cloth(np.float64(row[3 * x]), np.float64(row[3 * x + 1]), np.float64(row[3 * x + 2]),
                                 chroma, light, lo, hi)
            bits[x] = _bits(a, off2, lit[x], with_hole and hole[y, x], tan2, dark_fraction, hole_lit, hole_dark,
                            brighter)
    return out


def classify(half: np.ndarray, model: ClothModel, bright: np.ndarray,
             hole: np.ndarray | None = None, brighter: float = np.inf) -> np.ndarray:
    """(h, w) uint8 bits of each pixel of a BGR uint8 image given the cloth model: CLOTH (within
    CHROMA_TAN of the cloth's colour and brighter than DARK_FRACTION of the lit cloth), FOREGROUND
    (further than CHROMA_TAN from the cloth's colour, judged against at least a quarter of the lit
    brightness, or darker than DARK_FRACTION of it), HOLE_DARK (darker than HOLE_DARK_SHARE of it).

    bright: (h, w) the lit cloth brightness ``model.brightness`` at each pixel; hole: (h, w) bool
    where the empty table shows a pocket (there dark is the hole, not foreground: only colour
    brighter than HOLE_LIT of the lit cloth counts); brighter: FOREGROUND also where brighter than
    this many times the lit cloth (a white ball on a cloth of its hue; default: never)."""
    none = np.zeros((1, 1), np.bool_)
    return _classify(np.ascontiguousarray(half, np.uint8), model.chroma.astype(np.float64),
                     model.light.astype(np.float64), float(model.lit[0]), float(model.lit[1]),
                     np.ascontiguousarray(bright, np.float32), none if hole is None else np.ascontiguousarray(hole),
                     CHROMA_TAN ** 2, DARK_FRACTION, HOLE_LIT, HOLE_DARK_SHARE, float(brighter))


def foreground(half: np.ndarray, model: ClothModel, bright: np.ndarray,
               hole: np.ndarray | None = None, brighter: float = np.inf) -> np.ndarray:
    """(h, w) uint8 mask (255 = not cloth) of a BGR image given the cloth model (``classify``)."""
    return (classify(half, model, bright, hole, brighter) & FOREGROUND) * np.uint8(255 // FOREGROUND)


def hole_mask(classes: np.ndarray, radius: float, bridge: bool = False) -> np.ndarray:
    """(h, w) bool: pixels of dark regions (HOLE_DARK in ``classify``'s bits) that hold a disc of
    HOLE_WIDER ball radii (``radius`` in these pixels; the disc's side in pixels rounded to an
    odd number at half this resolution): pocket holes. A ball, even the black one, holds no such
    disc. The opening is done at half this resolution (a hole only has to be told from a ball).
    With ``bridge`` (a frame with halo rings), gaps of a pixel at that resolution between dark
    pixels that are not cloth (a ring drawn across a hole) count as dark first: a ring cuts a hole
    into pieces narrower than the disc."""
    h, w = classes.shape
    dark = cv2.resize((classes & HOLE_DARK) * np.uint8(255 // HOLE_DARK), (w // 2, h // 2),
                      interpolation=cv2.INTER_AREA) > 127
    if bridge:
        cloth = cv2.resize((classes & CLOTH) * np.uint8(255 // CLOTH), (w // 2, h // 2),
                           interpolation=cv2.INTER_AREA) > 127
        dark |= (cv2.morphologyEx(dark.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)) > 0) & ~cloth
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
    return unlike_shares(image, model, centres, radii, hole)[:, 0]


def unlike_shares(image: np.ndarray, model: ClothModel, centres: np.ndarray, radii: np.ndarray,
                  hole: np.ndarray) -> np.ndarray:
    """(M, 2): of ``unlike_cloth``'s samples inside each circle, the shares unlike cloth and off ``hole``
    (seen)."""
    offs = _unlike_offsets()
    counts = _unlike_share(image, np.asarray(centres, np.float64), np.asarray(radii, np.float64), offs,
                           np.asarray(model.chroma, np.float64), np.asarray(model.coef, np.float64),
                           float(model.scale), float(np.tan(np.radians(UNLIKE_CHROMA_DEG))), hole)
    return counts / offs.shape[0]


@functools.lru_cache(maxsize=1)
def _unlike_offsets() -> np.ndarray:
    """(49, 2) read-only: ``unlike_cloth``'s sample offsets in radii, the centre and 16 on each of the rings
    at 0.3, 0.55 and 0.8 (made once: 2 calls a frame)."""
    t = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = np.stack([np.cos(t), np.sin(t)], axis=1)
    offs = np.concatenate([np.zeros((1, 2))] + [f * ring for f in (0.3, 0.55, 0.8)])
    offs.setflags(write=False)
    return offs


@njit(cache=True)
def _unlike_share(image, centres, radii, offs, chroma, coef, scale, tan_deg, hole):
    """(M, 2) counts per circle of ``unlike_shares``: samples at centres (M, 2) + radii (M,) x offs (K, 2) [px]
    (rounded to the nearest pixel, clipped to the image); the lit cloth there from the quadratic
    surface coef (6,) at half resolution (``ClothModel.brightness``)."""
    h, w = image.shape[0], image.shape[1]
    hh, hw = hole.shape[0], hole.shape[1]
    M, K = centres.shape[0], offs.shape[0]
    out = np.zeros((M, 2), np.int64)
    for m in range(M):
        for k in range(K):
            px = centres[m, 0] + radii[m] * offs[k, 0]
            py = centres[m, 1] + radii[m] * offs[k, 1]
            u = min(max(int(np.rint(px)), 0), w - 1)
            v = min(max(int(np.rint(py)), 0), h - 1)
            if hole[min(v // 2, hh - 1), min(u // 2, hw - 1)]:
                continue
            out[m, 1] += 1
            f0, f1, f2 = float(image[v, u, 0]), float(image[v, u, 1]), float(image[v, u, 2])
            a = f0 * chroma[0] + f1 * chroma[1] + f2 * chroma[2]
            perp = math.sqrt(max(f0 * f0 + f1 * f1 + f2 * f2 - a * a, 0.0))
            lit = _surface_jit(coef, (px - 0.5) / 2 * scale, (py - 0.5) / 2 * scale)
            if perp > tan_deg * max(a, 1.0) or a > UNLIKE_BRIGHT * lit or a < UNLIKE_DARK * lit:
                out[m, 0] += 1
    return out


# ---- a projector's light added to the frame (registered mode) ------------------------------------
LIGHT_SIGMA = 1.5          # ball radii: the added light is fitted over the cloth at this scale (1.0: projector x20
                           # 99.6 %, 0.31 mm; 1.5: 100 %, 0.36 mm) ...
LIGHT_COARSE = 8           # ... on a grid this many half-resolution pixels apart (4: x20 0.29 mm, +2 ms)
LIGHT_UNLIT_SHARE = 10.0   # percent of the cloth samples, the least white: the unlit cloth's colour
LIGHT_ROBUST = 0.02        # linear units: samples this far from the first fit are left out of the second (a
                           # ball of the cloth's hue in the lit area)
LIGHT_PLANE_DEG = 1.5      # a pixel within this angle of the plane of the unlit cloth and the light, and at most
                           # LIGHT_ROBUST over the fit, shows cloth: its own light is taken off (a plane fitted
                           # over 1.5 radii cuts a lit area's soft edge: 0.015 too much at its foot, the cloth
                           # there foreground; without the plane test a lit green ball passed for cloth: 2 lost
                           # on projector x20 seed 41; 0.3 / 0.6 deg left the cloth's texture out: 5 / 2 false)
LIGHT_SUPPORT = 0.05       # a local linear fit needs this Gaussian weight of cloth samples, else a local mean
LIGHT_FLOOR = 2            # no channel is taken below this 8-bit level (a black pixel would pass as cloth)
SURFACE_ROBUST = 0.1       # a grey cloth's lit surface (``lit_surface``): cells this share off the fit are left out
SURFACE_PASSES = 2         # ... of this many refits


@dataclass(frozen=True)
class AddedLight:
    """field: (h, w) float32, the light added at each half-resolution pixel, so that ``field * colour``
    is the linear BGR light added there; colour: (3,) its linear BGR colour (white: (1, 1, 1))."""
    field: np.ndarray
    colour: np.ndarray


def added_light_field(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray,
                      radius: float, shifted: bool = False) -> AddedLight:
    """The light a projector adds across the cloth, from a half-resolution BGR uint8 image (h, w, 3),
    its cloth model and lit brightness (h, w) (``classify``), where the table's cloth is ``table``
    (h, w) bool, and the ball radius [half-resolution px].

    Light a projector adds is additive: a cloth pixel is k u + w l in linear light with u the unlit
    cloth's colour, l the light's and k, w >= 0 per pixel (shading, texture and exposure scale k).
    On a grid LIGHT_COARSE px apart, from its cloth-coloured table cells (CLOTH in ``classify``):
    the samples span the plane of u and l (its normal: the least eigenvector of their second
    moments); l is white projected into it (a tinted projector stays in the plane), u the median
    colour of the LIGHT_UNLIT_SHARE least white samples; w by least squares. The field of w is a
    local linear fit (first-order normalized convolution, Knutsson & Westin 1993, 'Normalized and
    differential convolution', CVPR, Sec. 3) with a Gaussian of LIGHT_SIGMA ball radii, refitted
    once without the samples LIGHT_ROBUST off it; it fills the balls and follows a lit area's slope
    across them. A half-resolution pixel that shows the cloth (CLOTH, its w at most LIGHT_ROBUST over
    that fit, and within LIGHT_PLANE_DEG of the plane of u and l) keeps its own w instead: a plane
    cannot bend with a lit area's soft edge (``light_taken_off``); under the fit by any amount, as a
    colour in that plane is k u + w l for one w only (more taken off leaves no cloth colour: at a lit
    area's foot the fit, with the cells on the balls left out, overshoots by more than LIGHT_ROBUST in
    the gaps among them). ``shifted`` (under halo rings, whose remnants
    the cloth's own pixels carry): instead, each pixel's plane from the best-fitting of nine windows
    about it (``_local_linear_shifted``: less overshoot at the lit area's soft edge).
    Raises ValueError with fewer than 12 cloth samples."""
    if not shifted:
        return light_taken_off(half, model, bright, table, radius)[1]
    field, light, _, _ = _fitted_light(half, model, bright, table, radius, True)
    return AddedLight(field=np.maximum(field, 0.0, out=field), colour=light.astype(np.float32))


def light_taken_off(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray,
                    radius: float) -> tuple[np.ndarray, AddedLight]:
    """(a copy of the half-resolution BGR uint8 image (h, w, 3) with the light a projector adds across
    the cloth taken off, that light): ``added_light_field`` (not shifted) and ``take_off_light`` at
    once. The cloth pixels' own light and the taking off share one pass over the image
    (``_own_light_off``; rendered projector frames 2.3 -> 1.3 ms). Raises ValueError as
    ``added_light_field``."""
    field, light, unmix, normal = _fitted_light(half, model, bright, table, radius, False)
    colour = light.astype(np.float32)
    unlit = _own_light_off(np.ascontiguousarray(half, np.uint8), np.ascontiguousarray(table), field, LINEAR_LUT,
                           SRGB_LUT, unmix.astype(np.float64), normal.astype(np.float64),
                           model.chroma.astype(np.float64), model.light.astype(np.float64), float(model.lit[0]),
                           float(model.lit[1]), np.ascontiguousarray(bright, np.float32), CHROMA_TAN ** 2,
                           DARK_FRACTION, LIGHT_ROBUST, np.sin(np.radians(LIGHT_PLANE_DEG)) ** 2, colour,
                           LINEAR_LUT[LIGHT_FLOOR])
    return unlit, AddedLight(field=field, colour=colour)


def _fitted_light(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray, radius: float,
                  shifted: bool):
    """(field (h, w) float32: the fitted w at each half-resolution pixel, the light's colour l (3,), the row
    (3,) that unmixes w from a linear colour, the normal (3,) of the plane of u and l) of
    ``added_light_field``, before the cloth pixels' own light and the floor at 0."""
    h, w = table.shape
    q = LIGHT_COARSE
    small, m = _cloth_cells(half, model, bright, table)
    lin = LINEAR_LUT[small].astype(np.float64)
    x = lin[m]
    if x.shape[0] < 12:
        raise ValueError("too little cloth seen to fit a projector's light")
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
    normal = np.linalg.eigh(unit.T @ unit)[1][:, 0]
    light = np.ones(3) - normal.sum() * normal
    white = light / np.linalg.norm(light)
    t = (unit @ white) / np.maximum(np.linalg.norm(unit - np.outer(unit @ white, white), axis=1), 1e-9)
    unlit = _least_median(unit, t, LIGHT_UNLIT_SHARE / 100)
    unmix = np.linalg.pinv(np.stack([unlit, light], axis=1))
    amount = lin @ unmix[1]
    sigma = LIGHT_SIGMA * radius / q
    local = _local_linear_shifted if shifted else _local_linear
    fit = local(amount, m, sigma)
    fit = local(amount, m & (np.abs(amount - fit) < LIGHT_ROBUST), sigma)
    field = cv2.resize(fit.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return field, light, unmix[1], normal


@njit(cache=True)
def _least_median(unit, t, q):
    """(3,) the median (each column, numpy's: the middle, or the mean of the two middle) of the rows of unit
    (N, 3) whose t (N,) float64 is at most t's q-quantile (0 <= q <= 1; numpy's linear one: the sorted values
    at the floor and ceiling of (N - 1) q, mixed as ``np.lib._function_base_impl._lerp`` mixes them), N >= 1,
    no NaN: ``np.median(unit[t <= np.percentile(t, 100 q)], axis=0)``, by selection (np.partition), not
    sorting (numpy's three calls on a projector frame's 1800 cloth cells: 0.16 -> 0.04 ms)."""
    n = t.size
    v = (n - 1) * q
    i = min(int(math.floor(v)), n - 1)
    part = np.partition(t, i)
    if v >= n - 1:
        cut = part[n - 1]
    else:
        a, b = part[i], part[i + 1:].min()
        g = v - i
        d = b - a
        cut = b - d * (1 - g) if g >= 0.5 else a + d * g
    rows = np.flatnonzero(t <= cut)
    out = np.empty(3)
    col = np.empty(rows.size)
    m = rows.size // 2
    for c in range(3):
        for k in range(rows.size):
            col[k] = unit[rows[k], c]
        col = np.partition(col, m)
        out[c] = col[m] if rows.size % 2 else (col[:m].max() + col[m]) / 2
    return out


@njit(cache=True)
def _own_light_off(half, table, field, lut, srgb, unmix, normal, chroma, light, lo, hi, bright, tan2, dark_fraction,
                   robust, sin2, colour, floor):
    """A copy of ``half`` (BGR uint8) with the light ``field`` (h, w) float32 of colour ``colour`` taken off
    (``take_off_light``), after, in place on ``field``: w of each ``table`` pixel that shows the cloth (CLOTH
    in ``classify``; its linear colour (``lut``) at most ``robust`` over the field in w (``unmix``), any amount
    under it, and within the angle of sin2 of the plane with the ``normal``), and the field floored at 0. A row
    at a time in passes (the colours, the CLOTH test, their linear colours, the field, the taking off) that the
    compiler vectorises but the last (1.1 -> 0.6 ms against a pixel at a time, before the taking off)."""
    h, w = half.shape[0], half.shape[1]
    out = half.copy()
    b, g, r = np.empty(w), np.empty(w), np.empty(w)
    cloth = np.empty(w, np.bool_)
    lb, lg, lr = np.empty(w, np.float32), np.empty(w, np.float32), np.empty(w, np.float32)
    caps = _off_caps(lut, colour, floor)
    n = np.float32(srgb.size - 1)
    zero = np.float32(0.0)
    for y in range(h):
        for x in range(w):
            b[x], g[x], r[x] = half[y, x, 0], half[y, x, 1], half[y, x, 2]
        for x in range(w):
            a, off2 = _off_cloth(b[x], g[x], r[x], chroma, light, lo, hi)
            cloth[x] = table[y, x] & (off2 <= tan2 * a * a) & (a > dark_fraction * bright[y, x])
        for x in range(w):
            lb[x], lg[x], lr[x] = lut[half[y, x, 0]], lut[half[y, x, 1]], lut[half[y, x, 2]]
        for x in range(w):
            own = lb[x] * unmix[0] + lg[x] * unmix[1] + lr[x] * unmix[2]
            off = lb[x] * normal[0] + lg[x] * normal[1] + lr[x] * normal[2]
            f = field[y, x]
            mine = (cloth[x] & (own - f < robust)
                    & (off * off < sin2 * (lb[x] * lb[x] + lg[x] * lg[x] + lr[x] * lr[x])))
            f = np.float32(own) if mine else f
            field[y, x] = f if f > zero else zero
        for x in range(w):
            if field[y, x] > zero:
                lit, ub, ug, ur = _unlit_pixel(half[y, x, 0], half[y, x, 1], half[y, x, 2], field[y, x], caps, lut,
                                               srgb, colour, n)
                if lit:
                    out[y, x, 0], out[y, x, 1], out[y, x, 2] = ub, ug, ur
    return out


def _cloth_cells(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray):
    """(small (h/q, w/q, 3) uint8: the half-resolution BGR image (h, w, 3) averaged over cells of
    q = LIGHT_COARSE px, (h/q, w/q) bool: the cells wholly on ``table`` (h, w) bool that are CLOTH in
    ``classify`` with the lit brightness ``bright`` (h, w; float32 where q does not divide h and w, as the
    registered mode's ``TableDetector`` makes it) averaged the same way). The averages are
    cv2's INTER_AREA resizes: where q divides h and w (the pixel-only mode's 640 x 360), its plain cell
    means, taken in one pass (``_cell_means``: 0.32 -> 0.20 ms); else by ``vision.area_resize`` (the registered
    crop's image 0.47 -> 0.35 ms, its brightness 0.31 -> 0.22 ms)."""
    h, w = table.shape
    q = LIGHT_COARSE
    if h % q or w % q:                 # (the registered mode's crop: cv2's fractional weights)
        size = (w // q, h // q)
        small = resize_area(half, size)
        on = _whole_cells(table, size)
        lit = resize_area(np.ascontiguousarray(bright, np.float32), size)
    else:
        small, on, lit = _cell_means(np.ascontiguousarray(half), np.ascontiguousarray(table),
                                     np.ascontiguousarray(bright))
    return small, on & ((classify(small, model, lit) & CLOTH) > 0)


_WHOLE_CELLS: dict = {}      # id -> (table, its whole cells) of the tables that cannot change (``_whole_cells``)


def _whole_cells(table: np.ndarray, size: tuple) -> np.ndarray:
    """(size[1], size[0]) bool, read-only: the cells of cv2.resize's INTER_AREA of ``table`` (h, w) bool to
    ``size`` (w, h) with a mean above 0.999 (wholly on it). Kept for a table that cannot change (read-only and
    owning its data: the registered detector's per-camera mask, once per camera, not each frame: 0.18 ms of a
    projector frame), the last eight such tables."""
    fixed = not table.flags.writeable and table.base is None
    hit = _WHOLE_CELLS.get(id(table)) if fixed else None
    if hit is not None and hit[0] is table and hit[1].shape == (size[1], size[0]):
        return hit[1]
    on = resize_area(table.astype(np.float32), size) > 0.999
    on.setflags(write=False)
    if fixed:
        if len(_WHOLE_CELLS) >= 8:
            _WHOLE_CELLS.clear()
        _WHOLE_CELLS[id(table)] = (table, on)
    return on


@njit(cache=True)
def _cell_means(half, table, bright):
    """(small (h/q, w/q, 3) uint8, whole (h/q, w/q) bool, lit (h/q, w/q) of bright's float type): the
    means over cells of q = LIGHT_COARSE px of half (h, w, 3) uint8 and bright (h, w), and whether every
    pixel of a cell is on ``table`` (h, w) bool, for q dividing h and w: as cv2.resize's INTER_AREA at a
    whole factor above 2 takes them (resizeAreaFast: a cell's pixels row by row, floats added four at a
    time (q a multiple of 4: each row's fours) then to the sum, the sum times 1 / q^2 as float32, 8-bit
    means rounded half to even)."""
    q = LIGHT_COARSE
    hs, ws = half.shape[0] // q, half.shape[1] // q
    sums = np.zeros((hs, ws, 4), np.int32)
    s = np.zeros((hs, ws), bright.dtype)
    for y in range(hs * q):
        i = y // q
        for j in range(ws):
            s0 = s1 = s2 = n = 0
            for x in range(j * q, j * q + q):
                s0 += half[y, x, 0]
                s1 += half[y, x, 1]
                s2 += half[y, x, 2]
                n += table[y, x]
            sums[i, j, 0] += s0
            sums[i, j, 1] += s1
            sums[i, j, 2] += s2
            sums[i, j, 3] += n
            t = s[i, j]
            for x in range(j * q, j * q + q, 4):
                t += ((bright[y, x] + bright[y, x + 1]) + bright[y, x + 2]) + bright[y, x + 3]
            s[i, j] = t
    scale = np.float32(1.0 / (q * q))
    small = np.empty((hs, ws, 3), np.uint8)
    for i in range(hs):
        for j in range(ws):
            for c in range(3):
                small[i, j, c] = min(int(np.rint(np.float32(sums[i, j, c]) * scale)), 255)
    return small, sums[:, :, 3] == q * q, s * scale


def grey_cloth(model: ClothModel, tan: float = CHROMA_TAN) -> bool:
    """Whether the cloth's colour is within ``tan`` (the tangent of the angle; CHROMA_TAN) of white: white
    light added to it keeps its colour (the lit wedge cannot hold a projector's light; only its brightness
    shows it)."""
    return bool(model.chroma.sum() / np.sqrt(3.0) > np.cos(np.arctan(tan)))


def lit_surface(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray,
                radius: float) -> np.ndarray:
    """(h, w) float32 the lit cloth brightness along ``model.chroma`` at each pixel of a
    half-resolution BGR uint8 image (h, w, 3), following a lit area (a projector's white light on a
    grey cloth, which a quadratic surface cannot): from the cloth-coloured cells (CLOTH in
    ``classify`` with the quadratic ``bright`` (h, w)) of a grid LIGHT_COARSE px apart on ``table``
    (h, w) bool, a local linear fit (``_local_linear``, LIGHT_SIGMA ball radii of ``radius``
    half-resolution px), refitted SURFACE_PASSES times without the cells further than
    SURFACE_ROBUST of it off it (a white ball, a grey one: the cloth's colour too). Where fewer than
    12 cloth cells are seen: ``bright``."""
    h, w = table.shape
    q = LIGHT_COARSE
    small, m = _cloth_cells(half, model, bright, table)
    if m.sum() < 12:
        return bright
    a = small.astype(np.float64) @ model.chroma
    sigma = LIGHT_SIGMA * radius / q
    fit = _local_linear(a, m, sigma)
    for _ in range(SURFACE_PASSES):
        fit = _local_linear(a, m & (np.abs(a - fit) < SURFACE_ROBUST * fit), sigma)
    return cv2.resize(np.maximum(fit, 1.0).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _moments(values: np.ndarray, mask: np.ndarray, sigma: float, squares: bool = False) -> np.ndarray:
    """(9 or 10, h, w) float32: the Gaussian-weighted (sigma px) moments about each pixel p of the samples
    ``mask`` of ``values`` (h, w): s0 sx sy sxx syy sxy (the matrix [[s0 sx sy] [sx sxx sxy] [sy sxy
    syy]]) and b0 bx by (B = [b0 bx by]) for the plane c0 + cx dx + cy dy (d = q - p); with
    ``squares`` a tenth row, the weighted sum of squared values (``_local_linear`` needs none: one blur
    fewer). The weighted sums are cv2's Gaussian blurs of the products (``_moment_terms``), moved to each
    pixel by ``_centred``: the products and moments in numba kernels, float32 in numpy's order (equal
    to the bit; 0.22 -> 0.11 ms a fit on 80 x 45 cells)."""
    terms = _moment_terms(np.ascontiguousarray(values, np.float64), np.ascontiguousarray(mask, np.bool_), squares)
    sums = np.empty_like(terms)
    for k in range(terms.shape[0]):
        cv2.GaussianBlur(terms[k], (0, 0), sigma, dst=sums[k])
    return _centred(sums)


@njit(cache=True)
def _moment_terms(values, mask, squares):
    """(9 or 10, h, w) float32: the products the moments sum (``_moments``), at coordinates centred on
    the image (float32 keeps the moments' differences): m, m x, m y, m x x, m y y, m x y, m v, m v x,
    m v y (and m v v with ``squares``), m the mask as 0 / 1 and v the values (h, w) float64 as float32."""
    h, w = values.shape
    out = np.empty((10 if squares else 9, h, w), np.float32)
    cx, cy = np.float32(w / 2), np.float32(h / 2)
    one, zero = np.float32(1.0), np.float32(0.0)
    for y in range(h):
        yy = np.float32(y) - cy
        for x in range(w):
            xx = np.float32(x) - cx
            mk = one if mask[y, x] else zero
            v = np.float32(values[y, x])
            mv = mk * v
            out[0, y, x], out[1, y, x], out[2, y, x] = mk, mk * xx, mk * yy
            out[3, y, x], out[4, y, x], out[5, y, x] = mk * xx * xx, mk * yy * yy, mk * xx * yy
            out[6, y, x], out[7, y, x], out[8, y, x] = mv, mv * xx, mv * yy
            if squares:
                out[9, y, x] = mv * v
    return out


@njit(cache=True)
def _centred(g):
    """(K, h, w) float32: the moments s0 sx sy sxx syy sxy b0 bx by about each pixel from the blurred
    products g (K, h, w) of ``_moment_terms`` (K = 9, or 10: the squared values' sum, as it is), float32
    with each product in numpy's order."""
    h, w = g.shape[1], g.shape[2]
    out = g.copy()
    cx, cy, two = np.float32(w / 2), np.float32(h / 2), np.float32(2.0)
    for y in range(h):
        yy = np.float32(y) - cy
        for x in range(w):
            xx = np.float32(x) - cx
            s0, gx, gy, b0 = g[0, y, x], g[1, y, x], g[2, y, x], g[6, y, x]
            out[1, y, x], out[2, y, x] = gx - xx * s0, gy - yy * s0
            out[3, y, x] = g[3, y, x] - two * xx * gx + xx * xx * s0
            out[4, y, x] = g[4, y, x] - two * yy * gy + yy * yy * s0
            out[5, y, x] = g[5, y, x] - xx * gy - yy * gx + xx * yy * s0
            out[7, y, x], out[8, y, x] = g[7, y, x] - xx * b0, g[8, y, x] - yy * b0
    return out


def _local_linear(values: np.ndarray, mask: np.ndarray, sigma: float) -> np.ndarray:
    """(h, w) float32 at each pixel the value of the plane fitted by least squares to ``values`` (h, w) at
    the pixels ``mask`` with Gaussian weights of ``sigma`` px about it; the weighted mean where the
    weight of the mask there is below LIGHT_SUPPORT (first-order normalized convolution)."""
    m = _moments(values, mask, sigma)
    small = 1e-9 * np.maximum(m[0], 1e-9) ** 3             # (float32, numpy's power)
    return _plane_constant(m, small, np.float32(LIGHT_SUPPORT))


@njit(cache=True)
def _plane_constant(m, small, support):
    """(h, w) float32: the constant term of [[s0 sx sy] [sx sxx sxy] [sy sxy syy]] c = [b0 bx by] at each
    pixel of the moments m (9, h, w) (Cramer's rule) where s0 >= support and |det| > small (h, w);
    b0 / s0 elsewhere (s0 at least 1e-9). float32 throughout, each product in numpy's order."""
    h, w = small.shape
    out = np.empty((h, w), np.float32)
    tiny = np.float32(1e-9)
    for y in range(h):
        for x in range(w):
            s0, sx, sy, sxx, syy, sxy, b0, bx, by = (m[0, y, x], m[1, y, x], m[2, y, x], m[3, y, x], m[4, y, x],
                                                     m[5, y, x], m[6, y, x], m[7, y, x], m[8, y, x])
            det = s0 * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) + sy * (sx * sxy - sxx * sy)
            if s0 >= support and abs(det) > small[y, x]:
                num = b0 * (sxx * syy - sxy * sxy) - sx * (bx * syy - sxy * by) + sy * (bx * sxy - sxx * by)
                out[y, x] = num / det
            else:
                out[y, x] = b0 / max(s0, tiny)
    return out


def _local_linear_shifted(values: np.ndarray, mask: np.ndarray, sigma: float) -> np.ndarray:
    """As ``_local_linear``, but each pixel takes, of the planes fitted about it and about the eight
    pixels sigma away (axes and diagonals), the one with the least weighted residual, extrapolated to it:
    the stencil selection of essentially non-oscillatory schemes (Harten, Engquist, Osher & Chakravarthy
    1987, 'Uniformly high order accurate essentially non-oscillatory schemes, III', J. Comput. Phys. 71,
    Sec. 2). Near a lit area's soft edge (a kink in the light) the plane comes from the window on
    the pixel's own side, where the centred one bends across the kink. The planes and the choice in a
    numba kernel (``_shifted_planes``; 1.3 -> 0.2 ms a fit on 65 x 35 cells)."""
    m = _moments(values, mask, sigma, squares=True)
    return _shifted_planes(m, np.float32(LIGHT_SUPPORT), max(1, int(round(sigma))))


@njit(cache=True)
def _shifted_planes(m, support, d):
    """(h, w) float32 ``_local_linear_shifted`` from the moments m (10, h, w) float32 (``_moments`` with
    squares) and the windows' offset d [px]: at each pixel the plane c solving [[s0 sx sy] [sx sxx sxy]
    [sy sxy syy]] c = [b0 bx by] (Gaussian elimination with partial pivoting, float32; where s0 <
    ``support`` or |det| <= 1e-9 s0^3 the weighted mean b0 / s0 and no residual) and its weighted residual
    (bvv - c . B) / s0; each pixel takes the plane of least residual among its own and those d px away
    along the axes and diagonals (ties: the earlier, rows of offsets -d, 0, d), extrapolated to it.
    Equal to numpy's stacked solve to float32 rounding (LAPACK orders its sums otherwise)."""
    h, w = m.shape[1], m.shape[2]
    c = np.empty((h, w, 3), np.float32)
    res = np.empty((h, w), np.float32)
    tiny, zero = np.float32(1e-9), np.float32(0.0)
    A = np.empty((3, 3), np.float32)
    b = np.empty(3, np.float32)
    for y in range(h):
        for x in range(w):
            s0, sx, sy, sxx, syy, sxy = m[0, y, x], m[1, y, x], m[2, y, x], m[3, y, x], m[4, y, x], m[5, y, x]
            b0, bx, by, bvv = m[6, y, x], m[7, y, x], m[8, y, x], m[9, y, x]
            A[0, 0], A[0, 1], A[0, 2] = s0, sx, sy
            A[1, 0], A[1, 1], A[1, 2] = sx, sxx, sxy
            A[2, 0], A[2, 1], A[2, 2] = sy, sxy, syy
            b[0], b[1], b[2] = b0, bx, by
            det = np.float32(1.0)
            for k in range(3):
                p = k
                for i in range(k + 1, 3):
                    if abs(A[i, k]) > abs(A[p, k]):
                        p = i
                if p != k:
                    for j in range(3):
                        A[k, j], A[p, j] = A[p, j], A[k, j]
                    b[k], b[p] = b[p], b[k]
                    det = -det
                det *= A[k, k]
                if A[k, k] != zero:
                    for i in range(k + 1, 3):
                        f = A[i, k] / A[k, k]
                        for j in range(k + 1, 3):
                            A[i, j] -= f * A[k, j]
                        b[i] -= f * b[k]
            s = max(s0, tiny)
            if s0 >= support and abs(det) > tiny * s * s * s:
                c2 = b[2] / A[2, 2]
                c1 = (b[1] - A[1, 2] * c2) / A[1, 1]
                c0 = (b[0] - A[0, 1] * c1 - A[0, 2] * c2) / A[0, 0]
                c[y, x, 0], c[y, x, 1], c[y, x, 2] = c0, c1, c2
                res[y, x] = (bvv - (c0 * b0 + c1 * bx + c2 * by)) / s
            else:                   # too little cloth: the weighted mean
                c[y, x, 0], c[y, x, 1], c[y, x, 2] = b0 / s, zero, zero
                res[y, x] = np.inf
    best = c[:, :, 0].copy()
    best_res = res.copy()
    for oy in (-d, 0, d):
        for ox in (-d, 0, d):
            if ox == 0 and oy == 0:
                continue
            for y in range(max(0, -oy), h - max(0, oy)):     # pixel (y, x) and the window (y + oy, x + ox)
                for x in range(max(0, -ox), w - max(0, ox)):
                    qy, qx = y + oy, x + ox
                    if res[qy, qx] < best_res[y, x]:
                        best[y, x] = c[qy, qx, 0] - c[qy, qx, 1] * np.float32(ox) - c[qy, qx, 2] * np.float32(oy)
                        best_res[y, x] = res[qy, qx]
    return best


def take_off_light(image: np.ndarray, light: AddedLight, origin: tuple = (0, 0), step: int = 1,
                   near: np.ndarray | None = None) -> np.ndarray:
    """A copy of a BGR uint8 image with ``light`` taken off in linear light, where its field covers
    it: field pixel (i, j) is the image's step x step block from (u0 + step j, v0 + step i) (origin
    (u0, v0); step 1: the half-resolution crop, 2: the full frame); only the field's pixels ``near``
    ((h, w) bool, None: all). A pixel loses at most what leaves each channel at LIGHT_FLOOR (where
    the field is too high: a dark pocket, the black ball)."""
    none = np.ones((1, 1), np.bool_)
    return _take_off(np.ascontiguousarray(image), light.field, light.colour, LINEAR_LUT, SRGB_LUT,
                     int(origin[0]), int(origin[1]), int(step), none if near is None else np.ascontiguousarray(near),
                     LINEAR_LUT[LIGHT_FLOOR])


@njit(cache=True)
def _take_off(img, field, colour, lut, srgb, u0, v0, step, near, floor):
    """``take_off_light``: each field pixel's step x step block, a pixel at a time (``_unlit_pixel``: 4.2 ->
    3.6 ms a rendered hard frame's crop at full resolution)."""
    h, w = img.shape[0], img.shape[1]
    out = img.copy()
    hh, hw = field.shape
    every = near.shape[0] != hh
    caps = _off_caps(lut, colour, floor)
    n = np.float32(srgb.size - 1)
    for i in range(hh):
        ya = v0 + step * i
        yb = min(h, ya + step)
        for j in range(hw):
            if not (every or near[i, j]):       # (the mask first: a projector frame's 0.36 -> 0.14 ms of pixels
                continue                         # passed over)
            a = field[i, j]
            if a <= 0.0:
                continue
            xa = u0 + step * j
            xb = min(w, xa + step)
            y = ya
            while y < yb:         # (while, not range: a block of one or four pixels runs 15 % faster)
                x = xa
                while x < xb:
                    lit, b, g, r = _unlit_pixel(img[y, x, 0], img[y, x, 1], img[y, x, 2], a, caps, lut, srgb, colour, n)
                    if lit:
                        out[y, x, 0], out[y, x, 1], out[y, x, 2] = b, g, r
                    x += 1
                y += 1
    return out


@njit(cache=True)
def _off_caps(lut, colour, floor):
    """(3, 256) float32: the most light of ``colour`` (3,) float32 each channel's 8-bit value (its linear
    value ``lut``) can lose before it reaches ``floor`` (0 where the light has none of that channel)."""
    caps = np.zeros((3, 256), np.float32)
    for c in range(3):
        if colour[c] > 0.0:
            inv = np.float32(1.0 / colour[c])
            for v in range(256):
                caps[c, v] = (lut[v] - floor) * inv
    return caps


@njit(cache=True)
def _unlit_pixel(b, g, r, a, caps, lut, srgb, colour, n):
    """(whether it changes, its b, g, r): the BGR uint8 colour b, g, r with a (> 0) of the light ``colour``
    taken off in linear light (``lut``, back through ``srgb`` of n + 1 steps), at most what leaves each
    channel at the floor (``caps``: the least of a and the three caps, compared in turn, not by ``min``: 1.3
    -> 0.9 ms a half-resolution frame); as given where that is not positive. (Colours in and out, not the
    images: a kernel that passes its arrays to it per pixel runs five times slower.) The look-ups back are
    indexed by unsigned whole numbers (truncated as int() truncates: the linear value left is at least the
    floor's, never negative), which numba reads without its check for negative indexes (a rendered hard
    frame's full-resolution take-off 4.0 -> 3.2 ms)."""
    cap = caps[0, b]
    a = cap if cap < a else a
    cap = caps[1, g]
    a = cap if cap < a else a
    cap = caps[2, r]
    a = cap if cap < a else a
    if a > 0.0:
        return (True, srgb[np.uint64((lut[b] - a * colour[0]) * n + 0.5)],
                srgb[np.uint64((lut[g] - a * colour[1]) * n + 0.5)],
                srgb[np.uint64((lut[r] - a * colour[2]) * n + 0.5)])
    return False, b, g, r
