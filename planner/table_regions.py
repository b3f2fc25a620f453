"""Where points and straight flights lie against the table's cushions and pockets.

Pure functions of numpy arrays and a built ``Table`` (planner/table.py), in the table frame
(docs/frame.md, metres, seconds). A *straight flight* is p + v t from a point p (2,) [m] at a
velocity v (2,) [m/s]; the cushions are the table's linear segments (rails and jaw faces) and
circular jaw tips, the pockets its drop circles. Used by the observed referee
(controller/observed_referee.py) to read contacts and drops from camera frames.
"""
from __future__ import annotations

import numpy as np

from planner.table import Table


def segment_distance(a, b, p):
    """Distance from points p to segments a-b (broadcast over leading axes; last axis 2)."""
    d = b - a
    dd = (d * d).sum(-1)
    u = np.clip(((p - a) * d).sum(-1) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
    return np.hypot(*np.moveaxis(a + u[..., None] * d - p, -1, 0))


def segments_distance(a0, a1, b0, b1):
    """Distance between segments a0-a1 and b0-b1 (broadcast; last axis 2)."""
    def cross(o, p, q):
        return (p[..., 0] - o[..., 0]) * (q[..., 1] - o[..., 1]) - (p[..., 1] - o[..., 1]) * (q[..., 0] - o[..., 0])
    crossing = ((cross(a0, a1, b0) * cross(a0, a1, b1) < 0) & (cross(b0, b1, a0) * cross(b0, b1, a1) < 0))
    d = np.minimum(np.minimum(segment_distance(a0, a1, b0), segment_distance(a0, a1, b1)),
                   np.minimum(segment_distance(b0, b1, a0), segment_distance(b0, b1, a1)))
    return np.where(crossing, 0.0, d)


def polyline_distance(path: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(K,) distance [m] from each point (K, 2) to a polyline (M, 2) (one point: to that point)."""
    if path.shape[0] == 1:
        return np.hypot(*(pts - path[0]).T)
    return segment_distance(path[:-1, None], path[1:, None], pts[None]).min(0)


def cushion_normals(x, table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Inward normals (K, L + C, 2) of every cushion segment and jaw tip at points x (K, 2), and
    the clearance (K, L + C) [m] from x to each (distance to the segment or to the tip's circle)."""
    K = x.shape[0]
    n_lin = np.broadcast_to(table.lin_normal[None], (K,) + table.lin_normal.shape)
    rel = x[:, None] - table.circ_center[None]
    d_c = np.hypot(*rel.transpose(2, 0, 1))
    n = np.concatenate([n_lin, rel / d_c[..., None]], axis=1)
    d = np.concatenate([segment_distance(table.lin_p1[None], table.lin_p2[None], x[:, None]),
                        d_c - table.circ_radius], 1)
    return n, d


def pocket_entry(p, v, t_max: float, table: Table, margin: float) -> np.ndarray:
    """(P,) time [s] at which the straight flight p + v t first comes within each pocket's radius
    + margin [m] of its centre, inf if not within t_max (0 if already there)."""
    rel = p - table.pocket_center
    A, B, C = v @ v, 2 * rel @ v, (rel * rel).sum(1) - (table.pocket_radius + margin) ** 2
    disc = B * B - 4 * A * C
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(C <= 0, 0.0, np.where((disc >= 0) & (A > 0), (-B - np.sqrt(np.maximum(disc, 0))) / (2 * A), np.inf))
    return np.where((s >= 0) & (s <= t_max), s, np.inf)


def cushion_time(p, v, t_max: float, table: Table, R: float) -> float:
    """Time [s] at which the straight flight p + v t reaches distance R of a rail line or jaw
    face line it is moving into, with the foot of the perpendicular on the segment; t_max if not
    before then (jaw tips are ignored: their corners are what the pocket test is for)."""
    n = table.lin_normal
    vn = n @ v
    gap = ((p - table.lin_p1) * n).sum(1) - R
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where((vn < 0) & (gap >= -R), np.maximum(gap, 0.0) / -vn, np.inf)
    x = p + np.minimum(t, 1e3)[:, None] * v
    d = table.lin_p2 - table.lin_p1
    u = ((x - table.lin_p1) * d).sum(1) / (d * d).sum(1)
    t = np.where((u >= 0) & (u <= 1), t, np.inf)
    return float(min(t.min(), t_max))


def flight_cushion_contact(p, v, duration: float, table: Table, R: float, margin: float,
                           n: int = 48) -> float | None:
    """Time [s] from p at which the straight flight p + v t, 0 <= t <= duration, first comes
    within R + margin [m] of a cushion segment or jaw tip while moving into it (checked at n
    evenly spaced times), or None."""
    ts = np.linspace(0.0, max(duration, 0.0), n)
    x = p + ts[:, None] * v
    d_lin = segment_distance(table.lin_p1[None], table.lin_p2[None], x[:, None])
    touch = (d_lin <= R + margin) & ((table.lin_normal @ v) < 0)[None]
    rel = x[:, None] - table.circ_center[None]
    d_circ = np.hypot(*rel.transpose(2, 0, 1)) - table.circ_radius
    touch_c = (d_circ <= R + margin) & ((rel @ v) < 0)
    first = np.flatnonzero(touch.any(1) | touch_c.any(1))
    return float(ts[first[0]]) if first.size else None
