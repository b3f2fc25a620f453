"""The designed set of calibration shots: where the balls go and what the robot is told.

Every shot strikes the cue ball with side spin, draw or follow and an elevation, so that one
trajectory shows all five parameters (calibration/robot_fit.py says what shows which); across the
set the direction phi turns all round, speeds alternate low and high, and the signs of the spins
alternate so that their effects do not line up with a bias. Half the shots put one object ball
in the cue ball's path: the collision (its throw, and where the cue ball goes after it) shows
the spin and elevation terms again. The set is a fixed cycle, the same for every robot and seed.

Units as docs/frame.md: positions metres in the table frame; ShotParams phi, theta deg, V m/s,
a, b metres.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from planner.shot import ShotParams
from planner.state import CUE
from planner.table import Table

OBJECT_BALL = 1                # the object ball of the collision shots
OBJECT_DISTANCE = 0.40         # [m] cue ball to object ball, centre to centre
CUT_R = 0.35                   # the collision's cut: the aim passes this many R beside the object ball's centre


@dataclass(frozen=True)
class ShotKind:
    """One entry of the cycle: elevation [deg], cue speed [m/s], tip offsets [m], whether an
    object ball is in the path, and a short name for the report."""
    name: str
    theta: float
    V: float
    a: float
    b: float
    object_ball: bool


# The cycle: low (1.2 m/s) and high (2.0 m/s) speeds, side spin of both signs, draw and follow,
# elevations from 5 to 25 deg, alone and into an object ball.
KINDS = (
    ShotKind("draw, left english", 10.0, 2.0, 0.007, -0.006, False),
    ShotKind("follow, right english, slow", 10.0, 1.2, -0.007, 0.006, False),
    ShotKind("draw into a ball", 5.0, 2.0, -0.007, -0.006, True),
    ShotKind("follow into a ball, slow", 15.0, 1.2, 0.007, 0.006, True),
    ShotKind("elevated draw, right english", 25.0, 2.0, -0.007, -0.006, False),
    ShotKind("elevated follow into a ball", 20.0, 2.0, 0.007, 0.005, True),
    ShotKind("elevated draw, left english, slow", 25.0, 1.2, 0.007, -0.006, False),
    ShotKind("draw into a ball, slow", 15.0, 1.2, -0.007, -0.006, True),
)
# Cue-ball spots as fractions of (width, length), and the direction each shot leaves them in
# [deg]: along the table towards its far half, PHI_SPREAD either side of the long axis, the
# offset stepping by PHI_STEP (mod 2 PHI_SPREAD) from shot to shot.
SPOTS = ((0.5, 0.3), (0.35, 0.35), (0.65, 0.7), (0.5, 0.65), (0.4, 0.42), (0.6, 0.58))
PHI_SPREAD, PHI_STEP = 35.0, 17.0


@dataclass(frozen=True)
class DesignedShot:
    """One calibration shot: the balls to place, id -> (x, y) [m] (the cue ball, and the object
    ball of a collision shot), the commanded shot and its kind."""
    balls: dict[int, tuple[float, float]]
    command: ShotParams
    kind: ShotKind

    @property
    def cue_xy(self) -> tuple[float, float]:
        return self.balls[CUE]


def _direction(spot: tuple[float, float], table: Table, k: int) -> float:
    """phi [deg] of shot k: 90 + an offset within +-PHI_SPREAD, turned round (270 + offset) from
    a spot in the far half, so that the ball runs the length of the table."""
    offset = (k * PHI_STEP) % (2 * PHI_SPREAD) - PHI_SPREAD
    return (90.0 if spot[1] < table.length / 2 else 270.0) + offset


def design(n: int, table: Table, R: float) -> list[DesignedShot]:
    """The first ``n`` shots of the cycle on ``table`` (balls of radius R [m]). Raises
    ValueError for n < 1."""
    if n < 1:
        raise ValueError(f"a calibration needs at least one shot, got {n}")
    shots = []
    for k in range(n):
        kind = KINDS[k % len(KINDS)]
        fx, fy = SPOTS[k % len(SPOTS)]
        cue = (fx * table.width, fy * table.length)
        phi = _direction(cue, table, k)
        balls = {CUE: cue}
        if kind.object_ball:
            u = math.radians(phi)
            side = 1.0 if k % 2 else -1.0        # cut to the left and to the right in turn
            ox = cue[0] + OBJECT_DISTANCE * math.cos(u) - side * CUT_R * R * math.sin(u)
            oy = cue[1] + OBJECT_DISTANCE * math.sin(u) + side * CUT_R * R * math.cos(u)
            balls[OBJECT_BALL] = (ox, oy)
        shots.append(DesignedShot(balls, ShotParams(phi, kind.theta, kind.V, kind.a, kind.b), kind))
    return shots
