"""The dashboard's frame: a camera frame with the detected balls, their labels and the planned
shot's predicted paths drawn on it, as PNG.

The paths come from the physics engine, not from the camera: the nominal planned shot (no
execution noise) is simulated once per plan, every moving ball's centre is sampled along it
(``planner.physics.trajectory.positions_at``) and projected into the image at the height of a
ball's centre, z = R (docs/frame.md). Compute them once when the plan is chosen and draw them on
every frame until the next plan:

    paths = predicted_paths(sim, state, plan_shot)            # {ball id: BallPath}
    png = encode_png(annotate_frame(frame.image, balls, cam, paths, R))
    plan_json["paths"] = paths_to_json(paths)                  # ServiceControl.plan()["paths"]
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from planner.physics.engine import Simulator
from planner.physics.trajectory import positions_at
from planner.shot import ShotParams
from planner.state import CUE, TableState
from vision.camera import CameraModel, table_to_pixels
from vision.overlay import draw_observations
from vision.pipeline import BallObservation

PATH_DT = 0.02          # [s] sampling step of a predicted path (events are sampled exactly besides)
BEFORE_EVENT = 1e-6     # [s] also sample this long before each event: a pocketed ball's drop point
MOVED = 1e-6            # [m] a ball whose centre moves less than this is not drawn
SUBPIXEL_BITS = 4       # cv2 drawing precision: 1/16 px
PNG_COMPRESSION = 1     # fast: the service encodes a frame per camera frame

# BGR line colours: the cue ball white, the others their pool-ball colour (stripes as their
# solid), the eight ball grey so that it shows on the cloth.
_POOL_BGR = {1: (0, 215, 255), 2: (200, 80, 0), 3: (0, 0, 220), 4: (130, 0, 110), 5: (0, 130, 255),
             6: (40, 150, 0), 7: (30, 30, 150), 8: (160, 160, 160)}


def path_colour(ball_id: int) -> tuple[int, int, int]:
    """The BGR colour a ball's predicted path is drawn in."""
    if ball_id == CUE:
        return (255, 255, 255)
    return _POOL_BGR[ball_id if ball_id <= 8 else ball_id - 8]


@dataclass(frozen=True)
class BallPath:
    """One ball's predicted path: points (T, 2) centres [m] in time order, from its start to where
    it comes to rest or, if ``pocketed``, to where it drops."""
    points: np.ndarray
    pocketed: bool


def predicted_paths(sim: Simulator, state: TableState, shot: ShotParams, cue_id: int = CUE,
                    dt: float = PATH_DT) -> dict[int, BallPath]:
    """Each moving ball's predicted centre path for the nominal ``shot`` of ball ``cue_id``.

    state: the balls at rest before the shot (table frame, metres). Returns {ball id: BallPath}
    for the balls that move (at least ``MOVED``) or drop. Samples every ``dt`` [s] and at
    every event (cushion and ball contacts are corners of the path). Raises PhysicsInputError
    (from the engine) for a state or shot it cannot simulate.
    """
    if not dt > 0:
        raise ValueError(f"dt must be a positive sampling step in seconds, got {dt}")
    result = sim.simulate(state, shot, cue_id)
    t_end = float(result.t_end)
    ev_t = np.asarray(result.events.time, dtype=np.float64)
    times = np.unique(np.concatenate([np.arange(0.0, t_end, dt), ev_t, np.maximum(ev_t - BEFORE_EVENT, 0.0),
                                      [t_end]]))
    pos = positions_at(result, state, times, sim.params)          # (T, N, 2), NaN once pocketed
    paths = {}
    for i, ball in enumerate(result.ids):
        p = pos[:, i]
        p = p[np.isfinite(p).all(axis=1)]
        dropped = len(p) < len(times)
        if len(p) == 0 or not (dropped or np.abs(p - p[0]).max() >= MOVED):
            continue
        paths[int(ball)] = BallPath(points=p, pocketed=dropped)
    return paths


def paths_to_json(paths: dict[int, BallPath], decimals: int = 4) -> dict[int, list[list[float]]]:
    """The paths as plain lists ({ball id: [[x, y], ...]} metres, rounded to 0.1 mm by default),
    the form of ``ServiceControl.plan()["paths"]``."""
    return {int(b): np.round(p.points, decimals).tolist() for b, p in paths.items()}


def path_pixels(cam: CameraModel, path, R: float) -> np.ndarray:
    """(T, 2) ball-centre positions [m] -> (T, 2) pixels, projected at the centre's height z = R [m]."""
    path = np.asarray(path, dtype=np.float64).reshape(-1, 2)
    return table_to_pixels(cam, np.column_stack([path, np.full(len(path), R)]))


def draw_paths(image: np.ndarray, cam: CameraModel, paths: dict[int, BallPath], R: float) -> np.ndarray:
    """A copy of the BGR ``image`` with each path drawn as a polyline (``path_colour``, on a dark
    underlay so that it shows on any cloth) ending in a ghost ball outline where the ball comes to
    rest (none for a ball that drops). ``cam`` must have a pose; R: ball radius [m]."""
    out = image.copy()
    scale = 1 << SUBPIXEL_BITS
    for ball, path in sorted(paths.items(), key=lambda kv: kv[0] == CUE):   # the cue ball's path on top
        if len(path.points) == 0:
            continue
        px = path_pixels(cam, path.points, R)
        pts = np.round(px * scale).astype(np.int32).reshape(-1, 1, 2)
        colour = path_colour(ball)
        cv2.polylines(out, [pts], False, (0, 0, 0), 4, cv2.LINE_AA, SUBPIXEL_BITS)
        cv2.polylines(out, [pts], False, colour, 2, cv2.LINE_AA, SUBPIXEL_BITS)
        if not path.pocketed:
            rim = path_pixels(cam, [path.points[-1] + (R, 0.0)], R)[0]
            r_px = max(2.0, float(np.hypot(*(rim - px[-1]))))
            cv2.circle(out, tuple(int(v) for v in pts[-1, 0]), int(round(r_px * scale)), colour, 1, cv2.LINE_AA,
                       SUBPIXEL_BITS)
    return out


def annotate_frame(image: np.ndarray, balls: list[BallObservation], cam: CameraModel | None = None,
                   paths: dict[int, BallPath] | None = None, R: float | None = None) -> np.ndarray:
    """The dashboard's picture of one BGR frame: the planned shot's predicted ``paths`` (when
    given, with the posed ``cam`` and the ball radius ``R`` [m]), then every detected ball's
    outline, centre and label, and beside the frame the list of balls (``vision.overlay``).
    Returns a new BGR image, ``vision.overlay.PANEL_WIDTH`` px wider than ``image``."""
    out = image
    if paths:
        if cam is None or R is None:
            raise ValueError("drawing predicted paths needs the posed camera model and the ball radius R")
        out = draw_paths(image, cam, paths, R)
    return draw_observations(out, balls)


def encode_png(image: np.ndarray) -> bytes:
    """A BGR or grey uint8 image as PNG bytes."""
    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, PNG_COMPRESSION])
    if not ok:
        raise ValueError(f"cannot encode an image of shape {image.shape} and dtype {image.dtype} as PNG")
    return buf.tobytes()
