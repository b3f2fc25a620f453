"""The cloth's colour drifting across a frame, and the frame evened out to one cloth colour (pixel-only mode).

A camera's colour shading (its lens and sensor tint the edges of the frame unlike its centre) and its
response curve turn the cloth's colour direction across the frame: in a real development frame the
cloth's colour by one side cushion stands 3.3-5 degrees from the dominant one, and a steeper response
(``--perturb gamma=1.4``) takes that strip past the foreground's angle (``vision.cloth.CHROMA_TAN``,
5 degrees). The cloth region then loses it, its four sides are not found, and the play area falls back to
the region's convex hull, which cuts off the corners and the balls in them (docs/vision.md, "Colour drift").

``colour_field`` fits the cloth's unit colour over the frame, a quadratic in each component (the
brightness surface's terms, ``vision.cloth._surface``), robustly; ``evened`` multiplies each pixel's
channels by the dominant colour over the field's there (a von Kries gain, smooth over the frame, scaled so
that no channel is lowered), so that the cloth has one colour direction everywhere.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.cloth import CHROMA_TAN, _surface, _surface_lstsq

FIELD_NEAR_TAN = 2 * CHROMA_TAN   # samples within this angle's tangent of the cloth's colour fit the field
FIELD_MIN_SAMPLES = 12            # ... at least this many of them (as ``vision.cloth.fit_cloth``), else no field
FIELD_PASSES = 2                  # refits, each without the samples further from the field than ...
FIELD_OUT = 3.0                   # ... this many times their median angle from it (a ball of about the
FIELD_OUT_MIN_DEG = 1.0           # cloth's colour, a rail's) and never nearer than this
GAIN_LIMIT = 2.0                  # a channel's gain is at most this


def _unit(x: np.ndarray) -> np.ndarray:
    """x (..., 3) over the norms along its last axis (NaN where a norm is 0: no direction)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return x / np.linalg.norm(x, axis=-1, keepdims=True)


def colour_field(samples: np.ndarray, u: np.ndarray, v: np.ndarray, chroma: np.ndarray) -> np.ndarray | None:
    """(6, 3) coefficients of the cloth's colour field (``field_at`` evaluates it), or None where fewer than
    FIELD_MIN_SAMPLES samples lie near the cloth's colour.

    samples: (N, 3) BGR colours of a sparse grid over the frame; u, v: (N,) their scaled coordinates; chroma:
    (3,) the cloth's unit colour (``vision.cloth.ClothModel.chroma``). The field is the least-squares
    quadratic in u, v of the unit colours within FIELD_NEAR_TAN of ``chroma`` (of the samples whose norm is above 20
    levels: near black a colour's direction is noise), refitted FIELD_PASSES times without the outliers (FIELD_OUT,
    FIELD_OUT_MIN_DEG)."""
    s = np.asarray(samples, np.float64)
    ok = np.linalg.norm(s, axis=1) > 20
    unit = _unit(s[ok])
    near = unit @ chroma > np.cos(np.arctan(FIELD_NEAR_TAN))
    if np.count_nonzero(near) < FIELD_MIN_SAMPLES:
        return None
    u, v, unit = np.asarray(u, np.float64)[ok][near], np.asarray(v, np.float64)[ok][near], unit[near]
    keep = np.ones(unit.shape[0], bool)
    for _ in range(FIELD_PASSES):
        coef = _fitted(unit, u, v, keep)
        off = np.arccos(np.clip(np.sum(field_at(coef, u, v) * unit, axis=1), -1.0, 1.0))
        inlier = off < max(np.radians(FIELD_OUT_MIN_DEG), FIELD_OUT * np.median(off[keep]))
        if np.count_nonzero(inlier) < FIELD_MIN_SAMPLES:
            break
        keep = inlier
    return _fitted(unit, u, v, keep)


def _fitted(unit: np.ndarray, u: np.ndarray, v: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(6, 3) each component of the unit colours (N, 3) as a quadratic surface at u, v (N,) over the rows (N,)
    bool (``vision.cloth._surface_lstsq``)."""
    return np.stack([_surface_lstsq(np.ascontiguousarray(unit[:, k]), u, v, rows) for k in range(3)], axis=1)


def field_at(coef: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(..., 3) the cloth's unit colour by ``colour_field``'s coefficients (6, 3) at scaled coordinates u, v
    (arrays of one shape)."""
    return _unit(_surface(coef, np.asarray(u, np.float64)[..., None], np.asarray(v, np.float64)[..., None]))


def evened(image: np.ndarray, coef: np.ndarray, chroma: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A copy of a BGR uint8 frame (h, w, 3) with each channel times chroma / the field's colour over the least of
    the three (so that no channel is lowered: a clipped highlight stays white; each gain between 1 and GAIN_LIMIT,
    where the field is far off the cloth's colour too), rounded and clipped to 0-255: the cloth takes the colour
    direction ``chroma`` (3,) everywhere.

    coef: (6, 3) ``colour_field``'s; u, v: (gh, gw) the scaled coordinates of a regular grid of cells over the
    frame at which the gains are found (their centres; the gains are resized over the frame between them)."""
    # (each ratio at most GAIN_LIMIT first: the quadratic, carried out to the frame's corners, may run a component
    # down to 0 or below there, or to no direction at all)
    ratio = chroma / np.fmax(field_at(coef, u, v), chroma / GAIN_LIMIT)
    gains = np.minimum(ratio / ratio.min(axis=-1, keepdims=True), GAIN_LIMIT).astype(np.float32)
    gains = cv2.resize(gains, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(image.astype(np.float32), gains, dtype=cv2.CV_8U)
