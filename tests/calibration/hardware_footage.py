"""Footage of a hardware calibration, made without hardware: for each designed shot
(calibration/robot_design.py) the balls rest on their spots, then move as the physics engine says
the robot's executed shot (commanded + a known bias + seeded Gaussian noise) moves them, then rest
again. Rendered by the synthetic camera of config/camera.yaml and written as an MJPG video, the
camera.yaml ``source`` a hardware calibration reads (frame times = the video's)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from scipy.spatial.transform import Rotation

from calibration.robot_design import design
from config.table import load_table_settings
from planner.physics.engine import Simulator
from planner.physics.trajectory import positions_at
from planner.shot import ShotParams
from planner.state import TableState
from vision.render import synthetic_camera_from_config

PLACED_S = 1.0      # the balls rest on their spots this long before the strike [s]
AFTER_S = 1.0       # and rest this long after the last ball stopped [s]


def write_footage(path: Path, shots: int, fps: float, bias: ShotParams, sigma: ShotParams, seed: int) -> list[ShotParams]:
    """Write the video of the first ``shots`` designed shots to ``path`` (.avi); returns the
    executed shots (command + bias + N(0, sigma) per parameter, ShotParams units)."""
    tc = load_table_settings()
    sc, _ = synthetic_camera_from_config()
    R = tc.physics.R
    sim = Simulator(tc.table, tc.physics)
    renderer = sc.fast_renderer(seed=seed)
    rng = np.random.default_rng(seed)
    w, h = sc.cam.size
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert out.isOpened(), "OpenCV cannot write MJPG"

    def frame(ids, pos, rot):
        image = renderer.update(ids, np.column_stack([pos, np.full(len(ids), R)]), rot).copy()
        renderer.add_noise(image, rng)
        out.write(image)

    executed = []
    for ds in design(shots, tc.table, R):
        start = TableState.from_dict(ds.balls)
        shot = ShotParams(*(ds.command.as_array() + bias.as_array() + rng.normal(0.0, sigma.as_array())))
        executed.append(shot)
        res = sim.simulate(start, shot)
        rot = Rotation.random(len(start.ids), random_state=rng).as_matrix()
        for _ in range(round(PLACED_S * fps)):
            frame(start.ids, start.pos, rot)
        times = np.arange(0.0, res.t_end + AFTER_S, 1.0 / fps)
        for pos in positions_at(res, start, times, sim.params):
            on = ~np.isnan(pos[:, 0])
            frame(start.ids[on], pos[on], rot[on])
    out.release()
    return executed
