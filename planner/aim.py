"""Ghost-ball aiming geometry: where the cue ball must be at contact, the cue direction, and the
four features of PickPocket's shot difficulty (Smith 2006, Section 3.2; planner.difficulty: cut
angle alpha, object-ball-to-pocket distance d1, cue-to-ghost distance d2, pocket angle beta).

Frame and units: docs/frame.md (metres; phi, alpha, beta in degrees; phi = 0 along +x,
counter-clockwise). Ball radius R in metres.

Clearances for the move generator and the safeties: ``path_clear`` (the capsule test between two
points), ``min_elevation`` (the least cue elevation over balls and the cushion behind the cue
ball), ``rail_point`` (where a one-rail path meets the rail) and ``on_table``.

Aim points. A corner pocket's drop centre lies behind the rail intersection on the diagonal; a
line to it from anywhere on the table crosses the mouth (the mouth is about 45 degrees wide
each side of the diagonal), so corner shots aim at the drop centre. A side pocket's centre lies
``side_pocket_depth`` behind the rail line; a line to it at pocket angle beta crosses the rail
line depth * tan(beta) off the mouth's centre and at steep angles hits a jaw, so side shots aim
at the mouth's centre on the rail line.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.jit import njit
from planner.physics.params import PhysicsParams
from planner.table import Table

STICK_REACH = 1.0   # length of cue stick behind the cue ball checked for clearance [m]


def unit(v: np.ndarray) -> np.ndarray:
    """v / |v| along the last axis (v: (..., 2)); raises ValueError for a zero vector."""
    v = np.asarray(v, dtype=np.float64)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    if np.any(n == 0):
        raise ValueError("cannot take the direction of a zero-length vector")
    return v / n


def ghost_ball(obj: np.ndarray, target: np.ndarray, R: float) -> np.ndarray:
    """Cue-ball centre at contact that sends ``obj`` towards ``target``: o - 2R unit(target - o).

    obj, target: (..., 2) [m]. Returns (..., 2) [m].
    """
    obj = np.asarray(obj, dtype=np.float64)
    return obj - 2.0 * R * unit(np.asarray(target, dtype=np.float64) - obj)


def direction_deg(frm: np.ndarray, to: np.ndarray) -> np.ndarray:
    """Direction of travel from ``frm`` to ``to`` as phi in degrees [0, 360) (docs/frame.md)."""
    d = np.asarray(to, dtype=np.float64) - np.asarray(frm, dtype=np.float64)
    return np.degrees(np.arctan2(d[..., 1], d[..., 0])) % 360.0


def angle_between_deg(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Unsigned angle [0, 180] degrees between direction vectors u and v (..., 2)."""
    c = np.sum(unit(u) * unit(v), axis=-1)
    return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))


def pocket_axis(table: Table, k: int) -> np.ndarray:
    """(2,) unit vector from pocket ``k`` into the table: the corner diagonal or the side rail's normal."""
    w, l = table.width, table.length
    c = table.pocket_center[k]
    if table.pocket_kind[k] == "corner":
        return unit(np.sign([w / 2 - c[0], l / 2 - c[1]]))
    return np.array([1.0 if c[0] < w / 2 else -1.0, 0.0])


def pocket_target(table: Table, k: int) -> np.ndarray:
    """(2,) aim point for pocket ``k`` [m]: the drop centre of a corner, the mouth centre of a side."""
    c = table.pocket_center[k]
    if table.pocket_kind[k] == "corner":
        return c.copy()
    return np.array([0.0 if c[0] < table.width / 2 else table.width, c[1]])


def pocket_targets(table: Table) -> np.ndarray:
    """(P, 2) aim points of every pocket, in ``table.pocket_ids`` order."""
    return np.array([pocket_target(table, k) for k in range(len(table.pocket_ids))])


