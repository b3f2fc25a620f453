"""What the overhead camera sees of the empty table: which surface each ray hits, and where.

The table is a height field in the table frame (docs/frame.md), metres:

==========  ======================================================  =====================
region      where (x, y)                                            surface height z
==========  ======================================================  =====================
CLOTH       inside the cushion-nose rectangle or a pocket mouth     0
CUSHION     between the cushion noses and backs (width cushion_w)   table.cushion_height
RAIL        the wooden rail cap outside the cushion backs           rail.height
POCKET      within a pocket's radius of its centre (a hole)         -table.pocket_drop
FLOOR       outside the rail caps                                   FLOOR_Z
==========  ======================================================  =====================

Vertical faces join the levels (cushion noses and jaw faces, the rail's inner edge). A pocket
mouth is the quadrilateral between the two jaw faces of a pocket (the jaw tips' rounding, a few
millimetres, is ignored here).

A ray from a camera above the table is traced through the levels from the top: the first level
whose plane it crosses inside that level's region is the surface it hits; a ray that reaches a
lower plane under a higher region has hit that region's vertical face.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from planner.table import Table

CLOTH, CUSHION, RAIL, POCKET, FLOOR = 0, 1, 2, 3, 4
FLOOR_Z = -0.75      # the room floor below the cloth [m]; only its colour matters
# Faces: the ray hit the vertical side of a level rather than its top.
NOSE_FACE, RAIL_FACE = 5, 6


@dataclass(frozen=True)
class RailGeometry:
    """The wooden rail caps around the cushions, with their sights (diamonds).

    width: cap width outward from the cushion backs [m]; height: cap top above the cloth [m];
    diamond_radius: radius of each sight [m]. Sights sit on the cap's centre line: three on each
    end rail (at x = w/4, w/2, 3w/4) and three on each half of the long rails (y = k l/8).
    """
    width: float = 0.125
    height: float = 0.042
    diamond_radius: float = 0.0065


def diamond_points(table: Table, rail: RailGeometry) -> np.ndarray:
    """(18, 3) sight centres on the rail caps in the table frame [m]."""
    w, l = table.width, table.length
    off = table.cushion_width + rail.width / 2.0
    pts = []
    for k in (1, 2, 3):
        pts += [(k * w / 4, -off), (k * w / 4, l + off)]
    for k in (1, 2, 3, 5, 6, 7):
        pts += [(-off, k * l / 8), (w + off, k * l / 8)]
    pts = np.array(pts, dtype=np.float64)
    return np.concatenate([pts, np.full((len(pts), 1), rail.height)], axis=1)


def _pocket_mouths(table: Table) -> list[np.ndarray]:
    """One convex polygon (K, 2) per pocket: the opening between its two jaw faces, closed on the
    table side by the cushion-nose line(s)."""
    faces = [i for i, k in enumerate(table.lin_kind) if k == "jaw_face"]
    mid = (table.lin_p1[faces] + table.lin_p2[faces]) / 2
    mouths = []
    for pc in table.pocket_center:
        near = np.asarray(faces)[np.argsort(np.linalg.norm(mid - pc, axis=1))[:2]]
        pts = [table.lin_p1[near], table.lin_p2[near]]
        for p in np.concatenate(pts):           # each face end, moved onto the nose lines
            pts.append(np.array([[np.clip(p[0], 0, table.width), p[1]], [p[0], np.clip(p[1], 0, table.length)]]))
        pts = np.concatenate(pts)
        hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        c = hull.mean(axis=0)
        mouths.append(hull[np.argsort(np.arctan2(hull[:, 1] - c[1], hull[:, 0] - c[0]))])
    return mouths


def _inside_convex(poly: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Points inside a counter-clockwise convex polygon (vectorised)."""
    inside = np.ones(np.shape(x), dtype=bool)
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        inside &= (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) >= 0
    return inside


