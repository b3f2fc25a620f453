"""Racking: the 15 object balls of 8-ball in a triangle behind the foot spot, plus a cue ball.

WPA 8-ball rack: apex ball on the foot spot, the 8 in the centre of the third row, a solid and
a stripe in the two back corners, the others at random. Balls are set a small gap apart (a real
rack is never perfectly tight) with a little random jitter, so every break differs.
"""
from __future__ import annotations

import numpy as np

from planner.state import CUE, EIGHT, SOLIDS, STRIPES, TableState
from planner.table import Table

RACK_GAP = 2e-4     # nominal gap between neighbouring balls in the rack [m]
RACK_JITTER = 1e-4  # uniform jitter of each ball's position [m]


def triangle_positions(table: Table, R: float, gap: float = RACK_GAP) -> np.ndarray:
    """(15, 2) nominal centres, row by row from the apex (row r has r + 1 balls), apex at the
    foot spot and rows growing towards the foot rail (+y)."""
    fx, fy = table.foot_spot
    d = 2 * R + gap
    pts = []
    for row in range(5):
        for k in range(row + 1):
            pts.append((fx + (k - row / 2) * d, fy + row * d * np.sqrt(3) / 2))
    return np.array(pts)


def rack_8ball(table: Table, R: float, rng: np.random.Generator,
               cue_pos: tuple[float, float] | None = None) -> TableState:
    """A legal 8-ball rack and the cue ball (default: on the head string, centred)."""
    pos = triangle_positions(table, R)
    pos += rng.uniform(-RACK_JITTER / 2, RACK_JITTER / 2, pos.shape)
    ids = np.empty(15, dtype=np.int64)
    ids[4] = EIGHT                      # centre of the third row
    corner_solid = rng.random() < 0.5
    ids[10] = rng.choice(SOLIDS) if corner_solid else rng.choice(STRIPES)
    ids[14] = rng.choice(STRIPES) if corner_solid else rng.choice(SOLIDS)
    rest = [b for b in (*SOLIDS, *STRIPES) if b not in (ids[10], ids[14])]
    rng.shuffle(rest)
    for slot in (0, 1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13):
        ids[slot] = rest.pop()
    cue = np.array(cue_pos if cue_pos is not None else (table.width / 2, table.head_string_y))
    return TableState(np.concatenate([[CUE], ids]), np.vstack([cue, pos]))