def pocket_axes(table: Table) -> np.ndarray:
    """(P, 2) inward unit axes of every pocket."""
    return np.array([pocket_axis(table, k) for k in range(len(table.pocket_ids))])


@dataclass(frozen=True)
class Aim:
    """A straight-in shot's geometry. ghost (2,) [m]; phi [deg]; alpha cut angle [deg] (0 = full
    ball); d1 object-to-target, d2 cue-to-ghost [m]; beta [deg] between the object ball's path
    and the pocket's axis (0 = straight down the diagonal / perpendicular into a side pocket)."""
    ghost: np.ndarray
    phi: float
    alpha: float
    d1: float
    d2: float
    beta: float


def aim_straight(cue: np.ndarray, obj: np.ndarray, target: np.ndarray, axis: np.ndarray, R: float) -> Aim:
    """Ghost-ball aim of ``obj`` at ``target`` from ``cue`` (all (2,) metres); ``axis`` the pocket's
    inward unit axis. Raises ValueError if cue is at the ghost position or obj at the target."""
    gx, gy, phi, alpha, d1, d2, beta = aim_features(float(cue[0]), float(cue[1]), float(obj[0]), float(obj[1]),
                                            float(target[0]), float(target[1]), float(axis[0]), float(axis[1]), R)
    if d1 == 0.0 or d2 == 0.0:
        raise ValueError("cannot take the direction of a zero-length vector")
    return Aim(ghost=np.array([gx, gy]), phi=phi, alpha=alpha, d1=d1, d2=d2, beta=beta)


@njit(cache=True)
def aim_features(cx, cy, ox, oy, tx, ty, ax, ay, R):
    """aim_straight on scalars (compiled; callable from other compiled code): (ghost x, ghost y,
    phi, alpha, d1, d2, beta); d1 or d2 is 0 (and the angles meaningless) when obj is at the
    target or cue at the ghost position."""
    px, py = tx - ox, ty - oy
    d1 = np.sqrt(px * px + py * py)
    ux, uy = (px / d1, py / d1) if d1 > 0.0 else (0.0, 0.0)
    gx, gy = ox - 2.0 * R * ux, oy - 2.0 * R * uy
    qx, qy = gx - cx, gy - cy
    d2 = np.sqrt(qx * qx + qy * qy)
    phi = np.degrees(np.arctan2(qy, qx)) % 360.0
    alpha = np.degrees(np.arccos(min(max((qx * ux + qy * uy) / max(d2, 1e-300), -1.0), 1.0)))
    na = np.sqrt(ax * ax + ay * ay)
    beta = np.degrees(np.arccos(min(max(-(ux * ax + uy * ay) / na, -1.0), 1.0)))
    return gx, gy, phi, alpha, d1, d2, beta


@njit(cache=True)
def segment_blocked(p0x, p0y, p1x, p1y, pts, skip_a, skip_b, R):
    """Whether a ball centre of ``pts`` (N, 2) [m], other than rows skip_a and skip_b (-1: none),
    lies within 2R of the segment p0-p1 (the capsule test)."""
    dx, dy = p1x - p0x, p1y - p0y
    L2 = max(dx * dx + dy * dy, 1e-18)
    for n in range(len(pts)):
        if n == skip_a or n == skip_b:
            continue
        rx, ry = pts[n, 0] - p0x, pts[n, 1] - p0y
        t = min(max((rx * dx + ry * dy) / L2, 0.0), 1.0)
        gx, gy = rx - t * dx, ry - t * dy
        if gx * gx + gy * gy < 4.0 * R * R:
            return True
    return False