class TableScene:
    """The empty table's geometry for ray casting: ``region`` and ``trace``."""

    def __init__(self, table: Table, rail: RailGeometry):
        self.table = table
        self.rail = rail
        self.mouths = _pocket_mouths(table)
        ext = [np.max(np.linalg.norm(m - c, axis=1)) for m, c in zip(self.mouths, table.pocket_center)]
        self._pocket_reach = float(max(max(ext), float(np.max(table.pocket_radius)))) + 0.1
        if not rail.height >= table.cushion_height:
            raise ValueError(f"rail cap height {rail.height} m must be >= the cushion height "
                             f"{table.cushion_height} m")

    def in_play(self, x, y) -> np.ndarray:
        """Cloth column: inside the cushion-nose rectangle or a pocket mouth (pockets not excluded)."""
        t = self.table
        x, y = np.asarray(x, float), np.asarray(y, float)
        out = (x >= 0) & (x <= t.width) & (y >= 0) & (y <= t.length)
        near = np.flatnonzero(~out & self._near_pockets(x, y))
        if near.size:
            xs, ys = x.reshape(-1)[near], y.reshape(-1)[near]
            hit = np.zeros(near.size, dtype=bool)
            for m in self.mouths:
                hit |= _inside_convex(m, xs, ys)
            out.reshape(-1)[near] = hit
        return out

    def in_pocket(self, x, y) -> np.ndarray:
        x, y = np.asarray(x, float), np.asarray(y, float)
        out = np.zeros(np.broadcast(x, y).shape, dtype=bool)
        near = np.flatnonzero(self._near_pockets(x, y))
        if near.size:
            xs, ys = x.reshape(-1)[near], y.reshape(-1)[near]
            hit = np.zeros(near.size, dtype=bool)
            for c, r in zip(self.table.pocket_center, self.table.pocket_radius):
                hit |= (xs - c[0]) ** 2 + (ys - c[1]) ** 2 < r * r
            out.reshape(-1)[near] = hit
        return out

    def _near_pockets(self, x, y) -> np.ndarray:
        """Points that may lie in a pocket or a mouth: near a corner or a side pocket."""
        t, reach = self.table, self._pocket_reach
        xe = (x < reach) | (x > t.width - reach)
        ye = (y < reach) | (y > t.length - reach) | (np.abs(y - t.length / 2) < reach)
        return xe & ye

    def region(self, x, y) -> np.ndarray:
        """Region code (CLOTH .. FLOOR) of each table-plane point; arrays of any matching shape."""
        t, cw = self.table, self.table.cushion_width
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        o = cw + self.rail.width
        reg = np.full(x.shape, FLOOR, dtype=np.int8)
        reg[(x >= -o) & (x <= t.width + o) & (y >= -o) & (y <= t.length + o)] = RAIL
        reg[(x >= -cw) & (x <= t.width + cw) & (y >= -cw) & (y <= t.length + cw)] = CUSHION
        reg[self.in_play(x, y)] = CLOTH
        reg[self.in_pocket(x, y) & (reg != FLOOR)] = POCKET
        return reg

    def trace(self, origin, dirs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cast rays at the empty table.

        origin: (3,) ray start (the camera centre, above the rail caps); dirs: (N, 3) directions
        pointing down. Returns (kind (N,) int8, hit (N, 3) point [m], t (N,) ray parameter) where
        kind is a region code for a level's top, or NOSE_FACE / RAIL_FACE for a vertical face.
        """
        o = np.asarray(origin, dtype=np.float64)
        d = np.asarray(dirs, dtype=np.float64).reshape(-1, 3)
        if o[2] <= self.rail.height:
            raise ValueError("trace: the camera must be above the rail caps")
        dz = np.where(d[:, 2] < 0, d[:, 2], -1e-12)

        def at(z):
            t = (z - o[2]) / dz
            return t, o[0] + t * d[:, 0], o[1] + t * d[:, 1]

        n = d.shape[0]
        kind = np.full(n, FLOOR, dtype=np.int8)
        tt = np.full(n, np.nan)
        done = np.zeros(n, dtype=bool)

        def settle(mask, k, t):
            nonlocal done
            m = mask & ~done
            kind[m] = k
            tt[m] = t[m]
            done |= m

        t_r, xr, yr = at(self.rail.height)
        reg_r = self.region(xr, yr)
        settle(reg_r == RAIL, RAIL, t_r)
        t_h, xh, yh = at(self.table.cushion_height)
        reg_h = self.region(xh, yh)
        # entered the rail column between the rail top and the cushion top: the rail's inner face
        t_face_r = self._face_t(o, d, (reg_h == RAIL) & ~done, self.rail.height, self.table.cushion_height,
                                RAIL)
        settle(reg_h == RAIL, RAIL_FACE, t_face_r)
        settle(reg_h == CUSHION, CUSHION, t_h)
        t_0, x0, y0 = at(0.0)
        reg_0 = self.region(x0, y0)
        t_face_c = self._face_t(o, d, np.isin(reg_0, (CUSHION, RAIL)) & ~done, self.table.cushion_height,
                                0.0, (CUSHION, RAIL))
        settle(np.isin(reg_0, (CUSHION, RAIL)), NOSE_FACE, t_face_c)
        settle(reg_0 == CLOTH, CLOTH, t_0)
        settle(reg_0 == POCKET, POCKET, t_0)
        t_f, _, _ = at(FLOOR_Z)
        settle(~done, FLOOR, t_f)
        hit = o + tt[:, None] * d
        return kind, hit, tt

    def _face_t(self, o, d, mask, z_top, z_bottom, regions, steps: int = 9) -> np.ndarray:
        """Ray parameter where a ray crosses into ``regions`` between two heights (bisection)."""
        regions = np.atleast_1d(regions)
        dz = np.where(d[:, 2] < 0, d[:, 2], -1e-12)
        lo = (z_top - o[2]) / dz          # outside the region here
        hi = (z_bottom - o[2]) / dz       # inside here
        idx = np.flatnonzero(mask)
        lo, hi = lo[idx], hi[idx]
        for _ in range(steps):
            mid = (lo + hi) / 2
            p = o + mid[:, None] * d[idx]
            inside = np.isin(self.region(p[:, 0], p[:, 1]), regions)
            hi = np.where(inside, mid, hi)
            lo = np.where(inside, lo, mid)
        t = np.full(d.shape[0], np.nan)
        t[idx] = hi
        return t
