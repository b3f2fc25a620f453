"""Tell the balls apart: cue, 8, solids 1-7 and stripes 9-15 (8-ball), or a colour name (any balls).

Per ball, the pixels inside 0.92 of its outline radius are split (OpenCV 8-bit HSV) into white
(low saturation, not dark), black (dark, or grey: unsaturated under GREY_REL of the lit cloth's
value) and coloured; the features are the white and black
shares and, of the coloured pixels, the mean hue and their brightness relative to the lit cloth
beside the ball (that tells red from maroon, which share a hue). Stripes show white caps
(25-75 % of the ball from above), solids at most a number disc (under ~20 %), the cue ball is
all white, the 8 mostly black.

Each ball gets a cost for every id (squared distances to the id's prototype, from the colours in
``vision.balls``); ids are then assigned jointly (each id at most once, Hungarian method,
``scipy.optimize.linear_sum_assignment``). The hue is the sharper colour cue (SIGMA_HUE): the
brightness relative to the cloth moves with the cloth's own colour, so it is read over the frame's gain
(``_brightness_gain``: the balls' median ratio to the colours their hues name). The cue ball must also be
bright (CUE_MIN_V: an 8 under a sheen reads all unsaturated, like the cue, but grey) and show no more colour
than its own shading and specular give (CUE_MAX_COLOUR: with no cue ball on the table, after a scratch, no
stripe seen mostly white takes its id: of 16 ids for 15 balls the one left over is then the cue's), the 8 shows
little colour (EIGHT_MAX_COLOUR: else a coloured ball read badly takes a missed 8's id), white spread
wide under a stripe's least white is no sign of caps, and a
colour's solid and stripe seen in one frame are ordered by their white (``_twins_by_white``). The
confidence of a ball's id is its share of exp(-cost) over all ids still available to it. Below
CONFIDENT the number is not claimed and the label is the class ('solid' or 'stripe').

The registered pipeline reads each ball twice (``ball_readings``): under the white light the
cloth beside it shows (``added``, for the cue ball's cost) and under the light its own darkest
channel shows (for every other id: a coloured ball or the 8 has a channel of almost no albedo, so
what that channel shows is light added to it). Pixels on halo rings a projector draws round the
balls (``vision.halo_rings``) are left out of both.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from planner.jit import njit
from planner.state import ball_class
from vision.balls import (
    BALL_SRGB,
    CLOTH_SRGB,
    CODES_LUT,
    COLOUR_NAMES,
    LINEAR_LUT,
    SNOOKER_COLOURS,
    SRGB_LUT,
    linear_to_srgb,
    srgb_to_linear,
)
from vision.halo_rings import ring_distances, ring_pixels

SAMPLE_SHARE = 0.92       # sample within this share of the outline radius
CORE_SHARE = 0.75         # ... and the median saturation and value within this share
WHITE_MAX_SAT = 75        # HSV saturation (0-255) below which a bright pixel is white
BLACK_MAX_VAL = 45        # HSV value (0-255) below which a pixel is black
CONFIDENT = 0.6           # claim a number only at this confidence
# snooker (plain balls) by the median pixel: white is unsaturated, pink the one pale colour, black
# much darker than the lit cloth (coloured balls are at least about as bright as it)
SNOOKER_WHITE_SAT = 40.0  # median HSV saturation (0-255) below which a ball is white
SNOOKER_PINK_SAT = 150.0  # ... below which a coloured ball is pink
SNOOKER_BLACK_V = 0.6     # median HSV value over the lit cloth's below which a ball is black
SNOOKER_REDS = 12.0       # hue (0-180) within this of pure red: the red or the brown ball, told by
SNOOKER_RED_BROWN = 0.5   # ... the side of pure red: a red is crimson (magenta side), a brown orange
# prototype spreads (one standard deviation) of the features, for the costs
SIGMA_HUE = 4.0           # OpenCV hue units (0-180); red / orange / maroon sit 11 apart (rel_v moves with the cloth)
SIGMA_REL_V = 0.18
REL_V_MAX_OFF = 1.0       # an id's rel_v cost counts at most this far off (as no reading, NaN): a brightness further
                          # off every colour tells none apart (a white-heavy stripe's under its own light, dark cloth)
SIGMA_WHITE = 0.12
SIGMA_BLACK = 0.12
SIGMA_SPREAD = 0.05
CUE_MIN_V = 1.3           # the cue ball's median HSV value over the lit cloth's at least (white, not grey)
GREY_REL = 0.6            # an unsaturated pixel darker than this share of the lit cloth's value is black
TWIN_MARGIN = 0.05        # white share by which a solid must outshine its stripe twin to swap them (rendered x20,
                          # seeds 5/41/77, all conditions: twins the costs put in the wrong order showed 0.14-0.41
                          # more white on the solid, in the right order 0.08 or more less; 0.15 left the 0.14 pair)
SOLID_MAX_SPREAD = 0.22   # white spread of a solid's number discs at most
EIGHT_MAX_COLOUR = 0.3    # the 8's coloured share at most (0.29: the hard condition's tinted projector light on it;
                          # 0.05 or less under halo rings, JPEG, a white projector or sheen; 0 in the sim game)
SIGMA_EIGHT_COLOUR = 0.06 # ... and beyond, a steep fall (a ball plainly coloured is no 8, as a coloured id pays
                          # about 500 for a ball with no hue): else a coloured ball read badly takes a missed 8's id
CUE_MAX_COLOUR = 0.02     # the cue ball's coloured share at most (its shading and specular: 0.013 at most on 800
                          # rendered cue balls, every condition, seeds 5 and 41; a stripe seen 70 % white or more
                          # 0.05+ unless it reads all white) ...
SIGMA_CUE_COLOUR = 0.01   # ... and beyond, a steep fall: with no cue ball on the table (a scratch) the whitest
                          # stripe took the cue's id, as the cue's white cost was the cheapest one left for it
STRIPE_MIN_SPREAD = 0.28  # white spread of a stripe's caps at least
GAIN_MIN_BALLS = 3        # the frame's brightness gain (``_brightness_gain``) from at least this many balls ...
GAIN_MIN_COLOUR = 0.3     # ... each at least this share coloured (a stripe seen from its cap reads a few pixels)
KEEP_MIN = 0.3            # a ball with under this share of its sample points off halo rings keeps this share of them
OWN_LIGHT_PCT = 5.0       # percentile of a ball's darkest channel (linear) taken for the light added on it:
                          # within +-0.025 of the rendered light on 90 % of the solids, stripes and 8s of the
                          # hard condition (seeds 5, 41); the cue ball's is its white (0.27-0.49 over the light)

# 8-ball classes by white share: (expected, tolerance) -- stripes span the range seen from above
_CLASS_WHITE = {"cue": (1.0, 0.05), "solid": (0.1, 0.15), "stripe": (0.5, 0.3), "eight": (0.05, 0.1)}
# snooker and other sets: extra colour prototypes for pixel-only naming (sRGB)
_EXTRA_COLOURS = {"pink": (240, 130, 160), "brown": (120, 70, 35)}


@dataclass(frozen=True)
class BallFeatures:
    """Per ball (M,): white, black, colour shares; hue (0-180, NaN if no colour); rel_v: the
    coloured pixels' 75th-percentile HSV value over the lit cloth's value; spread: the white
    pixels' standard deviation along their narrower principal axis, over the radius (number discs
    are small, even two of them seen edge-on; a stripe's white caps are long chords or a wide disc);
    sat: the median HSV saturation and v_med the median HSV value over the lit cloth's, both of
    all pixels within CORE_SHARE of the radius (for naming colours: a white ball is unsaturated,
    pink less saturated than red, black darker than the cloth, whatever the camera's exposure)."""
    white: np.ndarray
    black: np.ndarray
    colour: np.ndarray
    hue: np.ndarray
    rel_v: np.ndarray
    spread: np.ndarray
    sat: np.ndarray
    v_med: np.ndarray

    def __getitem__(self, index) -> BallFeatures:
        """The features with every (M,) array indexed by ``index`` (a slice of the balls, or [:, None] for a
        column against a row of prototypes)."""
        return BallFeatures(*(getattr(self, k)[index] for k in BallFeatures.__dataclass_fields__))


@dataclass(frozen=True)
class Identity:
    """ids: (M,) assigned ball id (-1 if none could be given); confidence: (M,) 0..1;
    labels: '0'..'15' (the cue is '0' and the 8 is '8') or the class 'solid' / 'stripe' when the
    number is not certain; classes: 'cue', 'eight', 'solid', 'stripe'."""
    ids: np.ndarray
    confidence: np.ndarray
    labels: list[str]
    classes: list[str]


def _hsv(rgb) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[list(rgb)[::-1]]]), cv2.COLOR_BGR2HSV)[0, 0].astype(np.float64)


