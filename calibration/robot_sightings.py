"""Which detection in a camera frame is which ball of a calibration shot.

Units: table-frame metres (docs/frame.md).
"""
from __future__ import annotations

import numpy as np

TRACK_GATE_M = 0.08     # an unidentified detection this close to a ball's last sighting is that ball [m]


def sightings(image: np.ndarray, vision, expected: dict[int, np.ndarray]) -> dict[int, tuple[float, float]]:
    """The expected balls vision finds in one frame: id -> (x, y) [m]. A ball vision names is
    taken by its id; an expected ball it did not name takes the nearest unnamed detection within
    TRACK_GATE_M of ``expected[id]`` (its last sighting)."""
    obs = vision.observe(image)
    out: dict[int, tuple[float, float]] = {}
    unnamed = []
    for o in obs:
        if o.ball_id is not None and o.ball_id in expected and o.ball_id not in out:
            out[o.ball_id] = (o.x_m, o.y_m)
        elif o.ball_id is None or o.ball_id not in expected:
            unnamed.append((o.x_m, o.y_m))
    for b, last in expected.items():
        if b in out or not unnamed:
            continue
        d = np.hypot(*(np.asarray(unnamed) - last).T)
        k = int(np.argmin(d))
        if d[k] < TRACK_GATE_M:
            out[b] = unnamed.pop(k)
    return out
