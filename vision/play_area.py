"""The play area of a table found in pixels (no table model): the cloth bed out to the cushion backs.

The cushions are covered in the cloth, so the largest connected region of cloth-coloured, lit
pixels reaches the cushion backs all round, except where pockets, and balls sitting in the jaws,
cut into it. Its outline's straight runs along the four cushion backs are the rail lines; the
quadrilateral they bound takes in the jaws and the balls in them, and leaves out the rails with
their diamonds and markers (the quadrilateral, not the region's convex hull, which cuts the corners
off at the jaws). Where four sides cannot be told apart (a table seen only in part) the region's
convex hull is the play area. Where sheen or a projector lights part of a rail into the cloth's
colour the region spills over it and that side's fit leans out across the rail; the sides are
squared up to the straightest one (``_square_up``). Where a cushion's shadow line cuts its strip
off the bed along part of a side, that side is fitted to the rail's edge along the rest only and
leans out across the rail at the far end (the lens bows the edge); it is refitted to the cloth's
edge along its whole length (``to_cloth_edges``; docs/vision.md stage 2 gives the figures). Where a whole
rail, or the room beyond it, is lit into the cloth's colour, that side lies out beyond the rail with its
corner pockets well inside it; it is moved onto them once the pocket holes are known (``within_pockets``).
Where a strip of the bed under a projector's light or in shade is not taken for cloth, a side runs down the
bed with its corner pockets beyond it; it is moved out onto them the same way.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from planner.aim import unit
from planner.jit import njit
from vision.cloth import CLOTH

ON_HULL = 1            # [px] outline points this close to the convex hull can lie on a side
SIDE_TOL_DEG = 15.0    # an outline point's tangent within this angle of a side's direction
TANGENT_SPAN = 4       # outline points either side for a point's tangent
MIN_SIDE_POINTS = 20   # a side needs this many points
LINE_ITERS = 3         # re-weighted line fits per side (points within 3 robust sigmas)
SQUARE_DEG = 3.0       # a side's fitted direction within this of the best side's (or square to it)
STRAIGHT_POINTS = 80   # the side that sets the direction has this many points on its line
RUN_WIDTH = 4.0        # [px] a side's innermost run of outline points lies within this width
EDGE_OUT = 3           # [px] a side's cloth edge is looked for from this far outside its line ...
EDGE_IN = 16           # [px] ... to this far inside it (a leaning end stood 3-6 px out, a cushion is ~10 wide)
EDGE_COVER = 0.4       # a refit has this share of each third of the side on its line (leaning sides 0.45-0.82;
                       # a fit mixing a shaded cushion's nose and the rail's edge 0-0.3 in some third) ...
EDGE_MOVE = 1.0        # [px] ... and moves an end by more than this (sub-pixel moves changed rendered marginal circles)
POCKET_AREA = 6.0      # [ball discs] a pocket hole's area at most this (the rendered ones 2-3; a dark room beyond
                       # the table can pass for a hole and is larger)
POCKET_END = 0.25      # a side's corner pocket lies within this share of the side's length of its end
SPILL = 3.0            # [ball radii] a side's corner pockets this far inside it at both ends: the side lies out
                       # beyond the rail (rendered: 0.7-2.4 where it lies on the cushion line, 5.2-11.5 beyond)
CORNER_REACH = 2.0     # [ball radii] a corner of the play area has a hole this near it in x and y (its corner
                       # pocket; real frames up to 1.3, rendered 1.5 where no side lies beyond its rail)
CUT_REACH = 2.0        # [halfways] a cut side's corner pocket lies at most this many times the side's distance to the
                       # play area's centre beyond it (a side cut halfway across the bed: 1.5)
POCKET_DEPTH = 1.5     # [ball radii] a side lies this far outside the line through its corner pockets' centres
                       # (the median where it lies on the cushion line)


def area_mask(poly: np.ndarray, shape: tuple) -> np.ndarray:
    """(h, w) uint8 mask (1 = inside) of the convex polygon ``poly`` (K, 2) [px] in an image of ``shape``."""
    region = np.zeros(shape[:2], np.uint8)
    h, w = region.shape
    cv2.fillConvexPoly(region, np.rint(np.clip(poly, (-w, -h), (2 * w, 2 * h))).astype(np.int32), 1)
    return region


def area_polygon(classes: np.ndarray) -> np.ndarray:
    """(K, 2) [px] the play area (see the module notes) of an image given its pixels' ``vision.cloth.classify``
    bits ``classes`` (h, w) as a polygon (``area_mask`` makes its mask): the quadrilateral's four corners
    (K = 4, in order round it) or, where four sides cannot be told apart, the cloth region's convex hull.
    Raises ValueError if no cloth-coloured region is found."""
    cloth = _opened_cloth(classes)
    outline = cloth_outline(cloth)
    # (the outline's whole numbers: cv2's integer hull, the same vertices, 0.17 against 0.24 ms for float32;
    # of its rows' end points only: a point with others either side in its row is on no hull's corner, and
    # cv2 returns the same array, 0.12 -> 0.05 ms on a real frame's 3700 points)
    pts = outline.astype(np.int32)
    hull = cv2.convexHull(pts[row_ends(pts)])[:, 0, :].astype(np.float64)
    corners = quadrilateral(outline, hull)
    return hull if corners is None else to_cloth_edges(corners, cloth)


def _opened_cloth(classes: np.ndarray) -> np.ndarray:
    """(h, w) uint8 mask (nonzero = cloth) of the cloth-coloured, lit pixels (CLOTH in
    ``vision.cloth.classify``'s bits ``classes``) after a 3x3 opening."""
    return cv2.morphologyEx(classes & CLOTH, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def cloth_outline(cloth: np.ndarray) -> np.ndarray:
    """(N, 2) the outer outline [px] of the largest region of a cloth mask (h, w) uint8 (nonzero =
    cloth). Raises ValueError if there is none."""
    contours, _ = cv2.findContours(cloth, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        raise ValueError("no cloth-coloured region found in the image")
    return max(contours, key=cv2.contourArea)[:, 0, :].astype(np.float64)


def cloth_region(classes: np.ndarray) -> np.ndarray:
    """(h, w) uint8 mask (1 = inside) of the largest cloth-coloured region of ``classify``'s bits
    ``classes`` (h, w), its holes filled (the region ``area_polygon`` starts from)."""
    region = np.zeros(classes.shape, np.uint8)
    cv2.fillPoly(region, [cloth_outline(_opened_cloth(classes)).astype(np.int32)], 1)
    return region


def quadrilateral(outline: np.ndarray, hull: np.ndarray) -> np.ndarray | None:
    """(4, 2) corners [px] of the quadrilateral bounded by the four sides of a table's cloth outline
    (N, 2; a closed contour's whole-number points), or None. A side is fitted to the outline points that lie on the convex hull (N, 2),
    run along one of the two directions of the outline's minimum-area rectangle, and lie on that
    side of its centre; pockets, slits (a baulk line) and corner curves are not on a side."""
    # (the columns' maxima one at a time: numpy's max over the short rows took 0.06 ms)
    on = _near_polygon(outline, hull, np.array([outline[:, 0].max(), outline[:, 1].max()]))
    # each point's tangent (the points TANGENT_SPAN either side) is a pair of whole numbers: its angle
    # [deg, mod 180] and the tests on it are taken once per pair that occurs (0.15 ms a frame less)
    key, reach = _tangent_keys(outline, TANGENT_SPAN)
    d = np.arange(-reach, reach + 1, dtype=np.float64)
    angle = np.degrees(np.arctan2(d[:, None], d[None, :])) % 180.0     # at [ty + reach, tx + reach]
    (cx, cy), _, theta = cv2.minAreaRect(hull.astype(np.float32))
    sides = []
    for t in (theta, theta + 90.0):
        along = (np.abs((angle - t + 90.0) % 180.0 - 90.0) < SIDE_TOL_DEG).ravel()[key]
        normal = np.array([-np.sin(np.radians(t)), np.cos(np.radians(t))])
        offset = (outline - (cx, cy)) @ normal
        for side in (offset < 0, offset > 0):
            pts = outline[on & along & side]
            if pts.shape[0] < MIN_SIDE_POINTS:
                return None
            sides.append((pts, _robust_line(pts)))
    a0, a1, b0, b1 = _square_up(sides, np.array([cx, cy]))
    corners = [_intersect(*pair) for pair in ((a0, b0), (b0, a1), (a1, b1), (b1, a0))]
    if any(c is None for c in corners):
        return None
    return np.array(corners)


@njit(cache=True)
def row_ends(pts):
    """(N,) bool: the points (N, 2) of whole numbers (x, y) that are the leftmost or the rightmost of
    their row y (every corner of the points' convex hull is one)."""
    y0 = pts[:, 1].min()
    rows = pts[:, 1].max() - y0 + 1
    lo, hi = np.full(rows, pts[:, 0].max()), np.full(rows, pts[:, 0].min())
    for i in range(pts.shape[0]):
        r = pts[i, 1] - y0
        lo[r], hi[r] = min(lo[r], pts[i, 0]), max(hi[r], pts[i, 0])
    out = np.empty(pts.shape[0], np.bool_)
    for i in range(pts.shape[0]):
        r = pts[i, 1] - y0
        out[i] = pts[i, 0] == lo[r] or pts[i, 0] == hi[r]
    return out


@njit(cache=True)
def _tangent_keys(outline, span):
    """(keys (N,) int64, reach) of a closed outline (N, 2) of whole-number points: each point's tangent
    (tx, ty), the point ``span`` after it less the one ``span`` before it, as the flat index
    (ty + reach) (2 reach + 1) + tx + reach, reach the largest |tx| or |ty|."""
    n = outline.shape[0]
    tx, ty = np.empty(n, np.int64), np.empty(n, np.int64)
    reach = 0
    for i in range(n):
        a, b = (i + span) % n, (i - span) % n
        tx[i] = int(outline[a, 0] - outline[b, 0])
        ty[i] = int(outline[a, 1] - outline[b, 1])
        reach = max(reach, abs(tx[i]), abs(ty[i]))
    return (ty + reach) * (2 * reach + 1) + tx + reach, reach


def _square_up(sides, centre: np.ndarray) -> list:
    """The four lines (point, direction) of the sides [(points (N, 2), fitted line)] in the order
    (a0, a1, b0, b1) (a: one direction, b: the other). Seen from near overhead a table's opposite
    sides look nearly parallel and its adjacent sides nearly square: the side with the most points
    on its line (at least STRAIGHT_POINTS, and another side parallel or square to it within
    SQUARE_DEG) sets the direction, and a side whose fit turns more than SQUARE_DEG from it (a
    rail lit into the cloth's colour: the outline runs partly along the rail's outer edge) takes
    that direction through its innermost run of points (MIN_SIDE_POINTS within RUN_WIDTH px): the
    cushion line, not the rail's edge."""
    support = [np.sum(np.abs((p - m) @ np.array([-d[1], d[0]])) < RUN_WIDTH / 2) for p, (m, d) in sides]
    best = int(np.argmax(support))
    d0 = sides[best][1][1]
    wants = [d0 if (k < 2) == (best < 2) else np.array([-d0[1], d0[0]]) for k in range(4)]
    square = [abs(d @ want) >= np.cos(np.radians(SQUARE_DEG)) for (_, (_, d)), want in zip(sides, wants)]
    if support[best] < STRAIGHT_POINTS or sum(square) < 2:      # no long straight side another side agrees with
        return [line for _, line in sides]
    lines = []
    for (pts, (m, d)), want, ok in zip(sides, wants, square):
        if ok:
            lines.append((m, d))
            continue
        out = np.abs((pts - centre) @ np.array([-want[1], want[0]]))    # distance out from the centre
        order = np.sort(out)
        n = MIN_SIDE_POINTS - 1
        first = np.flatnonzero(order[n:] - order[:-n] <= RUN_WIDTH)     # runs of MIN_SIDE_POINTS points
        if first.size == 0:
            lines.append((m, d))
            continue
        lo = order[first[0]]
        lines.append((pts[(out >= lo) & (out <= lo + RUN_WIDTH)].mean(axis=0), want))
    return lines


def to_cloth_edges(corners: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """(4, 2) corners [px] of the quadrilateral (4, 2) with each side refitted to the cloth's edge
    along its whole length (``_first_cloth``) where that fit is supported along the whole side (in
    each third at least EDGE_COVER of its length within RUN_WIDTH / 2 px of the line) and moves an
    end of the side by more than EDGE_MOVE px; the other sides are kept."""
    lines = _edge_lines(np.ascontiguousarray(cloth), np.ascontiguousarray(corners, np.float64), EDGE_OUT, EDGE_IN,
                        MIN_SIDE_POINTS, LINE_ITERS, RUN_WIDTH / 2, EDGE_COVER, EDGE_MOVE)
    out = [_intersect((lines[k - 1, :2], lines[k - 1, 2:]), (lines[k, :2], lines[k, 2:])) for k in range(4)]
    return corners if any(c is None for c in out) else np.array(out)


@njit(cache=True)
def _edge_lines(cloth, corners, out_px, in_px, min_points, iters, near_px, cover_min, move_min):
    """(4, 4) ``to_cloth_edges``' side lines (point u, v, unit direction [px]) of the quadrilateral ``corners``
    (4, 2) over the cloth mask (h, w): side k from corner k to k + 1, refitted (``_tls_line``) to its cloth
    edge points (``_first_cloth``, from out_px px outside to in_px px inside) where at least min_points are,
    each third of the side holds cover_min of its length of them within near_px of the fit, and the fit
    moves an end by more than move_min px (numba: the four sides' numpy steps took 0.25 ms a real frame)."""
    cx = (((corners[0, 0] + corners[1, 0]) + corners[2, 0]) + corners[3, 0]) / 4
    cy = (((corners[0, 1] + corners[1, 1]) + corners[2, 1]) + corners[3, 1]) / 4
    lines = np.empty((4, 4))
    for k in range(4):
        p0, p1 = corners[k, 0], corners[k, 1]
        q0, q1 = corners[(k + 1) % 4, 0], corners[(k + 1) % 4, 1]
        length = math.sqrt((q0 - p0) ** 2 + (q1 - p1) ** 2)
        d0, d1 = (q0 - p0) / length, (q1 - p1) / length
        n0, n1 = -d1, d0
        if (cx - p0) * n0 + (cy - p1) * n1 <= 0:                 # inwards
            n0, n1 = -n0, -n1
        lines[k, 0], lines[k, 1], lines[k, 2], lines[k, 3] = p0, p1, d0, d1
        pts = _first_cloth(cloth, p0, p1, d0, d1, n0, n1, int(math.ceil(length)), out_px, in_px)
        if pts.shape[0] < min_points:
            continue
        m, normal = _tls_line(pts, iters)
        count = np.zeros(3)
        for i in range(pts.shape[0]):
            if abs((pts[i, 0] - m[0]) * normal[0] + (pts[i, 1] - m[1]) * normal[1]) <= near_px:
                count[min(int(((pts[i, 0] - p0) * d0 + (pts[i, 1] - p1) * d1) * 3 / length), 2)] += 1
        move = max(abs((p0 - m[0]) * normal[0] + (p1 - m[1]) * normal[1]),
                   abs((q0 - m[0]) * normal[0] + (q1 - m[1]) * normal[1]))
        if count.min() / (length / 3) >= cover_min and move > move_min:
            lines[k, 0], lines[k, 1], lines[k, 2], lines[k, 3] = m[0], m[1], normal[1], -normal[0]
    return lines


@njit(cache=True)
def _first_cloth(cloth, p0, p1, d0, d1, n0, n1, steps, out_px, in_px):
    """(K, 2) points [px] of the cloth mask's (h, w) edge along the side from (p0, p1) along the unit direction
    (d0, d1), inward unit normal (n0, n1), at ``steps`` pixels along it: at each, the first step from not cloth
    to cloth (any cloth region, not only the largest) going inwards from ``out_px`` px outside the side to
    ``in_px`` px inside it, none where the cloth starts outside; each sample at (p + t d) + j n, rounded half
    to even, as numpy's rint of the same expression."""
    h, w = cloth.shape
    out = np.empty((steps, 2))
    k = 0
    for ti in range(steps):
        t = float(ti)
        bx, by = p0 + t * d0, p1 + t * d1
        for jj in range(out_px + in_px + 1):
            j = float(jj - out_px)
            x, y = bx + j * n0, by + j * n1
            ix, iy = int(np.rint(x)), int(np.rint(y))
            inside = ix >= 0 and ix < w and iy >= 0 and iy < h
            if jj == 0 and not inside:
                break                          # the outermost sample off the image: no point here
            if inside and cloth[iy, ix] > 0:
                if jj > 0:                     # cloth from the outermost sample on: the side lies on it
                    out[k, 0], out[k, 1] = x, y
                    k += 1
                break
    return out[:k]


def _near_polygon(pts: np.ndarray, poly: np.ndarray, size: np.ndarray) -> np.ndarray:
    """(N,) which integer points (N, 2) lie within about ON_HULL px of a closed polygon (K, 2),
    all inside [0, size] (the polygon drawn with that half-width, then looked up)."""
    mask = np.zeros((int(size[1]) + 1, int(size[0]) + 1), np.uint8)
    cv2.polylines(mask, [np.rint(poly).astype(np.int32)], True, 1, thickness=2 * int(ON_HULL) + 1)
    return mask[pts[:, 1].astype(np.intp), pts[:, 0].astype(np.intp)] > 0


def _robust_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(point, unit direction) of a line through points (N, 2): total least squares, re-fitted
    LINE_ITERS times on the points within 3 robust sigmas (at least 0.5 px)."""
    m, normal = _tls_line(np.ascontiguousarray(pts, np.float64), LINE_ITERS)
    return m, np.array([normal[1], -normal[0]])


@njit(cache=True)
def _tls_line(pts, iters):
    """(point (2,), unit normal (2,)) of ``_robust_line``'s fit: the weighted mean and the scatter
    matrix's least eigenvector (closed form for a symmetric 2 x 2)."""
    n = pts.shape[0]
    w = np.ones(n)
    m = np.zeros(2)
    normal = np.zeros(2)
    r = np.empty(n)
    for _ in range(iters):
        sw = w.sum()
        m[0], m[1] = (w * pts[:, 0]).sum() / sw, (w * pts[:, 1]).sum() / sw
        dx, dy = pts[:, 0] - m[0], pts[:, 1] - m[1]
        a, b, c = (w * dx * dx).sum(), (w * dx * dy).sum(), (w * dy * dy).sum()
        low = 0.5 * (a + c) - math.sqrt(0.25 * (a - c) ** 2 + b * b)      # the least eigenvalue
        ex, ey = (b, low - a) if abs(a - low) > abs(c - low) else (low - c, b)
        norm = math.hypot(ex, ey)
        normal[0], normal[1] = (ex / norm, ey / norm) if norm > 0 else (1.0, 0.0)
        r[:] = np.abs(dx * normal[0] + dy * normal[1])
        limit = 3.0 * max(1.4826 * np.median(r), 0.5)
        for i in range(n):
            w[i] = 1.0 if r[i] < limit else 0.0
    return m, normal


def _intersect(l1: tuple[np.ndarray, np.ndarray], l2: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    """The crossing point of two lines (point, direction), or None if they are nearly parallel."""
    (p1, d1), (p2, d2) = l1, l2
    det = d1[0] * (-d2[1]) - d1[1] * (-d2[0])
    if abs(det) < 1e-6:
        return None
    s = ((p2[0] - p1[0]) * (-d2[1]) - (p2[1] - p1[1]) * (-d2[0])) / det
    return p1 + s * d1


def within_pockets(poly: np.ndarray, hole: np.ndarray, radius: float) -> np.ndarray:
    """(K, 2) [px] the play area ``poly`` (K, 2; ``area_polygon``) with each side that lies out beyond its
    rail moved onto its corner pockets (``radius``: the ball radius [px]). Such a side takes its corners
    off the corner pockets: where every corner has a pixel of ``hole`` ((h, w) bool, ``vision.cloth.hole_mask``)
    within CORNER_REACH radii, nothing is looked at. A side's corner pockets are, at each of its ends, the
    shallowest of the pocket holes (``pocket_centres``) inside the play area within POCKET_END of the side's
    length of that end and less than a quarter of the way across (a side pocket of the next side lies
    halfway). Where they lie more than SPILL radii inside the side, the side becomes the line through them
    (where it runs within SQUARE_DEG of the side; the opposite side's direction through the one pocket where
    the other end has none: a ball in it) moved out by POCKET_DEPTH radii. A side cut into the bed, with its
    corner pockets beyond it, is moved out onto them (``_cut_sides``), kept only where every corner of the
    result then has a hole within CORNER_REACH radii. A convex hull (no four sides) is looked at as its
    minimum-area rectangle and kept unless a side of that is cut; ``poly`` itself is returned where no side
    moves."""
    quad = quadrilateral_of(poly)
    if _at_pockets(quad, hole, radius):
        return poly                                  # (most frames: a pocket at every corner)
    pockets = pocket_centres(hole, radius)
    centre = quad.mean(axis=0)
    length = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    d = (np.roll(quad, -1, axis=0) - quad) / length[:, None]
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)
    n *= np.sign(np.sum((centre - quad) * n, axis=1))[:, None]                # inwards
    s = np.einsum('kj,kmj->km', n, pockets[None] - quad[:, None])              # (side, pocket) [px] inside
    t = np.einsum('kj,kmj->km', d, pockets[None] - quad[:, None]) / length[:, None]
    halfway = np.sum((centre - quad) * n, axis=1)                              # [px] to the centre
    mine = np.all(s > 0, axis=0) & (s < 0.5 * halfway[:, None])
    lines = [(quad[k], d[k]) for k in range(4)]
    moved = set()
    for k in range(4):
        ends = [np.flatnonzero(mine[k] & near) for near in (t[k] < POCKET_END, t[k] > 1 - POCKET_END)]
        ends = [e[np.argmin(s[k, e])] for e in ends if e.size]
        if not ends or min(s[k, ends]) <= SPILL * radius:
            continue
        e = d[(k + 2) % 4] if len(ends) == 1 else unit(pockets[ends[1]] - pockets[ends[0]])
        if abs(e @ d[k]) >= np.cos(np.radians(SQUARE_DEG)):
            lines[k] = (pockets[ends[0]] - POCKET_DEPTH * radius * n[k], e)
            moved.add(k)
    cut = _cut_sides(lines, moved, pockets, s, t, n, halfway, radius)
    out = None if cut is None else _corners(cut)
    if out is not None and _at_pockets(out, hole, radius):
        return out
    out = _corners(lines) if moved and poly.shape[0] == 4 else None
    return poly if out is None else out


def _at_pockets(corners: np.ndarray, hole: np.ndarray, radius: float) -> bool:
    """Whether every one of the corners (4, 2) [px] has a pixel of ``hole`` (h, w) bool within CORNER_REACH ball
    radii (``radius`` [px]) in x and in y: its corner pocket."""
    return corner_pockets(corners, hole, radius) == 4


def corner_pockets(poly: np.ndarray, hole: np.ndarray, radius: float) -> int:
    """How many corners of the play area ``poly`` (K, 2) [px] (``quadrilateral_of``) have a pixel of ``hole`` (h, w)
    bool within CORNER_REACH ball radii (``radius`` [px]) in x and in y: a corner pocket each."""
    return sum(_hole_near(hole, c, CORNER_REACH * radius) for c in quadrilateral_of(poly))


def quadrilateral_of(poly: np.ndarray) -> np.ndarray:
    """(4, 2) [px] the play area ``poly`` (K, 2) [px] itself where it has four corners, else (a convex hull) its
    minimum-area rectangle."""
    return poly if poly.shape[0] == 4 else cv2.boxPoints(cv2.minAreaRect(poly.astype(np.float32))).astype(float)


def _corners(lines: list) -> np.ndarray | None:
    """(4, 2) [px] the crossings of four lines (point, direction) in turn round a quadrilateral, or None where
    two neighbours are nearly parallel."""
    out = [_intersect(lines[k - 1], lines[k]) for k in range(4)]
    return None if any(c is None for c in out) else np.array(out)


def _cut_sides(lines: list, moved: set, pockets: np.ndarray, s: np.ndarray, t: np.ndarray, n: np.ndarray,
               halfway: np.ndarray, radius: float) -> list | None:
    """``within_pockets``' four side lines (point, direction) with each side not yet ``moved`` that is cut into
    the bed (a strip of lit or shaded cloth not taken for cloth) moved out onto its corner pockets, or None
    where none is. Such a side has its corner pockets beyond it: at each end the pocket (``pockets`` (M, 2),
    ``s`` (4, M) [px] inside each side, ``t`` (4, M) along it as a share of its length; ``n`` (4, 2) the
    inward normals, ``halfway`` (4,) [px] each side's distance to the centre) beyond the side at most CUT_REACH
    halfways, within POCKET_END of the side's length of that end (before or past it) and nearest that end.
    With one at each end, the side moves where either lies more than SPILL - POCKET_DEPTH radii beyond it
    (the line through them, where it runs within SQUARE_DEG of the opposite side); with one only, where it
    lies SPILL radii beyond (the opposite side's direction through it). The moved line lies POCKET_DEPTH
    radii out from the pockets, as in ``within_pockets``."""
    beyond = (s < 0) & (s > -CUT_REACH * halfway[:, None]) & (t > -POCKET_END) & (t < 1 + POCKET_END)
    lines, cut = list(lines), False
    for k in (k for k in range(4) if k not in moved):
        ends = [np.flatnonzero(beyond[k] & near) for near in (t[k] < POCKET_END, t[k] > 1 - POCKET_END)]
        ends = [e[np.argmin(np.abs(t[k, e] - end))] for e, end in zip(ends, (0, 1)) if e.size]
        if not ends or min(s[k, ends]) >= -(SPILL - POCKET_DEPTH if len(ends) == 2 else SPILL) * radius:
            continue
        across = lines[(k + 2) % 4][1]                                       # (the opposite side, moved or not)
        e = across if len(ends) == 1 else unit(pockets[ends[1]] - pockets[ends[0]])
        if abs(e @ across) >= np.cos(np.radians(SQUARE_DEG)):
            lines[k], cut = (pockets[ends[0]] - POCKET_DEPTH * radius * n[k], e), True
    return lines if cut else None


def _hole_near(hole: np.ndarray, c: np.ndarray, reach: float) -> bool:
    """Whether ``hole`` (h, w) bool has a pixel within ``reach`` px of the point c (2,) [px] in x and in y."""
    x, y, k = int(round(c[0])), int(round(c[1])), int(round(reach))
    return bool(hole[max(y - k, 0):max(y + k + 1, 0), max(x - k, 0):max(x + k + 1, 0)].any())


def pocket_centres(hole: np.ndarray, radius: float) -> np.ndarray:
    """(M, 2) [px] the centres of the pocket holes in ``hole`` (h, w) bool (``vision.cloth.hole_mask``, made
    at half its resolution and scaled up: outlined there), ``radius`` the ball radius [px]: its regions whose
    outline encloses at most POCKET_AREA ball discs (their outlines' centroids)."""
    small = np.ascontiguousarray(hole[::2, ::2]).view(np.uint8)
    contours, _ = cv2.findContours(small, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    most = POCKET_AREA * np.pi * (radius / 2) ** 2
    moments = [m for m in map(cv2.moments, contours) if 0 < m["m00"] <= most]
    return np.array([(2 * m["m10"] / m["m00"] + 0.5, 2 * m["m01"] / m["m00"] + 0.5) for m in moments]).reshape(-1, 2)