def _unit_disc_grid(step: float = 0.09) -> np.ndarray:
    """Sample offsets (G, 2) on a square lattice inside the unit disc."""
    g = np.arange(-1.0, 1.0 + 1e-9, step)
    xx, yy = np.meshgrid(g, g)
    keep = xx ** 2 + yy ** 2 <= 1.0
    return np.stack([xx[keep], yy[keep]], axis=1)


_GRID = _unit_disc_grid()
_HUE_ANGLE = np.arange(256) * (np.pi / 90.0)     # an 8-bit HSV hue (0-179) as an angle on the full circle [rad]
_HUE_COS, _HUE_SIN = np.cos(_HUE_ANGLE), np.sin(_HUE_ANGLE)   # ... its cosine and sine, looked up per pixel


def _samples(image: np.ndarray, px: np.ndarray, r_px: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pix (M, G, 3) uint8 BGR, off (M, G, 2), pts (M, G, 2)): the pixels (nearest) on the lattice within
    SAMPLE_SHARE of each outline radius, their offsets from the centre and their positions [px]."""
    h, w = image.shape[:2]
    off = _GRID[None] * (SAMPLE_SHARE * r_px)[:, None, None]            # (M, G, 2)
    pts = px[:, None, :] + off
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    return image[y, x], off, pts


def _kept(pts: np.ndarray, rings: np.ndarray | None) -> np.ndarray:
    """(M, G) bool: the sample points off the halo rings (``vision.halo_rings``); a ball with under
    KEEP_MIN of its points off them keeps the KEEP_MIN of its points furthest from the rings' lines (so
    a centre moved a fraction of a pixel changes a few points, not all: keeping them all named a ringed
    rack's maroon 15 the red 11 once its off-ring share fell from 0.304 to under 0.3)."""
    keep = np.ones(pts.shape[:2], dtype=bool)
    if rings is not None and len(rings):
        keep = ~ring_pixels(pts, rings)
        few = np.flatnonzero(keep.mean(axis=1) < KEEP_MIN)
        if few.size:
            d = ring_distances(pts[few], rings)                                  # (F, G) px
            n = math.ceil(KEEP_MIN * pts.shape[1])
            keep[few] = d >= np.partition(d, d.shape[1] - n, axis=1)[:, d.shape[1] - n, None]
    return keep


