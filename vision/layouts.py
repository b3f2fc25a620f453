"""Random but legal ball layouts for tests and benchmarks of the vision pipeline.

A layout is a TableState (docs/frame.md) whose balls are all at rest on the cloth: no two overlap,
none overlaps a cushion, jaw or jaw tip, and none has its centre over a pocket. It mixes the cases
a detector finds hard: balls anywhere (including the distorted corners of the image), touching
clusters, balls frozen on a cushion, balls in a pocket's jaws, and the 15-ball rack.
"""
from __future__ import annotations

import numpy as np

from planner.state import TableState
from planner.table import Table

_EPS = 1e-7   # clearance [m] that makes "touching" numerically non-overlapping


def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance (S,) from point p (2,) to segments a-b (S, 2)."""
    ab = b - a
    t = np.clip(((p - a) * ab).sum(1) / (ab * ab).sum(1), 0.0, 1.0)
    return np.linalg.norm(a + t[:, None] * ab - p, axis=1)


def is_legal(table: Table, R: float, p, others=()) -> bool:
    """Whether a ball of radius R centred at p = (x, y) rests on the cloth clear of everything."""
    p = np.asarray(p, dtype=np.float64)
    inside = (0 <= p[0] <= table.width and 0 <= p[1] <= table.length)
    near_pocket = np.min(np.linalg.norm(table.pocket_center - p, axis=1)) < 0.25
    if not inside and not near_pocket:
        return False
    if np.any(np.linalg.norm(table.pocket_center - p, axis=1) <= table.pocket_radius + _EPS):
        return False
    if np.any(_seg_dist(p, table.lin_p1, table.lin_p2) < R - _EPS * 0.5):
        return False
    if np.any(np.linalg.norm(table.circ_center - p, axis=1) < table.circ_radius + R - _EPS * 0.5):
        return False
    if not inside and not _in_mouth(table, p):
        return False
    return all(np.linalg.norm(p - q) >= 2 * R - _EPS * 0.5 for q in others)


def _in_mouth(table: Table, p: np.ndarray) -> bool:
    """Behind the nose lines but on the playing side of both jaw faces of the nearest pocket."""
    k = int(np.argmin(np.linalg.norm(table.pocket_center - p, axis=1)))
    faces = [i for i, kind in enumerate(table.lin_kind) if kind == "jaw_face"]
    mid = (table.lin_p1[faces] + table.lin_p2[faces]) / 2
    near = np.asarray(faces)[np.argsort(np.linalg.norm(mid - table.pocket_center[k], axis=1))[:2]]
    return all(np.dot(p - table.lin_p1[i], table.lin_normal[i]) > 0 for i in near)


def rack(table: Table, R: float, rng: np.random.Generator, gap: float = 0.0) -> TableState:
    """The 15-ball 8-ball rack (apex on the foot spot, 8 in the centre), with a cue ball."""
    fx, fy = table.foot_spot
    order = list(rng.permutation([i for i in range(1, 16) if i != 8]))
    pos, ids = [], []
    d = 2 * R + gap + _EPS
    k = 0
    for row in range(5):
        for col in range(row + 1):
            x = fx + (col - row / 2) * d
            y = fy + row * d * np.sqrt(3) / 2
            bid = 8 if (row == 2 and col == 1) else int(order.pop())
            ids.append(bid)
            pos.append((x, y))
            k += 1
    ids.append(0)
    pos.append((table.width / 2 + rng.uniform(-0.2, 0.2), table.length / 4 - rng.uniform(0, 0.1)))
    return TableState(np.array(ids), np.array(pos))


def random_layout(table: Table, R: float, rng: np.random.Generator, n: int | None = None) -> TableState:
    """``n`` balls (random 6..16 if None; the cue ball and the 8 always among them) placed by a mix
    of: anywhere, touching an earlier ball, frozen on a cushion, in a pocket's jaws."""
    n = int(rng.integers(6, 17)) if n is None else int(n)
    ids = [0, 8] + list(rng.permutation([i for i in range(1, 16) if i != 8]))[: n - 2]
    ids = [int(i) for i in rng.permutation(ids)]
    placed: list[np.ndarray] = []
    for _ in ids:
        for _attempt in range(400):
            mode = rng.choice(["free", "touch", "cushion", "jaw"], p=[0.35, 0.35, 0.18, 0.12])
            p = _propose(table, R, rng, mode, placed)
            if p is not None and is_legal(table, R, p, placed):
                placed.append(p)
                break
        else:
            raise RuntimeError("could not place a ball; the table is too crowded")
    return TableState(np.array(ids), np.array(placed))


def _propose(table: Table, R: float, rng, mode: str, placed) -> np.ndarray | None:
    w, l = table.width, table.length
    if mode == "touch" and placed:
        q = placed[int(rng.integers(len(placed)))]
        a = rng.uniform(0, 2 * np.pi)
        return q + (2 * R + _EPS) * np.array([np.cos(a), np.sin(a)])
    if mode == "cushion":
        side = int(rng.integers(4))
        if side < 2:
            return np.array([R + _EPS if side == 0 else w - R - _EPS, rng.uniform(0.15, l - 0.15)])
        return np.array([rng.uniform(0.15, w - 0.15), R + _EPS if side == 2 else l - R - _EPS])
    if mode == "jaw":
        k = int(rng.integers(len(table.pocket_center)))
        c = table.pocket_center[k]
        to_table = np.array([w / 2, l / 2]) - c
        to_table /= np.linalg.norm(to_table)
        if table.pocket_kind[k] == "side":
            to_table = np.array([np.sign(to_table[0]), 0.0])
        a = rng.uniform(-0.6, 0.6)
        dirn = np.array([np.cos(a) * to_table[0] - np.sin(a) * to_table[1],
                         np.sin(a) * to_table[0] + np.cos(a) * to_table[1]])
        return c + dirn * (table.pocket_radius[k] + rng.uniform(0.002, 1.2 * R))
    return np.array([rng.uniform(R, w - R), rng.uniform(R, l - R)])
