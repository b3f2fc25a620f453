"""Motion from a short run of frames: is the table at rest, and where did the cue ball go.

Both work on the balls the pipeline finds (table positions), not on raw pixel differences, so
sensor noise and lighting flicker do not count as motion.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

REST_TOLERANCE = 0.0005    # [m] a ball that moves less than this between frames is at rest


def at_rest(positions: Sequence[np.ndarray], tol: float = REST_TOLERANCE) -> bool:
    """Whether the table is at rest over a run of frames.

    positions: per frame, the (K_t, 2) table positions [m] of the balls seen. At rest means every
    frame sees the same number of balls and each ball of a frame has a partner in the next within
    ``tol`` (optimal one-to-one matching). Needs at least two frames.
    """
    if len(positions) < 2:
        raise ValueError("at_rest needs at least two frames")
    for a, b in zip(positions[:-1], positions[1:]):
        a, b = np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2)
        if a.shape[0] != b.shape[0]:
            return False
        if a.shape[0] == 0:
            continue
        d = np.linalg.norm(a[:, None] - b[None], axis=-1)
        r, c = linear_sum_assignment(d)
        if np.max(d[r, c]) > tol:
            return False
    return True


def track_ball(frames: Sequence[np.ndarray], observe: Callable[[np.ndarray], np.ndarray],
               start: np.ndarray, gate: float) -> np.ndarray:
    """Follow one ball (e.g. the cue ball through a shot) from a known start position.

    frames: images; observe: image -> (K, 2) table positions of the balls in it; start: (2,) the
    ball's position before the first frame [m]; gate: the farthest it may be from its predicted
    position (constant velocity from the last two fixes) [m].
    Returns (T, 2) positions [m], NaN where the ball was not found within the gate.
    """
    track = np.full((len(frames), 2), np.nan)
    last = [np.asarray(start, dtype=np.float64)]
    for t, img in enumerate(frames):
        pred = last[-1] if len(last) < 2 else 2 * last[-1] - last[-2]
        pts = np.asarray(observe(img), dtype=np.float64).reshape(-1, 2)
        if pts.shape[0]:
            d = np.linalg.norm(pts - pred, axis=1)
            k = int(np.argmin(d))
            if d[k] <= gate:
                track[t] = pts[k]
                last.append(pts[k])
    return track