def ball_features(image: np.ndarray, px: np.ndarray, r_px: np.ndarray, cloth_v: np.ndarray,
                  added: np.ndarray | None = None, rings: np.ndarray | None = None) -> BallFeatures:
    """Features of balls at pixel centres px (M, 2) with outline radii r_px (M,) in a BGR image;
    cloth_v: (M,) the lit cloth's HSV value (0-255) beside each ball; added: None or (M,) white light
    added about each ball in linear units (a projector, ``vision.detect.added_light``), taken off
    the ball's pixels in linear light first (it whitens a ball as it whitens the cloth); rings: None
    or (K, 3) halo rings (``vision.halo_rings.halo_rings``), whose pixels are left out (an arc of
    light across a solid reads as a stripe's white). Pixels are taken on a lattice of about 390
    points within SAMPLE_SHARE of each outline radius (nearest pixel)."""
    if px.shape[0] == 0:
        z = np.zeros(0)
        return BallFeatures(z, z, z, z, z, z, z, z)
    pix, off, pts = _samples(image, px, r_px)
    return _features(pix, off, r_px, cloth_v, added, _kept(pts, rings))


def ball_readings(image: np.ndarray, px: np.ndarray, r_px: np.ndarray, cloth_v: np.ndarray, added: np.ndarray | None,
                  rings: np.ndarray | None = None) -> tuple[BallFeatures, BallFeatures]:
    """(the features as ``ball_features`` reads them, the features under each ball's own light): the
    same balls read twice for ``identify``. A coloured ball (and the 8) has a channel of almost no
    albedo somewhere on it, so the darkest channel of its darkest pixels (OWN_LIGHT_PCT percentile
    of the kept points, linear) is the white light added there: the second reading takes off the
    larger of that and ``added`` (the cloth's estimate misses light on a cloth whose lit and unlit
    parts the cloth model cannot tell apart, or a grey cloth's), and reads the cloth's value with the
    same light off. It is no reading of the cue ball, all white: its darkest channel is its white; nor of a
    stripe seen mostly white on a dark cloth: a darkest channel above the lit cloth's brightest beside the ball
    is no light added (that would leave the cloth nothing), so there only ``added`` is taken off."""
    if px.shape[0] == 0:
        f = ball_features(image, px, r_px, cloth_v)
        return f, f
    added = np.zeros(px.shape[0]) if added is None else added
    pix, off, pts = _samples(image, px, r_px)
    keep = _kept(pts, rings)
    darkest = np.minimum(np.minimum(pix[..., 0], pix[..., 1]), pix[..., 2])     # (pix.min(axis=2) along the short
    # last axis: 0.16 against 0.008 ms for 16 balls on a loaded core)
    own = _quantile(darkest, LINEAR_LUT, keep, OWN_LIGHT_PCT / 100.0)
    lit = srgb_to_linear(cloth_v) + added                             # the lit cloth's brightest channel
    light = np.where(own < lit, np.maximum(own, added), added)
    cloth = lit - light
    cloth_own = linear_to_srgb(np.maximum(cloth, 0.0))
    M = px.shape[0]
    both = _features(np.concatenate([pix, pix]), np.concatenate([off, off]), np.concatenate([r_px, r_px]),
                     np.concatenate([cloth_v, np.where(cloth_v > 0, cloth_own, cloth_v)]),
                     np.concatenate([added, light]), np.concatenate([keep, keep]))       # (one pass for both)
    return both[:M], both[M:]


