"""Balls in any overhead image, given only their approximate radius in pixels (no camera model).

The stages are the calibrated detector's (``vision.detect``), with what the table model gave found
in the image instead:

1. ``fit_cloth`` on a sparse grid of the whole image, then ``cloth_region`` (the play area: the
   hull of the largest cloth-coloured region), and the cloth model fitted again inside it (the
   rails and the room no longer pull it);
2. ``foreground`` inside the play area, minus ``hole_mask`` (dark regions wider than a ball:
   pocket holes);
3. ``candidates``: radial-symmetry peaks in foreground blobs (as calibrated, one radius);
4. outline points by the strongest colour step along 48 normals (``vision.steps``), three passes
   narrowing the band (SEARCH_WIDTHS) with a robust circle fit after each (``fit_circles``);
   normals that run into another ball are dropped;
5. acceptance: enough consistent outline points, a small residual, a radius near the expected one;
   of two fits closer than a radius the one with more points stays.

Centres are the outline circles' centres (with perspective, the outline's centre, not the ball's).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.cloth import cloth_region, fit_cloth, foreground, hole_mask
from vision.detect import Detections, _distinct, _empty, candidates, near_neighbours
from vision.fits import fit_circles
from vision.steps import ray_directions, step_points

SEARCH_WIDTHS = (6.0, 3.0, 2.0)   # px either side of the circle, per pass
SMOOTH_SIGMA = 1.0                 # px, Gaussian smoothing before the colour derivative
MIN_STEP = 8.0                     # weakest colour step accepted (8-bit units per half pixel)
RADIUS_TOLERANCE = 0.3             # a fitted radius within this share of the given one
MIN_POINTS = 16                    # consistent outline points a ball needs (of 48)
RMS_MAX = 1.0                      # px, circle-fit residual RMS of a ball
GRID_CELLS = 40                    # cloth samples along the image's shorter side


def detect_in_pixels(image: np.ndarray, radius_px: float) -> Detections:
    """Balls of roughly ``radius_px`` (outline radius [px]) in a BGR uint8 image of any table.

    Returns Detections with px the outline circles' centres [px], r_px their radii, xy NaN,
    rms_px the circle fits' residuals, n_edges the outline points used.
    Raises ValueError for an image that is not BGR, a radius below 3 px, or no cloth in view.
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected a BGR image, got shape {image.shape}")
    if not radius_px >= 3:
        raise ValueError(f"--radius-px must be at least 3 pixels, got {radius_px}")
    h, w = image.shape[:2]
    hw, hh = w // 2, h // 2
    half = cv2.resize(image[:2 * hh, :2 * hw], (hw, hh), interpolation=cv2.INTER_AREA)
    step = max(2, int(min(hw, hh) / GRID_CELLS))
    sv, su = np.mgrid[step // 2:hh:step, step // 2:hw:step]
    su, sv = su.ravel(), sv.ravel()
    scale = 1.0 / max(hw, hh)
    cu, cv_ = np.meshgrid(np.arange(0, hw, 8) + 3.5, np.arange(0, hh, 8) + 3.5)

    def lit(model):
        return cv2.resize(model.brightness(cu, cv_).astype(np.float32), (hw, hh), interpolation=cv2.INTER_LINEAR)

    model = fit_cloth(half[sv, su], su, sv, scale)
    region = cloth_region(half, model, lit(model))
    inside = region[sv, su] > 0
    model = fit_cloth(half[sv[inside], su[inside]], su[inside], sv[inside], scale)
    bright = lit(model)
    r_half = radius_px / 2
    allowed = (region > 0) & ~hole_mask(half, model, bright, r_half)
    fg = cv2.bitwise_and(foreground(half, model, bright), region * 255)
    box = max(3, int(round(1.25 * r_half)) | 1)
    known_count = cv2.boxFilter(region, cv2.CV_32F, (box, box), normalize=False)
    cand, fill = candidates(half, fg, region, known_count, allowed, r_half, box)
    if cand.shape[0] == 0:
        return _empty()
    c = np.stack([2 * cand[:, 0] + 0.5, 2 * cand[:, 1] + 0.5], axis=1)
    r = np.full(c.shape[0], float(radius_px))
    smooth = cv2.GaussianBlur(image, (0, 0), SMOOTH_SIGMA).astype(np.float32)
    dirs = ray_directions()
    r_lo, r_hi = (1 - RADIUS_TOLERANCE) * radius_px, (1 + RADIUS_TOLERANCE) * radius_px
    start = c.copy()
    for half_width in SEARCH_WIDTHS:
        pts, strength = step_points(smooth, c, r, half_width)
        circle = c[:, None, :] + r[:, None, None] * dirs[None]
        valid = (strength >= MIN_STEP) & ~near_neighbours(circle, c, r, 1.0)
        c, r, rms, tw = fit_circles(pts, valid, c, r)
        r = np.clip(r, r_lo, r_hi)        # a fit that is no ball must not claim its neighbours' edges
    n = (tw > 0.5).sum(axis=1)
    good = ((r > r_lo) & (r < r_hi) & (n >= MIN_POINTS) & (rms < RMS_MAX)
            & (np.linalg.norm(c - start, axis=1) < radius_px))
    keep = _distinct(c, np.where(good, n, -1), radius_px)
    keep = keep[good[keep]]
    cloth_v = model.brightness((c[:, 0] - 0.5) / 2, (c[:, 1] - 0.5) / 2) * model.chroma.max()
    return Detections(px=c, r_px=r, xy=np.full_like(c, np.nan), rms_px=rms, n_edges=n, fill=fill,
                      cloth_v=cloth_v).take(keep)