def reflect_across_rail(p: np.ndarray, table: Table, rail: str, R: float, e: float = 1.0) -> np.ndarray:
    """Image of point p (2,) through the line a ball centre touches on ``rail`` ('left' x = R,
    'right' x = w - R, 'head' y = R, 'foot' y = l - R), for one-rail bank/kick aiming. With a
    rebound that keeps the tangential speed and scales the normal speed by ``e`` (the cushion's
    restitution), a straight line to the image placed at 1/e times p's distance behind the line
    crosses the line where the rebounding ball will pass through p; e = 1 is the mirror image."""
    x, y = float(p[0]), float(p[1])
    if rail == "left":
        return np.array([R - (x - R) / e, y])
    if rail == "right":
        line = table.width - R
        return np.array([line + (line - x) / e, y])
    if rail == "head":
        return np.array([x, R - (y - R) / e])
    if rail == "foot":
        line = table.length - R
        return np.array([x, line + (line - y) / e])
    raise ValueError(f"rail must be 'left', 'right', 'head' or 'foot', got {rail!r}")


RAILS = ("left", "right", "head", "foot")


def path_clear(p0, p1, balls: np.ndarray, R: float) -> bool:
    """No ball centre in ``balls`` (N, 2) [m] within 2R of the segment p0-p1 ((2,) [m] each)."""
    return not segment_blocked(float(p0[0]), float(p0[1]), float(p1[0]), float(p1[1]), balls, -1, -1, R)


def on_table(p, table: Table, R: float) -> bool:
    """Whether a ball centre at p (2,) [m] lies at least R from every rail line of ``table``."""
    return bool(R <= p[0] <= table.width - R and R <= p[1] <= table.length - R)


def min_elevation(cue: np.ndarray, phi: float, balls: np.ndarray, table: Table, params: PhysicsParams,
                  theta_min: float) -> float:
    """Least cue elevation [deg] (>= theta_min) at which a stick of tip radius r, held along
    direction ``phi`` and rising from the cue ball's centre height R, passes over every ball in
    ``balls`` (N, 2) and the cushion (height h) behind the cue ball within STICK_REACH."""
    R, r, h = params.R, params.cue_tip_radius, table.cushion_height
    back = -np.array([np.cos(np.radians(phi)), np.sin(np.radians(phi))])
    need = np.radians(theta_min)
    if len(balls):
        rel = balls - cue
        s = rel @ back                                   # distance behind the cue ball
        lat = np.abs(rel @ np.array([-back[1], back[0]]))
        hit = (s > 0) & (s < STICK_REACH) & (lat < R + r)
        if hit.any():
            rise = np.sqrt((R + r) ** 2 - lat[hit] ** 2)  # the stick must pass this high above centre
            need = max(need, float(np.max(np.arctan2(rise, s[hit]))))
    # distance behind the cue ball to the cushion nose along the stick
    dists = []
    for comp, lo, hi in ((0, 0.0, table.width), (1, 0.0, table.length)):
        if back[comp] < -1e-12:
            dists.append((cue[comp] - lo) / -back[comp])
        elif back[comp] > 1e-12:
            dists.append((hi - cue[comp]) / back[comp])
    s_rail = min(dists)
    if s_rail < STICK_REACH:
        need = max(need, float(np.arctan2(h + r - R, s_rail)))
    return float(np.degrees(need))


def rail_point(frm: np.ndarray, img: np.ndarray, table: Table, rail: str, R: float):
    """Where the segment from ``frm`` to the mirror image ``img`` crosses the rail's ball-centre
    line, or None if it does not cross it inside the playable part of that rail."""
    comp, line = {"left": (0, R), "right": (0, table.width - R),
                  "head": (1, R), "foot": (1, table.length - R)}[rail]
    den = img[comp] - frm[comp]
    if abs(den) < 1e-12:
        return None
    s = (line - frm[comp]) / den
    if not 0.0 < s < 1.0:
        return None
    p = frm + s * (img - frm)
    other, span = 1 - comp, (table.width if comp == 1 else table.length)
    margin = 0.12                   # keep the contact off the pocket jaws [m]
    if not margin < p[other] < span - margin:
        return None
    if comp == 0 and abs(p[1] - table.length / 2) < margin:   # side pocket mouth
        return None
    return p