def _quantile(codes: np.ndarray, lut: np.ndarray, mask: np.ndarray, q: float) -> np.ndarray:
    """(M,) the q-quantile (linear interpolation, as ``np.quantile``) of each row of lut[codes] (codes
    (M, G) uint8, lut (256,) non-decreasing) over its points ``mask`` (M, G) (each row has at least
    one): its order statistics found by counting the codes (``_order_stats``)."""
    pos = q * (mask.sum(axis=1) - 1)
    lo = np.floor(pos).astype(np.intp)
    a, b = _order_stats(codes, mask, lo, np.minimum(lo + 1, codes.shape[1] - 1))
    a, b = lut[a], np.where(b >= 0, lut[b], np.inf)                  # (the rank past the row's points: none)
    return a + (pos - lo) * np.where(np.isfinite(b), b - a, 0.0)


@njit(cache=True)
def _order_stats(codes, mask, lo, hi):
    """((M,), (M,)) the codes of rank lo[m] and hi[m] (0: the smallest) among row m's codes (M, G) uint8
    where ``mask`` (M, G), -1 for a rank past the row's count."""
    M, G = codes.shape
    out_lo, out_hi = np.full(M, -1, np.int64), np.full(M, -1, np.int64)
    counts = np.empty(256, np.int64)
    for m in range(M):
        counts[:] = 0
        for g in range(G):
            if mask[m, g]:
                counts[codes[m, g]] += 1
        seen = 0
        for c in range(256):
            seen += counts[c]
            if out_lo[m] < 0 and seen > lo[m]:
                out_lo[m] = c
            if seen > hi[m]:
                out_hi[m] = c
                break
    return out_lo, out_hi


