"""Ball identities and the table state the planner reasons about.

Ball ids are integers: 0 is the cue ball, 1-7 solids, 8 the eight ball, 9-15 stripes.
Positions are ball-centre (x, y) in the table frame [m] (docs/frame.md); balls at rest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CUE = 0
EIGHT = 8
SOLIDS = tuple(range(1, 8))
STRIPES = tuple(range(9, 16))
ALL_BALLS = tuple(range(16))


def ball_class(ball_id: int) -> str:
    """'cue', 'eight', 'solid' or 'stripe'."""
    if ball_id == CUE:
        return "cue"
    if ball_id == EIGHT:
        return "eight"
    if 1 <= ball_id <= 7:
        return "solid"
    if 9 <= ball_id <= 15:
        return "stripe"
    raise ValueError(f"ball id must be 0..15, got {ball_id}")


@dataclass(frozen=True)
class TableState:
    """Balls at rest on the cloth. ids: (K,) int; pos: (K, 2) float64 metres. Pocketed balls are absent."""
    ids: np.ndarray
    pos: np.ndarray

    def __post_init__(self):
        ids = np.asarray(self.ids, dtype=np.int64).reshape(-1)
        pos = np.asarray(self.pos, dtype=np.float64).reshape(-1, 2)
        if ids.shape[0] != pos.shape[0]:
            raise ValueError(f"TableState: {ids.shape[0]} ids but {pos.shape[0]} positions")
        if len(set(ids.tolist())) != ids.shape[0]:
            raise ValueError(f"TableState: duplicate ball ids {ids.tolist()}")
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "pos", pos)

    @classmethod
    def from_dict(cls, balls: dict[int, tuple[float, float]]) -> "TableState":
        ids = sorted(balls)
        return cls(np.array(ids, dtype=np.int64), np.array([balls[i] for i in ids], dtype=np.float64).reshape(-1, 2))

    def to_dict(self) -> dict[int, tuple[float, float]]:
        return {int(i): (float(p[0]), float(p[1])) for i, p in zip(self.ids, self.pos)}

    def has(self, ball_id: int) -> bool:
        return bool(np.any(self.ids == ball_id))

    def position(self, ball_id: int) -> np.ndarray:
        idx = np.flatnonzero(self.ids == ball_id)
        if idx.size == 0:
            raise KeyError(f"ball {ball_id} is not on the table")
        return self.pos[idx[0]]
