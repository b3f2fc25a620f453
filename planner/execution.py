"""Noisy shots as the robot can strike them (the engine refuses the rest)."""
from __future__ import annotations

import numpy as np

from planner.physics.engine import TIP_OFFSET_MAX, V_MAX


def executable(rows: np.ndarray, R: float) -> np.ndarray:
    """Noisy shot rows (K, 5) mapped to what the robot can strike: elevation folded to >= 0,
    speed kept in (0, V_MAX], tip offset kept inside the engine's miscue limit. Returns a new array."""
    rows = np.array(rows, dtype=np.float64)
    rows[:, 1] = np.minimum(np.abs(rows[:, 1]), 89.0)
    rows[:, 2] = np.clip(rows[:, 2], 0.05, V_MAX)
    off = np.hypot(rows[:, 3], rows[:, 4])
    lim = 0.95 * TIP_OFFSET_MAX * R
    scale = np.where(off > lim, lim / np.maximum(off, 1e-12), 1.0)
    rows[:, 3:5] *= scale[:, None]
    return rows