def _features(pix: np.ndarray, off: np.ndarray, r_px: np.ndarray, cloth_v: np.ndarray,
              added: np.ndarray | None, keep: np.ndarray) -> BallFeatures:
    """``ball_features`` of the lattice pixels pix (M, G, 3) at offsets off (M, G, 2), of the points ``keep``."""
    M = pix.shape[0]
    if added is not None and np.any(added > 0):         # (look-up tables both ways, as vision.cloth)
        pix = _take_off_white(pix, added.astype(np.float32), LINEAR_LUT, SRGB_LUT)
    hsv8 = cv2.cvtColor(pix, cv2.COLOR_BGR2HSV)
    hsv = hsv8.astype(np.float64)  # (M, G, 3)
    # black: dark, or grey (unsaturated but well under the lit cloth: the 8 under a sheen; white is brighter)
    grey = (hsv[..., 1] < WHITE_MAX_SAT) & (hsv[..., 2] < GREY_REL * cloth_v[:, None])
    black = ((hsv[..., 2] < BLACK_MAX_VAL) | grey) & keep
    white = ~black & (hsv[..., 1] < WHITE_MAX_SAT) & keep
    col = ~black & ~white & keep
    G = keep.sum(1)
    core = (np.linalg.norm(_GRID, axis=1) <= CORE_SHARE / SAMPLE_SHARE)[None] & keep
    core[~core.any(axis=1)] = True
    out = {"white": white.sum(1) / G, "black": black.sum(1) / G, "colour": col.sum(1) / G,
           "hue": np.full(M, np.nan), "rel_v": np.full(M, np.nan),
           "sat": _quantile(hsv8[..., 1], CODES_LUT, core, 0.5),
           "v_med": _quantile(hsv8[..., 2], CODES_LUT, core, 0.5) / np.maximum(cloth_v, 1.0)}
    h8 = hsv[..., 0].astype(np.intp)
    wgt = hsv[..., 1] * col
    hue = (np.degrees(np.arctan2((wgt * _HUE_SIN[h8]).sum(1), (wgt * _HUE_COS[h8]).sum(1))) / 2) % 180
    has_col = col.sum(1) >= 3
    out["hue"][has_col] = hue[has_col]
    if has_col.any():        # 75th percentile of the coloured pixels' value (an order statistic of their codes)
        q = np.floor(0.75 * (col.sum(1)[has_col] - 1)).astype(np.intp)
        v = CODES_LUT[_order_stats(hsv8[..., 2][has_col], col[has_col], q, q)[0]]
        out["rel_v"][has_col] = v / np.maximum(cloth_v[has_col], 1.0)
    out["spread"] = _white_spread(white, np.ascontiguousarray(off, np.float64), np.asarray(r_px, np.float64))
    return BallFeatures(**out)


@njit(cache=True)
def _take_off_white(pix, added, lin_lut, srgb_lut):
    """(M, G, 3) uint8: the 8-bit sRGB pixels pix (M, G, 3) with the white light added (M,) float32 [linear]
    taken off each ball's, in float32 linear light (lin_lut: 8-bit -> linear float32; srgb_lut: linear
    in its size - 1 steps -> 8-bit), clipped to [0, 1]."""
    out = np.empty_like(pix)
    top = np.float32(srgb_lut.size - 1)
    lo, hi = np.float32(0.0), np.float32(1.0)
    for m in range(pix.shape[0]):
        a = added[m]
        for g in range(pix.shape[1]):
            for c in range(pix.shape[2]):
                v = min(max(lin_lut[pix[m, g, c]] - a, lo), hi)
                out[m, g, c] = srgb_lut[int(np.rint(v * top))]
    return out


@njit(cache=True)
def _white_spread(white, off, r_px):
    """(M,) the spread of each ball's white points (white (M, G) bool, at offsets off (M, G, 2) [px])
    along their narrower principal axis: the root of the smaller eigenvalue of their covariance, in
    outline radii r_px (M,); NaN for a ball with fewer than 3."""
    M, G = white.shape
    out = np.full(M, np.nan)
    for m in range(M):
        n, sx, sy = 0, 0.0, 0.0
        for g in range(G):
            if white[m, g]:
                n += 1
                sx += off[m, g, 0]
                sy += off[m, g, 1]
        if n < 3:
            continue
        mx, my = sx / n, sy / n
        cxx = cyy = cxy = 0.0
        for g in range(G):
            if white[m, g]:
                dx, dy = off[m, g, 0] - mx, off[m, g, 1] - my
                cxx += dx * dx
                cyy += dy * dy
                cxy += dx * dy
        cxx, cyy, cxy = cxx / n, cyy / n, cxy / n
        lam = (cxx + cyy) / 2 - math.sqrt(((cxx - cyy) / 2) ** 2 + cxy ** 2)
        out[m] = math.sqrt(max(lam, 0.0)) / r_px[m]
    return out


def _hue_dist(a, b) -> np.ndarray:
    d = np.abs(np.asarray(a) - np.asarray(b)) % 180
    return np.minimum(d, 180 - d)


BALL_SETS = ("any", "pool", "snooker")


