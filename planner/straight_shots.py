"""Compiled inner loop of the move generator and the evaluation function: the success
probability of the straight-in shot of every (ball, pocket) pair of a table state (Smith 2006,
Sections 3.1-3.3), the ghost-ball geometry of planner.aim and the capsule blocking test of
planner.aim evaluated for all pairs in one call, with the difficulty grid's lookup
(planner.interp.multilinear).

Units: metres, degrees (docs/frame.md).
"""
from __future__ import annotations

import numpy as np

from planner.aim import aim_features, segment_blocked
from planner.interp import multilinear
from planner.jit import njit


@njit(cache=True)
def straight_pairs(pos, cue_row, ball_rows, targets, axes, is_side, beta_max, R, width, length, alpha_max,
                   corner, corner_axes, side, side_axes):
    """(B, P) probability that the straight-in shot of the ball in row ``ball_rows[b]`` of ``pos``
    (N, 2) [m] into pocket p (aim point ``targets[p]``, inward unit axis ``axes[p]``) succeeds,
    looked up in the difficulty grids (corner / side: values and axes, as
    ``DifficultyGrid.grid`` gives them); NaN where the shot is impossible: cut angle above
    ``alpha_max`` or pocket angle above ``beta_max[p]`` [deg], ghost ball off the table
    (width x length), or a ball within 2R of the object ball's path to the aim point or of the
    cue ball's path (row ``cue_row``) to the ghost ball."""
    B, P = len(ball_rows), len(targets)
    out = np.full((B, P), np.nan)
    cx, cy = pos[cue_row, 0], pos[cue_row, 1]
    for b in range(B):
        row = ball_rows[b]
        ox, oy = pos[row, 0], pos[row, 1]
        for p in range(P):
            gx, gy, _, alpha, d1, d2, beta = aim_features(cx, cy, ox, oy, targets[p, 0], targets[p, 1],
                                                          axes[p, 0], axes[p, 1], R)
            if alpha > alpha_max or beta > beta_max[p]:
                continue
            if gx < R or gx > width - R or gy < R or gy > length - R:
                continue
            if segment_blocked(ox, oy, targets[p, 0], targets[p, 1], pos, row, -1, R):
                continue
            if segment_blocked(cx, cy, gx, gy, pos, row, cue_row, R):
                continue
            if is_side[p]:
                out[b, p] = multilinear(side, side_axes, (alpha, d1, d2, beta), True)
            else:
                out[b, p] = multilinear(corner, corner_axes, (alpha, d1, d2, beta), True)
    return out
