"""Table geometry: the playing surface, cushion noses, pocket jaws and pockets, in the table frame.

Frame (docs/frame.md): origin at the corner where the rail lines x = 0 and y = 0 meet, x across the
table (0..width), y along it (0..length, head rail at y = 0), z up with the cloth at z = 0. Metres.

Cushions are vertical walls. A *linear* segment is hit when a ball centre is at distance R from its
line with the foot of the perpendicular inside the segment, approaching from the side its
``normal`` points to. A *circular* segment (a rounded jaw tip) is a vertical cylinder hit at centre
distance radius + R. A ball is pocketed when its centre is within a pocket's radius of the pocket
centre (R not added).

Segment ids follow the numbering used by pooltool's pocket table (rails 3, 6, 9, 12, 15, 18; jaw
faces 1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17; jaw tips "<face>t"), so that event logs compare
one-to-one with reference data. Pocket ids: lb, lc, lt (x = 0 side: bottom, centre, top), rb, rc, rt.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

POCKET_IDS = ("lb", "lc", "lt", "rb", "rc", "rt")


@dataclass(frozen=True)
class TableSpecs:
    """The measurements a pocket table is built from (metres; angles in degrees).

    ``*_pocket_angle``: how far each jaw face turns away from the perpendicular to its rail.
    ``*_pocket_depth``: how far the pocket centre lies outside the rail lines (corner: measured
    along the diagonal from the rail intersection; side: perpendicular to the rail).
    """
    name: str
    width: float
    length: float
    cushion_width: float
    cushion_height: float
    corner_pocket_width: float
    corner_pocket_angle: float
    corner_pocket_depth: float
    corner_pocket_radius: float
    corner_jaw_radius: float
    side_pocket_width: float
    side_pocket_angle: float
    side_pocket_depth: float
    side_pocket_radius: float
    side_jaw_radius: float
    pocket_drop: float = 0.08  # how far below the cloth a pocketed ball rests [m]


@dataclass(frozen=True)
class Table:
    """Built geometry. Arrays are float64; ids index them in order.

    lin_p1, lin_p2: (L, 2) segment end points; lin_normal: (L, 2) unit normal pointing into play.
    lin_height: (L,) cushion nose height [m] (enters the cushion contact angle).
    circ_center: (C, 2); circ_radius, circ_height: (C,).
    pocket_center: (P, 2); pocket_radius: (P,).
    """
    name: str
    width: float
    length: float
    cushion_width: float
    cushion_height: float
    pocket_drop: float
    lin_ids: tuple[str, ...]
    lin_kind: tuple[str, ...]
    lin_pocket: tuple[str | None, ...]   # the pocket a jaw face belongs to; None for rails
    lin_p1: np.ndarray
    lin_p2: np.ndarray
    lin_normal: np.ndarray
    lin_height: np.ndarray
    circ_ids: tuple[str, ...]
    circ_center: np.ndarray
    circ_radius: np.ndarray
    circ_height: np.ndarray
    pocket_ids: tuple[str, ...]
    pocket_kind: tuple[str, ...]
    pocket_center: np.ndarray
    pocket_radius: np.ndarray
    specs: TableSpecs | None = field(default=None, compare=False)

    @property
    def head_string_y(self) -> float:
        return self.length / 4.0

    @property
    def foot_spot(self) -> tuple[float, float]:
        return (self.width / 2.0, 3.0 * self.length / 4.0)

    @property
    def head_spot(self) -> tuple[float, float]:
        return (self.width / 2.0, self.length / 4.0)

    def pocket_index(self, pocket_id: str) -> int:
        return self.pocket_ids.index(pocket_id)

    def throat(self, pocket_id: str) -> np.ndarray:
        """(V, 2) convex polygon of a pocket's mouth and throat: the hull of its two jaw faces and
        the two rail ends beside it."""
        faces = [i for i, p in enumerate(self.lin_pocket) if p == pocket_id]
        rails = [i for i, k in enumerate(self.lin_kind) if k == "rail"]
        ends = np.vstack([self.lin_p1[rails], self.lin_p2[rails]])
        c = self.pocket_center[self.pocket_index(pocket_id)]
        near = ends[np.argsort(np.hypot(*(ends - c).T))[:2]]
        return _convex_hull(np.vstack([self.lin_p1[faces], self.lin_p2[faces], near]))

    def position_problem(self, x: float, y: float, R: float, tol: float = 1e-9) -> str | None:
        """Why a ball centre at (x, y) [m] cannot rest there, or None if it can.

        A ball may rest anywhere on the cloth between the cushion noses, including a pocket's
        throat, as long as it overlaps no cushion, jaw face or jaw tip and has not reached a
        pocket (centre within the pocket radius).
        """
        if R <= x <= self.width - R and R <= y <= self.length - R:
            return None     # clear of every rail line, hence of the jaws and pockets beyond them
        inside = 0.0 <= x <= self.width and 0.0 <= y <= self.length
        if not inside and not any(_in_convex(self.throat(p), x, y) for p in self.pocket_ids):
            return "is outside the cushions"
        q = np.array([x, y])
        d = self.lin_p2 - self.lin_p1
        u = np.clip(((q - self.lin_p1) * d).sum(1) / (d * d).sum(1), 0.0, 1.0)
        seg = np.hypot(*(self.lin_p1 + u[:, None] * d - q).T)
        if np.any(seg < R - tol):
            return f"overlaps cushion {self.lin_ids[int(np.argmin(seg))]}"
        tip = np.hypot(*(self.circ_center - q).T) - self.circ_radius
        if np.any(tip < R - tol):
            return f"overlaps jaw tip {self.circ_ids[int(np.argmin(tip))]}"
        pk = np.hypot(*(self.pocket_center - q).T) - self.pocket_radius
        if np.any(pk <= 0.0):
            return f"is in pocket {self.pocket_ids[int(np.argmin(pk))]}"
        return None


def _convex_hull(pts: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull of (V, 2) points (Andrew's monotone chain)."""
    pts = sorted(map(tuple, pts))

    def half(seq):
        out: list[tuple] = []
        for q in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(q)
        return out

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