@functools.cache
def _colour_prototypes(extra: bool, ball_set: str = "pool") -> dict[str, tuple[float, float]]:
    """name -> (hue, value relative to the cloth) of each main ball colour (and extras); for the
    snooker set its coloured balls (``vision.balls.SNOOKER_COLOURS``, white and black aside)."""
    cloth_v = _hsv(CLOTH_SRGB)[2]
    if ball_set == "snooker":
        return {k: (_hsv(v)[0], _hsv(v)[2] / cloth_v) for k, v in SNOOKER_COLOURS.items()
                if k not in ("white", "black")}
    protos = {COLOUR_NAMES[i]: (_hsv(BALL_SRGB[i])[0], _hsv(BALL_SRGB[i])[2] / cloth_v) for i in range(1, 8)}
    if extra:
        protos.update({k: (_hsv(v)[0], _hsv(v)[2] / cloth_v) for k, v in _EXTRA_COLOURS.items()})
    return protos


def _colour_cost(f: BallFeatures, hue: float, rel_v: float, max_off: float = np.inf) -> np.ndarray:
    """Cost of readings f against a colour (hue, rel_v): squared sigma distances, rel_v counted at most
    max_off off (a NaN as 1.0 off)."""
    dh = np.where(np.isnan(f.hue), 90.0, _hue_dist(f.hue, hue))
    dv = np.where(np.isnan(f.rel_v), 1.0, np.clip(f.rel_v - rel_v, -max_off, max_off))
    return (dh / SIGMA_HUE) ** 2 + (dv / SIGMA_REL_V) ** 2


def id_costs(f: BallFeatures, own: BallFeatures | None = None) -> np.ndarray:
    """(M, 16) cost (like -2 log likelihood) of each ball being each id: the cue ball's from ``f``,
    every other id's from ``own`` (the balls read under their own light, ``ball_readings``; None: ``f``); the
    coloured ids' over the reading's brightness gain (``_brightness_gain``)."""
    return np.concatenate([_costs(f, range(1)), _costs(f if own is None else own, range(1, 16))], axis=1)


def _brightness_gain(f: BallFeatures) -> float:
    """The frame's gain of the coloured balls' brightness over the cloth (rel_v) against the prototypes': the
    median ratio of each ball's rel_v to the rel_v of the colour its hue is nearest, over the balls at least
    GAIN_MIN_COLOUR coloured whose nearest colour is not red or maroon (one hue: their brightness is what tells
    them apart); 1.0 from fewer than GAIN_MIN_BALLS. rel_v is a ball's brightness over the lit cloth's beside it,
    so a cloth darker in its brightest channel than the prototypes' green (a burgundy cloth under a sheen: 1.2-1.4)
    scales every colour's alike."""
    protos = _colour_prototypes(extra=False)
    names = [n for n in protos if n not in ("red", "maroon")]
    hue, rel_v = np.array([protos[n] for n in protos]).T
    ok = np.isfinite(f.hue) & np.isfinite(f.rel_v) & (np.nan_to_num(f.colour, nan=0.0) >= GAIN_MIN_COLOUR)
    near = np.argmin(_hue_dist(np.nan_to_num(f.hue)[:, None], hue[None]), axis=1)
    ok &= np.isin(np.array(list(protos))[near], names)
    if ok.sum() < GAIN_MIN_BALLS:
        return 1.0
    return float(np.median(f.rel_v[ok] / rel_v[near[ok]]))


