"""Random but legal ball layouts for tests and benchmarks of the vision pipeline.

A layout is a TableState (docs/frame.md) whose balls are all at rest on the cloth: no two overlap,
none overlaps a cushion, jaw or jaw tip, and none has its centre over a pocket. It mixes the cases
a detector finds hard: balls anywhere (including the distorted corners of the image), touching
clusters, balls frozen on a cushion, balls in a pocket's jaws, and the 15-ball rack.
"""
from __future__ import annotations

import numpy as np

from planner.rack import rack_8ball
from planner.state import TableState
from planner.table import Table

_EPS = 1e-7   # clearance [m] that makes "touching" numerically non-overlapping


def is_legal(table: Table, R: float, p, others=()) -> bool:
    """Whether a ball of radius R [m] centred at p = (x, y) [m] rests on the cloth clear of
    everything: ``Table.position_problem`` finds nothing (to within _EPS / 2) and no centre in
    ``others`` ((2,) each) is closer than 2R - _EPS / 2."""
    p = np.asarray(p, dtype=np.float64)
    if table.position_problem(float(p[0]), float(p[1]), R, tol=_EPS * 0.5) is not None:
        return False
    return all(np.linalg.norm(p - q) >= 2 * R - _EPS * 0.5 for q in others)


def rack(table: Table, R: float, rng: np.random.Generator) -> TableState:
    """The 8-ball rack of ``planner.rack.rack_8ball`` with the cue ball at a random spot in the
    kitchen, within 0.2 m of the long axis and 0.1 m of the head string."""
    cue = (table.width / 2 + rng.uniform(-0.2, 0.2), table.head_string_y - rng.uniform(0, 0.1))
    return rack_8ball(table, R, rng, cue_pos=cue)


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