def _in_convex(poly: np.ndarray, x: float, y: float) -> bool:
    """Is (x, y) inside (or on) the convex polygon poly (V, 2), in either winding?"""
    e = np.roll(poly, -1, axis=0) - poly
    c = e[:, 0] * (y - poly[:, 1]) - e[:, 1] * (x - poly[:, 0])
    return bool(np.all(c >= 0) or np.all(c <= 0))


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _normal_towards(p1, p2, target) -> np.ndarray:
    """Unit normal of segment p1-p2 pointing to the side of ``target``."""
    d = np.asarray(p2, float) - np.asarray(p1, float)
    n = _unit([-d[1], d[0]])
    return n if np.dot(np.asarray(target, float) - p1, n) > 0 else -n


def build_pocket_table(s: TableSpecs) -> Table:
    """Lay out rails, jaw faces, jaw tips and pockets from ``TableSpecs``.

    The lower-left corner pocket (lb) and the left side pocket (lc) are laid out first; the other
    four pockets are mirror images through x = width/2 and y = length/2.
    """
    w, l, cw, h = s.width, s.length, s.cushion_width, s.cushion_height
    ca = np.radians(s.corner_pocket_angle + 45.0)   # corner jaw face angle from the rail
    sa = np.radians(s.side_pocket_angle)
    rc, rs = s.corner_jaw_radius, s.side_jaw_radius
    # distance along the rail from the jaw-face/rail bend to the tangent point of the rounded tip
    dc = rc / np.tan((np.pi / 2 + ca) / 2)
    ds = rs / np.tan((np.pi / 2 + sa) / 2)
    c0 = s.corner_pocket_width * np.cos(np.pi / 4)  # where the corner mouth meets a rail line
    rail_start = c0 + dc                              # rail nose starts here past the corner
    side_lo = (l - s.side_pocket_width) / 2 - ds      # rail nose ends here below the side pocket

    # lb corner: face on the y=0 rail ("1") and on the x=0 rail ("2"), with their tips.
    face1 = (np.array([c0 - cw * np.tan(ca), -cw]), np.array([c0 - dc * np.sin(ca), -dc * np.cos(ca)]))
    tip1 = np.array([rail_start, -rc])
    # lc side: face below the pocket ("4") with its tip.
    face4 = (np.array([-cw, (l - s.side_pocket_width) / 2 + cw * np.sin(sa)]),
             np.array([-ds * np.cos(sa), (l - s.side_pocket_width) / 2 + ds * np.sin(sa)]))
    tip4 = np.array([-rs, side_lo])

    def swap(p):   # reflect through the diagonal x = y (turns the y=0 corner face into the x=0 one)
        return np.array([p[1], p[0]])

    def mx(p):     # mirror through x = w/2
        return np.array([w - p[0], p[1]])

    def my(p):     # mirror through y = l/2
        return np.array([p[0], l - p[1]])

    centre = np.array([w / 2, l / 2])
    cD = s.corner_pocket_depth   # corner centre: this far out along the diagonal
    sD = s.side_pocket_depth     # side centre: this far behind the rail line
    pockets = {
        "lb": (np.array([-cD / np.sqrt(2), -cD / np.sqrt(2)]), s.corner_pocket_radius, "corner"),
        "lc": (np.array([-sD, l / 2]), s.side_pocket_radius, "side"),
    }
    pockets["lt"] = (my(pockets["lb"][0]), s.corner_pocket_radius, "corner")
    pockets["rb"] = (mx(pockets["lb"][0]), s.corner_pocket_radius, "corner")
    pockets["rc"] = (mx(pockets["lc"][0]), s.side_pocket_radius, "side")
    pockets["rt"] = (mx(my(pockets["lb"][0])), s.corner_pocket_radius, "corner")

    lin: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray, str | None]] = []

    def rail(seg_id, p1, p2):
        lin.append((seg_id, "rail", np.asarray(p1, float), np.asarray(p2, float),
                    _normal_towards(p1, p2, centre), None))

    def face(seg_id, pocket, p1, p2):
        lin.append((seg_id, "jaw_face", p1, p2, _normal_towards(p1, p2, pockets[pocket][0]), pocket))

    rail("3", [0, rail_start], [0, side_lo])
    rail("6", [0, l - side_lo], [0, l - rail_start])
    rail("15", [w, rail_start], [w, side_lo])
    rail("12", [w, l - side_lo], [w, l - rail_start])
    rail("18", [rail_start, 0], [w - rail_start, 0])
    rail("9", [rail_start, l], [w - rail_start, l])
    face("5", "lc", *(my(p) for p in face4))
    face("4", "lc", *face4)
    face("13", "rc", *(mx(my(p)) for p in face4))
    face("14", "rc", *(mx(p) for p in face4))
    face("1", "lb", *face1)
    face("2", "lb", *(swap(p) for p in face1))
    face("8", "lt", *(my(p) for p in face1))
    face("7", "lt", *(my(swap(p)) for p in face1))
    face("11", "rt", *(mx(my(swap(p))) for p in face1))
    face("10", "rt", *(mx(my(p)) for p in face1))
    face("16", "rb", *(mx(swap(p)) for p in face1))
    face("17", "rb", *(mx(p) for p in face1))

    circ = [
        ("1t", tip1, rc), ("2t", swap(tip1), rc),
        ("4t", tip4, rs), ("5t", my(tip4), rs),
        ("7t", my(swap(tip1)), rc), ("8t", my(tip1), rc),
        ("10t", mx(my(tip1)), rc), ("11t", mx(my(swap(tip1))), rc),
        ("13t", mx(my(tip4)), rs), ("14t", mx(tip4), rs),
        ("16t", mx(swap(tip1)), rc), ("17t", mx(tip1), rc),
    ]
    return Table(
        name=s.name, width=w, length=l, cushion_width=cw, cushion_height=h, pocket_drop=s.pocket_drop,
        lin_ids=tuple(x[0] for x in lin), lin_kind=tuple(x[1] for x in lin),
        lin_pocket=tuple(x[5] for x in lin),
        lin_p1=np.array([x[2] for x in lin]), lin_p2=np.array([x[3] for x in lin]),
        lin_normal=np.array([x[4] for x in lin]), lin_height=np.full(len(lin), h),
        circ_ids=tuple(c[0] for c in circ), circ_center=np.array([c[1] for c in circ]),
        circ_radius=np.array([c[2] for c in circ]), circ_height=np.full(len(circ), h),
        pocket_ids=POCKET_IDS, pocket_kind=tuple(pockets[p][2] for p in POCKET_IDS),
        pocket_center=np.array([pockets[p][0] for p in POCKET_IDS]),
        pocket_radius=np.array([pockets[p][1] for p in POCKET_IDS]),
        specs=s,
    )
