"""Balls in a corner pocket's jaws beyond the play area's side (pixel-only mode, half resolution).

On a table whose short cushion is in shade and its nose lit pale, the cushion is still classed as
cloth but the pale band cuts it off from the bed, so the play area's side runs along the nose and a
ball in the corner's jaws has its centre outside the play area (docs/vision.md, pixel-only stage 4).
``jaw_candidates`` looks for it there: in the ``jaw_area`` by each pocket hole, near the play area's
side and near a strip of cloth outside it (the cushion).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.candidates import candidates, known_sums
from vision.cloth import CLOTH, FOREGROUND

JAW_NEAR = 3.0                     # ball radii: a ball in a jaw outside the play area (its side on a shaded cushion's
                                   # nose) lies this near a pocket hole inside the play area ...
JAW_GROW = 1.0                     # ... this near the play area's side ...
JAW_CLOTH = 1.5                    # ... and this near a cushion's strip of cloth outside the play area ...
JAW_STRIP = 0.6                    # ... at least this many radii wide (0.38 kept a cloth-coloured speck on a rail's
                                   # marker by a pocket: 3 false balls on real frames; 0.9 lost a ball)
CHAMFER_STEP = 0.955               # px: cv2.distanceTransform's DIST_L2 3 x 3 mask, a step along a row or column (the
                                   # least per pixel of the larger coordinate difference: a diagonal step 1.3693)


def jaw_candidates(half: np.ndarray, classes: np.ndarray, region: np.ndarray, hole: np.ndarray, r_half: float,
                   box: int) -> tuple:
    """Candidates (``candidates``) of balls in a corner's jaws whose centres lie outside the play area: about
    the pocket holes inside it (``hole`` & ``region``, (h, w) at half resolution as the BGR frame ``half``
    and ``classify``'s ``classes``; r_half the ball radius, box the fill square [px]), with the play area
    taken out to the ``jaw_area`` there. Returns (centres (M, 2) [half-resolution px], fill (M,)) of the
    peaks in the jaw area only."""
    pockets = hole.view(np.uint8) & region    # (1 on them)
    h, w = region.shape
    step = 4                              # (labelled at a quarter of this resolution, any pixel of a cell: cheap)
    _, _, stats, _ = cv2.connectedComponentsWithStats(_any_in_cells(pockets).view(np.uint8), ltype=cv2.CV_16U)
    reach = int(np.ceil((JAW_NEAR + JAW_GROW) * r_half))
    pad = int(np.ceil(r_half)) + box
    found, fills = [np.zeros((0, 2))], [np.zeros(0)]
    for x, y, bw, bh, _ in stats[1:] * [step, step, step, step, 1]:
        x0, y0 = max(0, x - reach), max(0, y - reach)
        sl = (slice(y0, min(h, y + bh + step + reach)), slice(x0, min(w, x + bw + step + reach)))
        jaw = jaw_area(classes[sl], region[sl], pockets[sl], r_half)
        ju, jv, jw, jh = cv2.boundingRect(jaw.view(np.uint8))
        if jw == 0:                       # (most pockets: the play area reaches the cushions' backs)
            continue
        u0, v0 = max(0, x0 + ju - pad), max(0, y0 + jv - pad)   # the candidates' window: the jaw area and a
        win = (slice(v0, min(h, y0 + jv + jh + pad)), slice(u0, min(w, x0 + ju + jw + pad)))   # ball's reach about it
        area = np.zeros((win[0].stop - v0, win[1].stop - u0), bool)
        area[y0 + jv - v0:y0 + jv + jh - v0, x0 + ju - u0:x0 + ju + jw - u0] = jaw[jv:jv + jh, ju:ju + jw]
        seen = region[win] | area.view(np.uint8)
        fg = (classes[win] & FOREGROUND) * seen * np.uint8(255 // FOREGROUND)
        c, f = candidates(np.ascontiguousarray(half[win]), fg, seen, known_sums(seen, box), (seen > 0) & ~hole[win],
                          r_half, box)
        inside = area[c[:, 1].astype(np.intp), c[:, 0].astype(np.intp)]
        found.append(c[inside] + [u0, v0])
        fills.append(f[inside])
    return np.concatenate(found), np.concatenate(fills)


def _any_in_cells(mask: np.ndarray) -> np.ndarray:
    """(ceil(h / 4), ceil(w / 4)) bool: whether any pixel of each 4 x 4 cell of ``mask`` ((h, w) bool or uint8) is set
    (four pixels of a row read as one uint32: about 15 us at half resolution, cv2.resize 80 us)."""
    h, w = mask.shape
    if h % 4 or w % 4:
        mask = np.pad(mask, ((0, -h % 4), (0, -w % 4)))
    rows = np.ascontiguousarray(mask).view(np.uint8).reshape(mask.shape[0] // 4, 4, mask.shape[1]).view(np.uint32)
    return (rows[:, 0] | rows[:, 1] | rows[:, 2] | rows[:, 3]) > 0


def jaw_area(classes: np.ndarray, region: np.ndarray, pockets: np.ndarray, r_half: float) -> np.ndarray:
    """(h, w) bool: where a ball in a corner's jaws may lie outside the play area ``region`` ((h, w) uint8, 1 on it),
    at half resolution (r_half the ball radius [px]): within JAW_NEAR radii of the pocket holes inside the
    play area (``pockets`` (h, w) uint8, 1 on them), JAW_GROW radii beyond the play area's side, and JAW_CLOTH radii of
    a cushion's strip of cloth outside it (``classify``'s ``classes``: CLOTH at least JAW_STRIP radii wide;
    the play area's side lies on a shaded cushion's nose, the cushion and the jaw's balls beyond it).
    Beside a rail (the side on the cushion's back) there is no such strip: a marker there stays out.
    Distances are whole pixels (rounded) and the 3 x 3 mask's approximation of the Euclidean."""
    cloth = (classes & CLOTH) > region    # (outside it)
    k = 2 * int(round(JAW_STRIP / 2 * r_half)) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    core = cv2.erode(cloth.view(np.uint8), disc)   # (the opening: this, dilated; empty when this is)
    if not core.any():                    # (a window over the rails, or the play area reaching the cushions' backs)
        return np.zeros(region.shape, bool)
    strip = cv2.dilate(core, disc)
    near, grow, reach = (round(radii * r_half) + 0.5 for radii in (JAW_NEAR, JAW_GROW, JAW_CLOTH))
    # (the jaw area lies near both the strip and the pockets: only a box about them is measured, exactly)
    area = np.zeros(region.shape, bool)
    box = _near_box(pockets, near)
    box = box and _near_box(strip, reach, box)
    if box:
        area[box] = ((region[box] == 0) & _within(pockets, near, box) & _within(region, grow, box)
                     & _within(strip, reach, box))
    return area


def _reach_px(dist: float) -> int:
    """Whole pixels (along a row or column, the larger coordinate difference) within which every pixel lies
    that is within the 3 x 3 mask's distance dist [px] of a pixel (a safe bound: one more)."""
    return int(dist / CHAMFER_STEP) + 1


def _near_box(mask: np.ndarray, dist: float, within: tuple | None = None) -> tuple | None:
    """The (rows, columns) slices of ``mask`` ((h, w) uint8) bounding every pixel within the 3 x 3 mask's
    distance dist [px] of its set pixels (``_reach_px`` about their bounding box), inside the slices
    ``within`` (default: all of it); None when that is empty."""
    x, y, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        return None
    e = _reach_px(dist)
    h, w = mask.shape
    rows, cols = within or (slice(None), slice(None))
    (y0, y1, _), (x0, x1, _) = rows.indices(h), cols.indices(w)
    y0, y1, x0, x1 = max(y0, y - e), min(y1, y + bh + e), max(x0, x - e), min(x1, x + bw + e)
    return (slice(y0, y1), slice(x0, x1)) if y0 < y1 and x0 < x1 else None


def _within(mask: np.ndarray, dist: float, box: tuple) -> np.ndarray:
    """The pixels of the slices ``box`` of ``mask`` ((h, w) bool or uint8) within distance dist [px] of its set
    pixels (the 3 x 3 mask's approximation of the Euclidean): measured in the box grown by ``_reach_px``
    only (a shortest path stays within its ends' bounding box: the same answer as over the whole mask)."""
    e = _reach_px(dist)
    h, w = mask.shape
    (y0, y1, _), (x0, x1, _) = box[0].indices(h), box[1].indices(w)
    g0, g1, f0, f1 = max(0, y0 - e), min(h, y1 + e), max(0, x0 - e), min(w, x1 + e)
    far = cv2.distanceTransform((mask[g0:g1, f0:f1] == 0).view(np.uint8), cv2.DIST_L2, 3)
    return far[y0 - g0:y1 - g0, x0 - f0:x1 - f0] <= dist
