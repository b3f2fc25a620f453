"""The bookkeeping resolutions: a ball dropping into a pocket, and motion-state transitions."""
from __future__ import annotations

from planner.jit import njit
from planner.physics.motion import SPINNING, STATIONARY


@njit(cache=True)
def pocket_ball(rvw, cx, cy, drop):
    """Place a pocketed ball at rest at (cx, cy, -drop), in place."""
    rvw[0, 0] = cx
    rvw[0, 1] = cy
    rvw[0, 2] = -drop
    for i in range(3):
        rvw[1, i] = 0.0
        rvw[2, i] = 0.0


@njit(cache=True)
def transition(rvw, new_state):
    """Enter ``new_state``, zeroing the motion that state cannot have (residual round-off)."""
    if new_state == SPINNING:
        rvw[1, 0] = rvw[1, 1] = rvw[1, 2] = 0.0
        rvw[2, 0] = rvw[2, 1] = 0.0
    elif new_state == STATIONARY:
        for i in range(3):
            rvw[1, i] = 0.0
            rvw[2, i] = 0.0