def _costs(f: BallFeatures, ids) -> np.ndarray:
    """(M, len(ids)) ``id_costs`` of the ids ``ids`` from one reading ``f``."""
    M = f.white.shape[0]
    white = np.nan_to_num(f.white, nan=0.0)
    black = np.nan_to_num(f.black, nan=0.0)
    colour = np.nan_to_num(f.colour, nan=0.0)
    protos = _colour_prototypes(extra=False)
    spread = np.nan_to_num(f.spread, nan=0.0)
    ids = list(ids)
    classes = [ball_class(bid) for bid in ids]
    base = {}                   # per class: the cost of its white share and black share (the 8's: its colour too)
    # the spread tells a number disc from caps where the white share is ambiguous (0.1-0.45); below, the
    # white is a few specular highlights and its spread means nothing. Below a stripe's least white (its
    # class's floor, 0.2) no white is caps: white spread wide there (a halo ring's streaks, a lit limb) is
    # no sign of a stripe, so the solid's wide-spread cost counts from that floor; compact white is still
    # a number disc, so the stripe's narrow-spread cost counts from 0.1 (docs/vision.md, Identity)
    ambiguous = np.clip((white - 0.1) / 0.1, 0, 1) * np.clip((0.45 - white) / 0.1, 0, 1)
    least = _CLASS_WHITE["stripe"][0] - _CLASS_WHITE["stripe"][1]
    may_be_caps = np.clip((white - least) / 0.1, 0, 1) * np.clip((0.45 - white) / 0.1, 0, 1)
    for cls in dict.fromkeys(classes):
        mu, tol = _CLASS_WHITE[cls]
        cw = (np.maximum(np.abs(white - mu) - tol, 0.0) / SIGMA_WHITE) ** 2
        if cls == "solid":
            cw += may_be_caps * (np.maximum(spread - SOLID_MAX_SPREAD, 0.0) / SIGMA_SPREAD) ** 2
        elif cls == "stripe":
            cw += ambiguous * (np.maximum(STRIPE_MIN_SPREAD - spread, 0.0) / SIGMA_SPREAD) ** 2
        if cls == "cue":
            dim = np.maximum(CUE_MIN_V - np.nan_to_num(f.v_med, nan=CUE_MIN_V), 0.0)
            base[cls] = (cw + (black / SIGMA_BLACK) ** 2 + (dim / SIGMA_REL_V) ** 2
                         + (np.maximum(colour - CUE_MAX_COLOUR, 0.0) / SIGMA_CUE_COLOUR) ** 2)
        elif cls == "eight":
            base[cls] = (cw + (np.maximum(0.6 - black, 0.0) / SIGMA_BLACK) ** 2
                         + (np.maximum(colour - EIGHT_MAX_COLOUR, 0.0) / SIGMA_EIGHT_COLOUR) ** 2)
        else:
            base[cls] = cw + (np.maximum(black - 0.25, 0.0) / SIGMA_BLACK) ** 2
    cost = np.zeros((M, len(ids)))
    for col, cls in enumerate(classes):
        cost[:, col] = base[cls]
    coloured = [col for col, cls in enumerate(classes) if cls in ("solid", "stripe")]
    if coloured:                # every colour's cost at once: (M, 1) readings against (K,) prototypes
        hue, rel_v = np.array([protos[COLOUR_NAMES[ids[c] if ids[c] < 8 else ids[c] - 8]] for c in coloured]).T
        read = dataclasses.replace(f, rel_v=f.rel_v / _brightness_gain(f))     # (the frame's gain taken off)
        cost[:, coloured] += _colour_cost(read[:, None], hue, rel_v, REL_V_MAX_OFF)
    return cost


def _twins_by_white(ids: np.ndarray, white: np.ndarray) -> None:
    """A colour's solid (c) and stripe (c + 8) both given in one frame: the stripe is the one that
    shows more white (its caps). Where the ball named the solid shows more white than the one named
    the stripe by over TWIN_MARGIN, their ids are swapped (in place). Per-ball costs alone swap
    them when added light (a halo ring across the solid) whitens the solid's pixels."""
    for c in range(1, 8):
        i, j = np.flatnonzero(ids == c), np.flatnonzero(ids == c + 8)
        if len(i) and len(j) and white[i[0]] - white[j[0]] > TWIN_MARGIN:
            ids[i[0]], ids[j[0]] = c + 8, c


def assignment_confidence(cost: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(len(rows),) each assigned ball's share of exp(-cost / 2) over its own id and every id no ball took: cost
    (M, K) per ball and id, ball rows[k] assigned id cols[k]. Shifted by the least cost among those ids, so that a
    ball whose near ids all went to others (every share under exp(-745): a white-balance drift's colours) still has
    a share (0 where its own id is that far behind), not 0 / 0."""
    taken = np.zeros(cost.shape[1], dtype=bool)
    taken[cols] = True
    conf = np.empty(len(rows))
    for k, (r, c) in enumerate(zip(rows, cols)):
        avail = ~taken
        avail[c] = True                      # the ball's own id and every id nobody took
        a = cost[r, avail]
        conf[k] = math.exp(-0.5 * (cost[r, c] - a.min())) / np.exp(-0.5 * (a - a.min())).sum()
    return conf


def identify(f: BallFeatures, own: BallFeatures | None = None) -> Identity:
    """8-ball ids for the balls described by ``f`` and, for every id but the cue ball's, ``own``
    (the same balls under their own light, ``ball_readings``; None: ``f``; see the module notes)."""
    own = f if own is None else own
    cost = id_costs(f, own)
    M = cost.shape[0]
    ids = np.full(M, -1)
    conf = np.zeros(M)
    if M:
        rows, cols = linear_sum_assignment(cost)
        ids[rows] = cols
        _twins_by_white(ids, own.white)
        conf[rows] = assignment_confidence(cost, rows, ids[rows])
    classes = [ball_class(int(i)) if i >= 0 else "unknown" for i in ids]
    labels = []
    for i, c, k in zip(ids, conf, classes):
        if i < 0:
            labels.append("unknown")
        elif k in ("cue", "eight") or c >= CONFIDENT:
            labels.append(str(int(i)))
        else:
            labels.append(k)
    return Identity(ids=ids, confidence=conf, labels=labels, classes=classes)


def colour_names(f: BallFeatures, ball_set: str = "any") -> tuple[list[str], np.ndarray]:
    """A colour class per ball: 'white', 'black', a colour name, with ' stripe' appended for a
    coloured ball with white caps (not for 'snooker', whose balls are plain). ball_set: 'any'
    (pool colours and pink, brown), 'pool' or 'snooker' (red, yellow, green, brown, blue, pink;
    white, black and pink by the median pixel's saturation and value, red and brown by the side of
    pure red their hue is on, SNOOKER_*).
    Returns (names (M,), confidence (M,) 0..1). Raises ValueError for another ball_set."""
    if ball_set not in BALL_SETS:
        raise ValueError(f"ball_set must be one of {BALL_SETS}, got {ball_set!r}")
    protos = _colour_prototypes(extra=ball_set == "any", ball_set=ball_set)
    stripes = ball_set != "snooker"
    names, conf = [], []
    for i in range(f.white.shape[0]):
        w, k = np.nan_to_num(f.white[i]), np.nan_to_num(f.black[i])
        if not stripes:           # plain balls: the median pixel decides white, black and pink
            if f.sat[i] < SNOOKER_WHITE_SAT:
                names.append("white")
                conf.append(float(np.clip((SNOOKER_WHITE_SAT - f.sat[i]) / 20.0, 0.0, 1.0)))
                continue
            if f.v_med[i] < SNOOKER_BLACK_V:
                names.append("black")
                conf.append(float(np.clip((SNOOKER_BLACK_V - f.v_med[i]) / 0.2, 0.0, 1.0)))
                continue
            if f.sat[i] < SNOOKER_PINK_SAT:
                names.append("pink")
                conf.append(float(np.clip((SNOOKER_PINK_SAT - f.sat[i]) / 40.0, 0.0, 1.0)))
                continue
            h = f.hue[i]
            if np.isfinite(h) and _hue_dist(h, 0.0) <= SNOOKER_REDS:
                side = ((h + 90.0) % 180.0) - 90.0        # signed: < 0 magenta side, > 0 orange side
                names.append("brown" if side > SNOOKER_RED_BROWN else "red")
                conf.append(float(np.clip(abs(side - SNOOKER_RED_BROWN) / 2.0, 0.0, 1.0)))
                continue
        if w >= 0.8:
            names.append("white")
            conf.append(min(1.0, (w - 0.6) / 0.3))
            continue
        if k >= 0.5:
            names.append("black")
            conf.append(min(1.0, (k - 0.3) / 0.4))
            continue
        sub = BallFeatures(*(np.array([getattr(f, a)[i]]) for a in ("white", "black", "colour", "hue", "rel_v",
                                                                      "spread", "sat", "v_med")))
        # snooker: what is left is yellow, green or blue, told by hue alone (brightness follows exposure)
        costs = np.array([_colour_cost(sub, h, v)[0] if stripes
                          else np.inf if n in ("pink", "red", "brown") else (_hue_dist(sub.hue[0], h) / SIGMA_HUE) ** 2
                          for n, (h, v) in protos.items()])
        p = np.exp(-0.5 * (costs - costs.min()))
        j = int(np.argmin(costs))
        name = list(protos)[j] + (" stripe" if stripes and w >= 0.25 else "")
        names.append(name)
        conf.append(float(p[j] / p.sum()))
    return names, np.array(conf)
